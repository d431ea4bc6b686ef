// A recording lifted back to a scenario: the file it was made from, with its workload replaced
// by the steps the recording shows the client made, one a call, loops unrolled, and each
// wait's status as the recording saw it. What `tidemark reduce` cuts when its input is a
// recording: a long run's stream, not the loops that wrote it.
#pragma once

#include <filesystem>
#include <string>

#include "core/error.h"
#include "scenario/scenario.h"

namespace tidemark::reduce {

// `made_from` is the scenario the recording's header names, as loaded from `text`. The
// buffer, draw, fence, wait, flush, finish and present calls lift; a recording of any other
// call (the kernel model's, a counter stream's) is refused, naming the record.
Result<std::string> lift_recording(const std::filesystem::path& recording, const scenario::Scenario& made_from,
                                   const std::string& text);

}  // namespace tidemark::reduce
