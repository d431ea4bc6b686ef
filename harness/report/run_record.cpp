#include "report/run_record.h"

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/gauges.h"
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

nlohmann::json to_json(const TimeoutRecord& timeout) {
  nlohmann::json out{{"limit", time_limit_name(timeout.limit)},
                     {"limit_seconds", timeout.limit_seconds},
                     {"after_seconds", timeout.after_seconds},
                     {"idle_seconds", timeout.idle_seconds}};
  if (!timeout.last_step.empty()) out["last_step"] = timeout.last_step;
  if (!timeout.last_vulkan_call.empty()) out["last_vulkan_call"] = timeout.last_vulkan_call;
  if (!timeout.last_wire_command.empty()) out["last_wire_command"] = timeout.last_wire_command;
  if (!timeout.asked_again.empty()) out["asked_again"] = timeout.asked_again;
  return out;
}

void read_timeout_record(JsonFields& in, TimeoutRecord& timeout) {
  const std::string limit = in.take<std::string>("limit");
  auto known = time_limit_named(limit);
  if (!known) in.refuse("limit", "one of wall-clock, inactivity", limit);
  timeout.limit = known.value_or(TimeLimit::WallClock);
  timeout.limit_seconds = in.take<double>("limit_seconds");
  timeout.after_seconds = in.take<double>("after_seconds");
  timeout.idle_seconds = in.take<double>("idle_seconds");
  timeout.last_step = in.take_optional<std::string>("last_step").value_or("");
  timeout.last_vulkan_call = in.take_optional<std::string>("last_vulkan_call").value_or("");
  timeout.last_wire_command = in.take_optional<std::string>("last_wire_command").value_or("");
  timeout.asked_again = in.take_optional<std::string>("asked_again").value_or("");
}

nlohmann::json to_json(const RunRecord& record) {
  nlohmann::json json;
  json["test"] = record.test;
  json["subject"] = record.subject;
  json["file"] = record.file;
  if (!record.scenario_hash.empty()) json["scenario_hash"] = record.scenario_hash;
  if (!record.dir.empty()) json["dir"] = record.dir;
  if (!record.series.empty()) json["series"] = record.series;
  if (!record.mutant.empty()) json["mutant"] = record.mutant;
  json["backend"] = record.column.text();
  if (!record.driver.empty()) json["driver"] = record.driver;
  json["verdict"] = verdict_name(record.verdict);
  if (!record.why.empty()) json["why"] = record.why;
  json["seconds"] = record.seconds;
  json["gauges_used"] = record.gauges_used;
  json["gauges"] = record.gauges;
  if (record.kernel_gauges) json["kernel_gauges"] = *record.kernel_gauges;
  if (record.observed_gauges) json["observed_gauges"] = *record.observed_gauges;
  if (record.wire_gauges) json["wire_gauges"] = *record.wire_gauges;
  json["gauge_line"] = record.gauge_line;
  json["lane"] = {{"name", record.lane.name},
                  {"frames_sent", record.lane.frames_sent},
                  {"frames_received", record.lane.frames_received},
                  {"client_pid", record.lane.client_pid},
                  {"server_pid", record.lane.server_pid},
                  {"server_knobs", record.lane.server_knobs}};
  json["knobs"] = record.knobs;
  json["pixel_hash"] = record.pixel_hash;
  json["trace_hash"] = record.trace_hash;
  json["digest"] = record.digest;
  if (!record.repeat_digests.empty()) json["repeat_digests"] = record.repeat_digests;
  if (record.committed_digest) json["committed_digest"] = *record.committed_digest;
  for (const auto& attempt : record.attempts)
    json["attempts"].push_back({{"verdict", verdict_name(attempt.verdict)}, {"digest", attempt.digest}});
  json["validation_messages"] = record.validation_messages;
  json["checks"] = nlohmann::json::array();
  for (const auto& check : record.checks) {
    nlohmann::json out{{"id", check.id},         {"kind", check.kind},     {"check", check.check},
                       {"passed", check.passed}, {"detail", check.detail}, {"where", check.where}};
    if (!check.artifacts.empty()) out["artifacts"] = check.artifacts;
    json["checks"].push_back(std::move(out));
  }
  if (record.baseline) {
    nlohmann::json moves = nlohmann::json::array();
    for (const auto& move : record.baseline->moves)
      moves.push_back({{"gauge", move.gauge},
                       {"baseline", move.baseline},
                       {"now", move.now},
                       {"movement", movement_name(move.movement)}});
    json["baseline"] = {{"movement", movement_name(record.baseline->movement)}, {"moves", std::move(moves)}};
  }
  if (record.crash) {
    const CrashRecord& crash = *record.crash;
    nlohmann::json out{{"process", crashed_process_name(crash.process)}, {"pid", crash.pid}, {"ended", crash.ended}};
    if (crash.signal) out["signal"] = *crash.signal;
    if (!crash.last_step.empty()) out["last_step"] = crash.last_step;
    if (!crash.last_wire_command.empty()) out["last_wire_command"] = crash.last_wire_command;
    json["crash"] = std::move(out);
  }
  if (record.device_lost) {
    const DeviceLostRecord& lost = *record.device_lost;
    nlohmann::json out{{"call", lost.call}, {"submit_or_wait", lost.submit_or_wait}, {"answers", lost.answers}};
    if (!lost.last_step.empty()) out["last_step"] = lost.last_step;
    json["device_lost"] = std::move(out);
  }
  if (record.timeout) json["timeout"] = to_json(*record.timeout);
  return json;
}

namespace {

void read_record(JsonFields& fields, RunRecord& record) {
  record.test = fields.take<std::string>("test");
  record.subject = fields.take<std::string>("subject");
  record.file = fields.take<std::string>("file");
  record.scenario_hash = fields.take_optional<std::string>("scenario_hash").value_or("");
  record.dir = fields.take_optional<std::string>("dir").value_or("");
  record.series = fields.take_optional<std::string>("series").value_or("");
  record.mutant = fields.take_optional<std::string>("mutant").value_or("");
  record.column = Column::parse(fields.take<std::string>("backend"));
  record.driver = fields.take_optional<std::string>("driver").value_or("");
  record.why = fields.take_optional<std::string>("why").value_or("");
  record.seconds = fields.take<double>("seconds");
  record.gauges_used = fields.take<std::vector<std::string>>("gauges_used");
  record.gauges = fields.take<GaugeValues>("gauges");
  record.kernel_gauges = fields.take_optional<GaugeValues>("kernel_gauges");
  record.observed_gauges = fields.take_optional<GaugeValues>("observed_gauges");
  record.wire_gauges = fields.take_optional<GaugeValues>("wire_gauges");
  record.gauge_line = fields.take<std::string>("gauge_line");
  fields.object("lane", [&](JsonFields& lane) {
    record.lane.name = lane.take<std::string>("name");
    record.lane.frames_sent = lane.take<uint64_t>("frames_sent");
    record.lane.frames_received = lane.take<uint64_t>("frames_received");
    record.lane.client_pid = lane.take<int64_t>("client_pid");
    record.lane.server_pid = lane.take<int64_t>("server_pid");
    record.lane.server_knobs = lane.take<std::map<std::string, int64_t>>("server_knobs");
  });
  record.knobs = fields.take<std::map<std::string, int64_t>>("knobs");
  record.pixel_hash = fields.take<std::string>("pixel_hash");
  record.trace_hash = fields.take<std::string>("trace_hash");
  record.digest = fields.take<std::string>("digest");
  record.repeat_digests =
      fields.take_optional<std::vector<std::string>>("repeat_digests").value_or(std::vector<std::string>{});
  record.committed_digest = fields.take_optional<std::string>("committed_digest");
  record.validation_messages = fields.take<std::vector<std::string>>("validation_messages");
  fields.objects(
      "attempts",
      [&](JsonFields& in) {
        Attempt& attempt = record.attempts.emplace_back();
        const std::string name = in.take<std::string>("verdict");
        auto known = verdict_named(name);
        if (!known) in.refuse("verdict", "a verdict's name", name);
        attempt.verdict = known.value_or(Verdict::Red);
        attempt.digest = in.take<std::string>("digest");
      },
      /*required=*/false);
  fields.objects("checks", [&](JsonFields& check) {
    CheckRecord& out = record.checks.emplace_back();
    out.id = check.take<std::string>("id");
    out.kind = check.take<std::string>("kind");
    out.check = check.take<std::string>("check");
    out.passed = check.take<bool>("passed");
    out.detail = check.take<std::string>("detail");
    out.where = check.take<std::string>("where");
    out.artifacts = check.take_optional<std::vector<std::string>>("artifacts").value_or(std::vector<std::string>{});
  });
  // A movement name that is not one reads as an error naming the field, never as "same".
  auto movement = [](JsonFields& fields, std::string_view key) {
    const std::string name = fields.take<std::string>(key);
    auto known = movement_named(name);
    if (!known) fields.refuse(key, "one of same, improved, changed, worse, new", name);
    return known.value_or(Movement::Same);
  };
  fields.object(
      "baseline",
      [&](JsonFields& in) {
        BaselineJudgement& judged = record.baseline.emplace();
        judged.movement = movement(in, "movement");
        in.objects("moves", [&](JsonFields& each) {
          GaugeMove& move = judged.moves.emplace_back();
          move.gauge = each.take<std::string>("gauge");
          move.baseline = each.take<int64_t>("baseline");
          move.now = each.take<int64_t>("now");
          move.movement = movement(each, "movement");
        });
      },
      /*required=*/false);
  fields.object(
      "crash",
      [&](JsonFields& in) {
        CrashRecord& crash = record.crash.emplace();
        const std::string process = in.take<std::string>("process");
        auto known = crashed_process_named(process);
        if (!known) in.refuse("process", "one of subject, renderer-server, lane-server", process);
        crash.process = known.value_or(CrashedProcess::Subject);
        crash.pid = in.take<int64_t>("pid");
        if (auto signal = in.take_optional<int64_t>("signal")) crash.signal = static_cast<int>(*signal);
        crash.ended = in.take<std::string>("ended");
        crash.last_step = in.take_optional<std::string>("last_step").value_or("");
        crash.last_wire_command = in.take_optional<std::string>("last_wire_command").value_or("");
      },
      /*required=*/false);
  fields.object(
      "device_lost",
      [&](JsonFields& in) {
        DeviceLostRecord& lost = record.device_lost.emplace();
        lost.call = in.take<std::string>("call");
        lost.submit_or_wait = in.take<int64_t>("submit_or_wait");
        lost.answers = in.take<int64_t>("answers");
        lost.last_step = in.take_optional<std::string>("last_step").value_or("");
      },
      /*required=*/false);
  fields.object(
      "timeout", [&](JsonFields& in) { read_timeout_record(in, record.timeout.emplace()); },
      /*required=*/false);
}

}  // namespace

Result<RunRecord> run_record_from_json(const nlohmann::json& json, const std::string& where, const std::string& path) {
  JsonFields fields(json, where, path);
  RunRecord record;
  read_record(fields, record);
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
