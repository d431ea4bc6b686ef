#include "tap/decoders.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <memory>

#include "tap/vtest_decoder.h"

namespace tidemark::tap {

namespace {

struct Protocol {
  std::string_view name;
  DecoderFactory make;
};

const std::vector<Protocol>& registry() {
  static const std::vector<Protocol> known = {
      {"vtest", [] { return std::make_unique<VtestDecoder>(); }},  // virglrenderer's vtest (Mesa's virpipe client)
  };
  return known;
}

// "VCMD_SUBMIT_CMD" -> "wirecmd_submit_cmd": a gauge name a check can read.
std::string command_gauge(std::string_view kind) {
  if (kind.starts_with("VCMD_")) kind.remove_prefix(5);
  std::string name(kWireCommandPrefix);
  for (char c : kind) name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return name;
}

}  // namespace

std::vector<std::string_view> protocols() {
  std::vector<std::string_view> names;
  for (const auto& protocol : registry()) names.push_back(protocol.name);
  return names;
}

Result<DecoderFactory> decoder_for(std::string_view protocol) {
  for (const auto& known : registry())
    if (known.name == protocol) return known.make;
  return fail(ErrorKind::BadInput, fmt::format("expected a wire protocol the tap decodes ({}), found '{}'",
                                               fmt::join(protocols(), ", "), protocol));
}

NamedGauges named(const WireGauges& gauges) {
  // The catalogue's names, in its order (a test holds the two together).
  NamedGauges out = {{"wireres", gauges.wire_resources},
                     {"wirerespk", gauges.wire_resources_peak},
                     {"wireresmade", static_cast<int64_t>(gauges.wire_resources_created)},
                     {"wireresgone", static_cast<int64_t>(gauges.wire_resources_destroyed)},
                     {"wirebytesout", static_cast<int64_t>(gauges.wire_bytes_to_server - gauges.wire_greeting_bytes)},
                     {"wirebytesin", static_cast<int64_t>(gauges.wire_bytes_to_client)},
                     {"wirefdsout", static_cast<int64_t>(gauges.wire_fds_to_server)},
                     {"wirefdsin", static_cast<int64_t>(gauges.wire_fds_to_client)},
                     {"wirecmds", static_cast<int64_t>(gauges.wire_commands)},
                     {"wirereplies", static_cast<int64_t>(gauges.wire_replies)}};
  for (const auto& [kind, count] : gauges.wire_commands_by_kind)
    out.emplace_back(command_gauge(kind), static_cast<int64_t>(count));
  return out;
}

}  // namespace tidemark::tap
