// Inside the wire: what a replay's replies make of the run digest. The runner digests what it
// read back through the same RunDigestInputs (runner/kinds/digest.h), so the two agree by construction.
#pragma once

#include <optional>
#include <string>

#include "core/digest.h"
#include "wire/codec.h"
#include "wire/messages.h"

namespace tidemark::wire {

// The source whose gauges a request reads; nullopt for a request that reads none.
std::optional<GaugeSource> gauge_source(Opcode request);

// The pixel hash of a Pixels reply.
Result<std::string> pixels_hash(FrameView reply);

// Adds what `reply`, the answer to `request`, gives the run digest: gauges under their source,
// the pixels' hash, the trace's hash. Any other reply adds nothing, and so does one that does
// not decode (comparing it with the recorded reply reports that).
void add_to_run_digest(RunDigestInputs& inputs, Opcode request, FrameView reply);

}  // namespace tidemark::wire
