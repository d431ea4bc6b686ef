// The run record: what one run of one scenario leaves behind, as its result.json holds it and
// as a summary lists it. One type and one codec; every reader goes through it (baselines,
// merge, compare, the summary's views), and reading is strict (report/json_fields.h).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/lane.h"
#include "core/time_bounds.h"

namespace tidemark::report {

// What a run comes to; README's verdict table says what each means and whether it fails the set.
// A failing verdict an expectations line names is an expected red; Skipped and NotRun are neither a
// pass nor a failure; Flaky fails with an exit code of its own.
enum class Verdict {
  Green,
  Red,
  ExpectedRed,
  UnexpectedPass,
  CouldNotRun,
  NotJudged,
  Crash,
  DeviceLost,
  Timeout,
  Skipped,
  NotRun,
  Flaky,
  Nondeterministic
};
inline constexpr Verdict kAllVerdicts[] = {
    Verdict::Green,     Verdict::Red,   Verdict::ExpectedRed,     Verdict::UnexpectedPass, Verdict::CouldNotRun,
    Verdict::NotJudged, Verdict::Crash, Verdict::DeviceLost,      Verdict::Timeout,        Verdict::Skipped,
    Verdict::NotRun,    Verdict::Flaky, Verdict::Nondeterministic};

// "green", "red", "expected-red", "unexpected-pass", "could-not-run", "not-judged", "crash",
// "device-lost", "timeout", "skipped", "not-run", "flaky", "nondeterministic": in documents and
// HTML classes.
std::string_view verdict_name(Verdict verdict);
// "GREEN", "RED", "EXPECTED RED", "UNEXPECTED PASS", "COULD NOT RUN", "NOT JUDGED", "CRASH",
// "DEVICE LOST", "TIMEOUT", "SKIPPED", "NOT RUN", "FLAKY", "NONDETERMINISTIC": for a person.
std::string_view verdict_label(Verdict verdict);
std::optional<Verdict> verdict_named(std::string_view name);
// Nothing in the run fails the set: green, or an expected red.
bool passes(Verdict verdict);
// Nothing of the subject ran, so it neither passes nor fails: skipped (run's --skip, --include, or
// an expectations line saying `skip`), or not run (run's --max-fails was reached first).
bool not_ran(Verdict verdict);
// The run went to its end, so its digest is the subject's: not one that passed a time limit,
// crashed, could not run, was not judged or did not run, which has no digest to agree on.
bool finished(Verdict verdict);
// What --retry runs again: a run that failed by what it did (red, could-not-run, crash,
// device-lost, timeout: a driver that hangs or loses its device now and then is a flake as much as
// one that crashes), not one that did nothing (not judged, skipped, not run), whose judgement is
// not the run's (a stale expectations line) or that is already the judgement of several runs
// (nondeterministic).
bool retries(Verdict verdict);
// Red, could-not-run and not-judged first, then stale expectations, then expected reds, then green.
int failure_rank(Verdict verdict);

// A verdict and why, in words (empty for green).
struct ReasonedVerdict {
  Verdict verdict = Verdict::Green;
  std::string why;
};

struct CheckRecord {
  std::string id;     // "gauge[2]"
  std::string kind;   // "gauge"
  std::string check;  // the check as written
  bool passed = false;
  std::string detail;                  // measured value against the bound
  std::string where;                   // FILE:LINE:COLUMN of the check, or empty
  std::vector<std::string> artifacts;  // images a failed pixel check left
  bool operator==(const CheckRecord&) const = default;
};

using GaugeValues = std::map<std::string, int64_t>;
// Gauges by name as records hold them, from core/gauges.h's named() of any family.
GaugeValues gauge_values(const std::vector<std::pair<std::string, int64_t>>& named);

// How a run, or one of its gauges, compares with a baseline (report/baseline.h).
enum class Movement { Same, Improved, Changed, Worse, New };
std::string_view movement_name(Movement movement);  // "same", "improved", "changed", "worse", "new"
std::optional<Movement> movement_named(std::string_view name);

struct GaugeMove {
  std::string gauge;
  int64_t baseline = 0;
  int64_t now = 0;
  // Worse: beyond its tolerance (worse within it stays Same and is not listed); Changed: a gauge
  // with no worse direction moved.
  Movement movement = Movement::Same;
  bool operator==(const GaugeMove&) const = default;
};

// A run against its baseline record: the worst of its moves (Worse, then Improved, then Changed),
// New when the baseline has no record of it.
struct BaselineJudgement {
  Movement movement = Movement::Same;
  std::vector<GaugeMove> moves;
  bool operator==(const BaselineJudgement&) const = default;
};

// Which process of a run died: Tidemark's child running the subject (runner/pipeline/isolation.h), the
// renderer server of a driver build with a server, or the spawn or tcp lane's tidemark-server
// (by a signal: one that exits with a status is named in a could-not-run, with its last words).
enum class CrashedProcess { Subject, RendererServer, LaneServer };
std::string_view crashed_process_name(CrashedProcess process);  // "subject", "renderer-server", "lane-server"
std::optional<CrashedProcess> crashed_process_named(std::string_view name);

// How a crashed run ended, beside its verdict's `why` (the same, in words).
struct CrashRecord {
  CrashedProcess process = CrashedProcess::Subject;
  int64_t pid = 0;
  std::optional<int> signal;      // the signal that ended it; none: it exited (`ended` says with what)
  std::string ended;              // "killed by signal 11 (SIGSEGV, Segmentation fault)", "exited with status 70"
  std::string last_step;          // what the subject was doing last: its step, or "" when unknown
  std::string last_wire_command;  // a renderer server's: the last the tap saw
  bool operator==(const CrashRecord&) const = default;
};

// How a device-lost run lost its device, as the layer beneath it saw it.
struct DeviceLostRecord {
  std::string call;            // the first call answered VK_ERROR_DEVICE_LOST: "vkQueueSubmit"
  int64_t submit_or_wait = 0;  // which of its device's submits and waits that call was, from 1
  int64_t answers = 0;         // calls answered so in all; 0: not known (its process died before they were read)
  std::string last_step;       // what the subject was doing then, or "" when unknown
  bool operator==(const DeviceLostRecord&) const = default;
};

// The device the layer saw lost, from its gauges (vklost, vklostcall, vklostat: core/gauges.h);
// none when no call was answered VK_ERROR_DEVICE_LOST.
std::optional<DeviceLostRecord> device_lost_in(const GaugeValues& observed);
// "vkQueueSubmit answered VK_ERROR_DEVICE_LOST at its device's submit or wait 3 (2 calls answered so in all)"
std::string describe(const DeviceLostRecord& lost);

// How a run that passed a limit ended, beside its verdict's `why` (the same, in words).
// Which bound (core/time_bounds.h): its whole time, or a stretch with no call crossing the layer
// or the wire.
struct TimeoutRecord {
  TimeLimit limit = TimeLimit::WallClock;
  double limit_seconds = 0;       // the bound it passed
  double after_seconds = 0;       // how long the run had gone when it was killed
  double idle_seconds = 0;        // how long nothing had crossed the layer or the wire by then
  std::string last_step;          // its last step (file:line:column ...), or "" when unknown
  std::string last_vulkan_call;   // the last call the layer intercepted, or ""
  std::string last_wire_command;  // the last command the tap or the lane's wire saw, or ""
  // Past the inactivity limit with calls still crossing the layer, each a wait or poll answered
  // as the last: what they asked ("polled fence 0x5611..., answered VK_NOT_READY"), or "".
  std::string asked_again;
  bool operator==(const TimeoutRecord&) const = default;
};

// "passed its inactivity limit of 2 s (nothing crossed the layer or the wire for 2.0 s) and was
// killed after 3.1 s; its last step: ...; the last Vulkan call: ...; the last wire command: ...".
std::string describe(const TimeoutRecord& timeout);
// Its codec's description is shared by the documents that hold one (report/described_records.h).

// One try of a run under --retry, as its record keeps it.
struct Attempt {
  Verdict verdict = Verdict::Red;
  std::string digest;
  bool operator==(const Attempt&) const = default;
};

// The column a run ran in: a backend, on a driver build (empty: the process's own environment).
// Records, test names and expectations lines all spell it one way: "gl@mesa-25.0.7".
struct Column {
  std::string backend;
  std::string build;
  std::string text() const { return build.empty() ? backend : backend + "@" + build; }
  static Column parse(std::string_view text);  // "gl@mesa-25.0.7" -> {gl, mesa-25.0.7}; no '@': no build
  bool operator==(const Column&) const = default;
};

struct RunRecord;
// The subject a record is of, without its column: "group/name" of "group/name@gl@mesa-25.0.7".
std::string subject_id(const RunRecord& record);

struct RunRecord {
  std::string test;           // Magma.<Lane>.<Group>.<name>[@backend]
  std::string subject;        // group/name[@backend] (subject_id: the part before the column)
  std::string file;           // the scenario file
  std::string scenario_hash;  // of the scenario file's bytes when it ran (XXH3), or empty
  std::string dir;            // the run's report folder (absolute in result.json, relative in a summary), or empty
  std::string series;         // in a summary: what was run apart from the shard ("run lane=spawn")
  std::string mutant;         // red-once's fault, or empty
  Column column;              // JSON: "backend", its text
  std::string driver;         // the real driver that ran, as it named itself (and its build), or empty
  Verdict verdict = Verdict::Red;
  std::string why;  // expected red: the line's reason; unexpected pass: the stale line; could not run: the error
  double seconds = 0;
  std::vector<std::string> gauges_used;  // the gauges and knobs its checks read, in order
  GaugeValues gauges;
  std::optional<GaugeValues> kernel_gauges;    // when the scenario uses the kernel model
  std::optional<GaugeValues> observed_gauges;  // when it runs with the layer beneath
  std::optional<GaugeValues> wire_gauges;      // when its driver's client/server wire was tapped
  std::string gauge_line;
  LaneTraffic lane;
  std::map<std::string, int64_t> knobs;  // effective values
  std::string pixel_hash;
  std::string trace_hash;
  std::string digest;
  std::vector<std::string> repeat_digests;  // --repeat N > 1: every run's
  std::vector<Attempt> attempts;            // --retry: every try's, in order, when there was more than one
  std::vector<std::string> validation_messages;
  std::vector<CheckRecord> checks;
  std::optional<BaselineJudgement> baseline;  // when the run was held to a baseline
  // run --digests: the digest the committed file holds for its subject ("" when it holds none);
  // a run with a digest and another committed one fails the set however its checks went.
  std::optional<std::string> committed_digest;
  std::optional<CrashRecord> crash;             // when a process of the run died (verdict crash, or an expected one)
  std::optional<DeviceLostRecord> device_lost;  // when the layer saw the device lost (verdict device-lost, or expected)
  std::optional<TimeoutRecord> timeout;         // when the run passed a limit (verdict timeout, or an expected one)
  bool operator==(const RunRecord&) const = default;
};

// Nothing in the record fails the set: its verdict passes, it is not worse than its baseline and
// its digest is the committed one (when held to one).
bool record_passes(const RunRecord& record);
// Held to a committed digest (run --digests) and gave another: "" when not.
std::string digest_change(const RunRecord& record);

// The value of gauge `name` in any of the record's families.
std::optional<int64_t> gauge_value(const RunRecord& record, std::string_view name);

nlohmann::json to_json(const RunRecord& record);
// `where` names the record in errors ("out/summary.json: results[3]").
Result<RunRecord> run_record_from_json(const nlohmann::json& json, const std::string& where, const std::string& path);

// result.json: the record, with the document's format and version.
Status write_run_record(const std::filesystem::path& file, const RunRecord& record);
Result<RunRecord> read_run_record(const std::filesystem::path& file);

}  // namespace tidemark::report
