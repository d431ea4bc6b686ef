#include "check/run_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "check/outcome.h"

namespace tidemark::check {

using scenario::CheckKind;

Outcome check_waits(const WaitTally& waits) {
  bool passed = waits.mismatched == 0;
  size_t unlisted = static_cast<size_t>(waits.mismatched) - waits.mismatches.size();
  return outcome_of(
      CheckKind::Waits, "every client_wait returns its expected status", passed,
      passed ? fmt::format("{} waits as expected", waits.checked)
             : fmt::format("{} of {} waits off: {}{}", waits.mismatched, waits.checked,
                           fmt::join(waits.mismatches, "; "), unlisted ? fmt::format("; and {} more", unlisted) : ""));
}

Outcome check_lane(Lane lane, const LaneTraffic& traffic) {
  bool separate_process = lane == Lane::Spawn || lane == Lane::Tcp;
  bool passed = traffic.frames_sent > 0 && traffic.frames_received > 0 &&
                (!separate_process || traffic.server_pid != traffic.client_pid);
  return outcome_of(
      CheckKind::Lane,
      separate_process ? "frames crossed the wire to a server in another process" : "frames crossed the wire", passed,
      fmt::format("{} frames sent, {} received; client pid {}, server pid {}", traffic.frames_sent,
                  traffic.frames_received, traffic.client_pid, traffic.server_pid));
}

Outcome check_validation(const std::vector<std::string>& messages) {
  return outcome_of(
      CheckKind::Validation, "VK_LAYER_KHRONOS_validation reports nothing", messages.empty(),
      messages.empty() ? "0 messages" : fmt::format("{} messages, first: {}", messages.size(), messages.front()));
}

std::optional<Outcome> check_determinism(const std::vector<std::string>& digests) {
  std::set<std::string> distinct(digests.begin(), digests.end());
  if (distinct.size() <= 1) return std::nullopt;
  return outcome_of(CheckKind::Determinism, fmt::format("{} runs give one digest", digests.size()), false,
                    fmt::format("{} distinct digests: {}", distinct.size(), fmt::join(distinct, ", ")));
}

}  // namespace tidemark::check
