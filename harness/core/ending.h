// Whether this process has been told to end (SIGTERM, SIGINT, SIGHUP: core/temporaries.h). The
// children killed then are no result: a thread that sees one end, or that reaches exit, waits
// here for the signal's end of the process rather than act on it (a bisect would cache a build
// killed so as one that does not build, and exit 2).
#pragma once

namespace tidemark {

bool process_is_ending();
// Waits for ever when the process is ending (its termination thread ends it), else returns.
void wait_if_ending();

}  // namespace tidemark
