// Whether this process has been told to end (SIGTERM, SIGINT, SIGHUP: core/temporaries.h). The
// children killed then are no result: a thread that sees one end, or that reaches exit, waits
// here for the signal's end of the process rather than act on it (a bisect would cache a build
// killed so as one that does not build, and exit 2).
#pragma once

#include <string>

namespace tidemark {

bool process_is_ending();
// Waits for ever when the process is ending (its termination thread ends it), else returns.
void wait_if_ending();

// "TIDEMARK_TEMPORARIES_IN=<this process's folder of temporaries>", for every child's environment:
// a Tidemark it starts makes its own folder inside, so that ours takes it along however that child
// ends (core/temporaries.h); "" before this process made a temporary folder.
std::string temporaries_for_children();

}  // namespace tidemark
