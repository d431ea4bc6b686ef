// The descriptions of records that more than one document holds (a run's record and an
// observation both keep a TimeoutRecord, with its TimeLimit as a word): one home, so that every
// codec sees the same one.
#pragma once

#include "report/described.h"
#include "report/run_record.h"

namespace tidemark::report {

template <>
struct JsonWord<TimeLimit> {
  static std::string word(TimeLimit limit) { return std::string(time_limit_name(limit)); }
  static std::optional<TimeLimit> from_word(std::string_view word) { return time_limit_named(word); }
  static constexpr std::string_view expected = "one of wall-clock, inactivity";
};
template <>
struct JsonDescription<TimeoutRecord> {
  static constexpr auto fields() {
    using T = TimeoutRecord;
    return std::tuple{always("limit", &T::limit),
                      always("limit_seconds", &T::limit_seconds),
                      always("after_seconds", &T::after_seconds),
                      always("idle_seconds", &T::idle_seconds),
                      when_set("last_step", &T::last_step),
                      when_set("last_vulkan_call", &T::last_vulkan_call),
                      when_set("last_wire_command", &T::last_wire_command),
                      when_set("asked_again", &T::asked_again)};
  }
};

}  // namespace tidemark::report
