// What a client wait returns: the backend's answer, the wire's field and what a scenario's
// `expect:` names, spelled once.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace tidemark {

enum class WaitStatus { AlreadySignaled, ConditionSatisfied, TimeoutExpired };

// Scenario spellings, in enum order.
inline constexpr std::array<std::string_view, 3> kWaitStatusNames = {"already_signaled", "condition_satisfied",
                                                                     "timeout_expired"};

std::string_view to_string(WaitStatus status);
std::optional<WaitStatus> parse_wait_status(std::string_view name);

}  // namespace tidemark
