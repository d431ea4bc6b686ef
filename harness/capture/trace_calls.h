// An apitrace capture's calls, and which of them a reduction may leave out. The rule keeps a cut
// capture replayable: what creates, binds or sets state stays (a kept call may need it); what
// only feeds, draws, waits or reads back may go — a buffer's data (re)specified or updated, a
// draw or dispatch, a clear, a finish, flush or sync wait, a read-back, a swap, and a buffer's
// mapping from map to unmap with the writes between (never half of it: the replayer would write
// through a mapping it never made). Whole frames go first, then single units.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace tidemark::capture {

struct TraceCall {
  uint32_t number = 0;
  std::string function;
};

// The calls of `apitrace dump --verbose --multiline=no --arg-names=no --color=never` output, in
// order: a line "N function(...". Anything else (a comment, a thread switch) is not a call.
std::vector<TraceCall> parse_dump(std::string_view dump);

// Runs apitrace dump over the capture, its output into `dump_file`. An error when apitrace cannot
// be run or dumps no call.
Result<std::vector<TraceCall>> list_calls(const std::filesystem::path& trace, const std::filesystem::path& dump_file);

struct Units {
  std::vector<uint32_t> setup;                   // the calls every cut keeps
  std::vector<std::vector<uint32_t>> removable;  // the units a cut keeps or leaves out whole
  std::vector<std::vector<size_t>> frames;       // the removable units of each frame, in order
};
Units split_units(const std::vector<TraceCall>& calls);

// Whether a call of this function may be left out (on its own or in its mapping's unit).
bool removable_call(std::string_view function);

// An apitrace call set for `numbers` (sorted, distinct): "0-46,48,50-52".
std::string call_set(const std::vector<uint32_t>& numbers);

// The setup and the chosen units' calls, sorted.
std::vector<uint32_t> calls_of(const Units& units, const std::vector<size_t>& chosen);

// Writes the capture of `numbers` of `trace` to `out` with `apitrace trim` (the call set in a
// file beside it: a long one does not fit an argument).
Status trim_capture(const std::filesystem::path& trace, const std::vector<uint32_t>& numbers,
                    const std::filesystem::path& out);

}  // namespace tidemark::capture
