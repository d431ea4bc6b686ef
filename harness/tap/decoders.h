// The wire protocols the tap decodes, by the name a drivers file gives a server's wire
// (`wire: vtest`), and a tap's gauges under the gauge catalogue's names (core/gauges.h,
// kWireGauges). A team's own protocol is one more WireDecoder and one more line in decoders.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/gauges.h"
#include "tap/wire_decoder.h"

namespace tidemark::tap {

std::vector<std::string_view> protocols();
// Errors: a name no decoder has (BadInput, naming the ones there are).
Result<DecoderFactory> decoder_for(std::string_view protocol);

// kWireGauges in order, then each command kind as "wirecmd_<kind>" ("VCMD_SUBMIT_CMD":
// wirecmd_submit_cmd), in the kinds' order.
NamedGauges named(const WireGauges& gauges);

}  // namespace tidemark::tap
