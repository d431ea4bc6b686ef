#include "report/run_record.h"

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/gauges.h"
#include "report/described.h"
#include "report/described_records.h"
#include "report/json_fields.h"

namespace tidemark::report {

namespace {

struct VerdictNames {
  Verdict verdict;
  std::string_view name;
  std::string_view label;
  int failure_rank;
};
constexpr VerdictNames kVerdictNames[] = {
    {Verdict::Green, "green", "GREEN", 3},
    {Verdict::Red, "red", "RED", 0},
    {Verdict::ExpectedRed, "expected-red", "EXPECTED RED", 2},
    {Verdict::UnexpectedPass, "unexpected-pass", "UNEXPECTED PASS", 1},
    {Verdict::CouldNotRun, "could-not-run", "COULD NOT RUN", 0},
    {Verdict::NotJudged, "not-judged", "NOT JUDGED", 0},
    {Verdict::Crash, "crash", "CRASH", 0},
    {Verdict::DeviceLost, "device-lost", "DEVICE LOST", 0},
    {Verdict::Timeout, "timeout", "TIMEOUT", 0},
    {Verdict::Skipped, "skipped", "SKIPPED", 2},
    {Verdict::NotRun, "not-run", "NOT RUN", 2},
    {Verdict::Flaky, "flaky", "FLAKY", 1},
    {Verdict::Nondeterministic, "nondeterministic", "NONDETERMINISTIC", 0},
};
static_assert(std::size(kVerdictNames) == std::size(kAllVerdicts), "a verdict without its names");

const VerdictNames& names_of(Verdict verdict) {
  for (const auto& names : kVerdictNames)
    if (names.verdict == verdict) return names;
  return kVerdictNames[1];
}

constexpr std::pair<Movement, std::string_view> kMovementNames[] = {{Movement::Same, "same"},
                                                                    {Movement::Improved, "improved"},
                                                                    {Movement::Changed, "changed"},
                                                                    {Movement::Worse, "worse"},
                                                                    {Movement::New, "new"}};

constexpr std::pair<CrashedProcess, std::string_view> kCrashedProcessNames[] = {
    {CrashedProcess::Subject, "subject"},
    {CrashedProcess::RendererServer, "renderer-server"},
    {CrashedProcess::LaneServer, "lane-server"}};

// Version 3: a verdict in place of green, expected_failure, unexpected_pass and error. A crash
// adds a verdict and an optional field: records without one read and write as before; so does a lost
// device, and a timeout.
constexpr DocumentKind kRunDocument{"tidemark-run", 3, "a run record (result.json)"};

}  // namespace

std::string_view verdict_name(Verdict verdict) { return names_of(verdict).name; }

Column Column::parse(std::string_view text) {
  const size_t at = text.find('@');
  if (at == std::string_view::npos) return {std::string(text), {}};
  return {std::string(text.substr(0, at)), std::string(text.substr(at + 1))};
}
std::string subject_id(const RunRecord& record) { return record.subject.substr(0, record.subject.find('@')); }

std::string_view verdict_label(Verdict verdict) { return names_of(verdict).label; }
int failure_rank(Verdict verdict) { return names_of(verdict).failure_rank; }
bool passes(Verdict verdict) { return verdict == Verdict::Green || verdict == Verdict::ExpectedRed; }
bool retries(Verdict verdict) {
  return verdict == Verdict::Red || verdict == Verdict::CouldNotRun || verdict == Verdict::Crash ||
         verdict == Verdict::DeviceLost || verdict == Verdict::Timeout;
}
bool not_ran(Verdict verdict) { return verdict == Verdict::Skipped || verdict == Verdict::NotRun; }
bool finished(Verdict verdict) {
  return !not_ran(verdict) && verdict != Verdict::Timeout && verdict != Verdict::Crash &&
         verdict != Verdict::CouldNotRun && verdict != Verdict::NotJudged;
}

std::optional<DeviceLostRecord> device_lost_in(const GaugeValues& observed) {
  auto gauge = [&](const char* name) {
    auto found = observed.find(name);
    return found == observed.end() ? int64_t{0} : found->second;
  };
  if (gauge("vklost") == 0) return std::nullopt;
  return DeviceLostRecord{.call = std::string(lost_call_name(gauge("vklostcall"))),
                          .submit_or_wait = gauge("vklostat"),
                          .answers = gauge("vklost"),
                          .last_step = {}};
}

std::string describe(const DeviceLostRecord& lost) {
  return fmt::format("{} answered VK_ERROR_DEVICE_LOST at its device's submit or wait {}{}",
                     lost.call.empty() ? "a call" : lost.call, lost.submit_or_wait,
                     lost.answers > 0
                         ? fmt::format(" ({} call{} answered so in all)", lost.answers, lost.answers == 1 ? "" : "s")
                         : "");
}

GaugeValues gauge_values(const std::vector<std::pair<std::string, int64_t>>& named) {
  return GaugeValues(named.begin(), named.end());
}

bool record_passes(const RunRecord& record) {
  return passes(record.verdict) && !(record.baseline && record.baseline->movement == Movement::Worse) &&
         digest_change(record).empty();
}

std::string digest_change(const RunRecord& record) {
  if (!record.committed_digest || record.digest.empty() || *record.committed_digest == record.digest) return "";
  return record.committed_digest->empty()
             ? fmt::format("digest {} of {} has no committed digest", record.digest, record.subject)
             : fmt::format("digest {} of {}, committed {}", record.digest, record.subject, *record.committed_digest);
}

namespace {

// A value's name in a table of (value, name) pairs, and back: the table's first name when none.
template <class Value, size_t N>
std::string_view name_in(const std::pair<Value, std::string_view> (&table)[N], Value value) {
  for (const auto& [each, name] : table)
    if (each == value) return name;
  return table[0].second;
}

template <class Value, size_t N>
std::optional<Value> value_named(const std::pair<Value, std::string_view> (&table)[N], std::string_view name) {
  for (const auto& [value, known] : table)
    if (known == name) return value;
  return std::nullopt;
}

}  // namespace

std::string_view movement_name(Movement movement) { return name_in(kMovementNames, movement); }
std::optional<Movement> movement_named(std::string_view name) { return value_named(kMovementNames, name); }
std::string_view crashed_process_name(CrashedProcess process) { return name_in(kCrashedProcessNames, process); }
std::optional<CrashedProcess> crashed_process_named(std::string_view name) {
  return value_named(kCrashedProcessNames, name);
}

std::string describe(const TimeoutRecord& timeout) {
  std::string text =
      timeout.limit == TimeLimit::WallClock
          ? fmt::format("passed its wall-clock limit of {:g} s", timeout.limit_seconds)
      : timeout.asked_again.empty()
          ? fmt::format("passed its inactivity limit of {:g} s (nothing crossed the layer or the wire for {:.1f} s)",
                        timeout.limit_seconds, timeout.idle_seconds)
          : fmt::format("passed its inactivity limit of {:g} s (it only {}, for {:.1f} s)", timeout.limit_seconds,
                        timeout.asked_again, timeout.idle_seconds);
  text += fmt::format(" and was killed after {:.1f} s", timeout.after_seconds);
  if (!timeout.last_step.empty()) text += "; its last step: " + timeout.last_step;
  text += "; the last Vulkan call: " + (timeout.last_vulkan_call.empty() ? "none seen" : timeout.last_vulkan_call);
  if (!timeout.last_wire_command.empty()) text += "; the last wire command: " + timeout.last_wire_command;
  return text;
}

std::optional<Verdict> verdict_named(std::string_view name) {
  for (const auto& names : kVerdictNames)
    if (names.name == name) return names.verdict;
  return std::nullopt;
}

std::optional<int64_t> gauge_value(const RunRecord& record, std::string_view name) {
  for (const GaugeValues* family : {&record.gauges, record.kernel_gauges ? &*record.kernel_gauges : nullptr,
                                    record.observed_gauges ? &*record.observed_gauges : nullptr,
                                    record.wire_gauges ? &*record.wire_gauges : nullptr})
    if (family)
      if (auto found = family->find(std::string(name)); found != family->end()) return found->second;
  return std::nullopt;
}

template <>
struct JsonWord<Verdict> {
  static std::string word(Verdict verdict) { return std::string(verdict_name(verdict)); }
  static std::optional<Verdict> from_word(std::string_view word) { return verdict_named(word); }
  static constexpr std::string_view expected = "a verdict's name";
};
template <>
struct JsonWord<Movement> {
  static std::string word(Movement movement) { return std::string(movement_name(movement)); }
  static std::optional<Movement> from_word(std::string_view word) { return movement_named(word); }
  static constexpr std::string_view expected = "one of same, improved, changed, worse, new";
};
template <>
struct JsonWord<CrashedProcess> {
  static std::string word(CrashedProcess process) { return std::string(crashed_process_name(process)); }
  static std::optional<CrashedProcess> from_word(std::string_view word) { return crashed_process_named(word); }
  static constexpr std::string_view expected = "one of subject, renderer-server, lane-server";
};
template <>
struct JsonWord<Column> {
  static std::string word(const Column& column) { return column.text(); }
  static std::optional<Column> from_word(std::string_view word) { return Column::parse(word); }
  static constexpr std::string_view expected = "a backend";
};
template <>
struct JsonDescription<LaneTraffic> {
  static constexpr auto fields() {
    using T = LaneTraffic;
    return std::tuple{always("name", &T::name),
                      always("frames_sent", &T::frames_sent),
                      always("frames_received", &T::frames_received),
                      always("client_pid", &T::client_pid),
                      always("server_pid", &T::server_pid),
                      always("server_knobs", &T::server_knobs)};
  }
};
template <>
struct JsonDescription<Attempt> {
  static constexpr auto fields() {
    return std::tuple{always("verdict", &Attempt::verdict), always("digest", &Attempt::digest)};
  }
};
template <>
struct JsonDescription<CheckRecord> {
  static constexpr auto fields() {
    using T = CheckRecord;
    return std::tuple{always("id", &T::id),
                      always("kind", &T::kind),
                      always("check", &T::check),
                      always("passed", &T::passed),
                      always("detail", &T::detail),
                      always("where", &T::where),
                      when_set("artifacts", &T::artifacts)};
  }
};
template <>
struct JsonDescription<GaugeMove> {
  static constexpr auto fields() {
    using T = GaugeMove;
    return std::tuple{always("gauge", &T::gauge), always("baseline", &T::baseline), always("now", &T::now),
                      always("movement", &T::movement)};
  }
};
template <>
struct JsonDescription<BaselineJudgement> {
  static constexpr auto fields() {
    return std::tuple{always("movement", &BaselineJudgement::movement), always("moves", &BaselineJudgement::moves)};
  }
};
template <>
struct JsonDescription<CrashRecord> {
  static constexpr auto fields() {
    using T = CrashRecord;
    return std::tuple{always("process", &T::process),       always("pid", &T::pid),
                      when_set("signal", &T::signal),       always("ended", &T::ended),
                      when_set("last_step", &T::last_step), when_set("last_wire_command", &T::last_wire_command)};
  }
};
template <>
struct JsonDescription<DeviceLostRecord> {
  static constexpr auto fields() {
    using T = DeviceLostRecord;
    return std::tuple{always("call", &T::call), always("submit_or_wait", &T::submit_or_wait),
                      always("answers", &T::answers), when_set("last_step", &T::last_step)};
  }
};
// The record but its verdict, which is read last and says every name it could be.
template <>
struct JsonDescription<RunRecord> {
  static constexpr auto fields() {
    using T = RunRecord;
    return std::tuple{always("test", &T::test),
                      always("subject", &T::subject),
                      always("file", &T::file),
                      when_set("scenario_hash", &T::scenario_hash),
                      when_set("dir", &T::dir),
                      when_set("series", &T::series),
                      when_set("mutant", &T::mutant),
                      always("backend", &T::column),
                      when_set("driver", &T::driver),
                      when_set("why", &T::why),
                      always("seconds", &T::seconds),
                      always("gauges_used", &T::gauges_used),
                      always("gauges", &T::gauges),
                      when_set("kernel_gauges", &T::kernel_gauges),
                      when_set("observed_gauges", &T::observed_gauges),
                      when_set("wire_gauges", &T::wire_gauges),
                      always("gauge_line", &T::gauge_line),
                      always("lane", &T::lane),
                      always("knobs", &T::knobs),
                      always("pixel_hash", &T::pixel_hash),
                      always("trace_hash", &T::trace_hash),
                      always("digest", &T::digest),
                      when_set("repeat_digests", &T::repeat_digests),
                      when_set("committed_digest", &T::committed_digest),
                      when_set("attempts", &T::attempts),
                      always("validation_messages", &T::validation_messages),
                      always("checks", &T::checks),
                      when_set("baseline", &T::baseline),
                      when_set("crash", &T::crash),
                      when_set("device_lost", &T::device_lost),
                      when_set("timeout", &T::timeout)};
  }
};

nlohmann::json to_json(const RunRecord& record) {
  nlohmann::json json = described_json(record);
  json["verdict"] = verdict_name(record.verdict);
  return json;
}

Result<RunRecord> run_record_from_json(const nlohmann::json& json, const std::string& where, const std::string& path) {
  JsonFields fields(json, where, path);
  RunRecord record;
  read_described(fields, record);
  const std::string verdict = fields.take<std::string>("verdict");
  TIDEMARK_CHECK(fields.finish());
  auto named = verdict_named(verdict);
  if (!named) {
    std::vector<std::string_view> known;
    for (const auto& names : kVerdictNames) known.push_back(names.name);
    return fail(ErrorKind::BadInput, fmt::format("{}: {}{}verdict: expected one of {}, found '{}'", where, path,
                                                 path.empty() ? "" : ".", fmt::join(known, ", "), verdict));
  }
  record.verdict = *named;
  return record;
}

Status write_run_record(const std::filesystem::path& file, const RunRecord& record) {
  return write_document(file, to_json(record), kRunDocument);
}

Result<RunRecord> read_run_record(const std::filesystem::path& file) {
  TIDEMARK_TRY(json, read_document(file, kRunDocument));
  return run_record_from_json(json, file.string(), "");
}

}  // namespace tidemark::report
