// Runs a scenario's workload in a lane, then its checks, and reports the result as JSON
// and PNGs.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/device.h"
#include "api/model.h"
#include "api/registry.h"
#include "check/check.h"
#include "core/error.h"
#include "report/run_record.h"
#include "scenario/scenario.h"
#include "runner/expectations.h"
#include "lanes/lanes.h"

namespace tidemark::runner {

struct RunOptions {
  std::map<std::string, int64_t> knob_overrides;  // --knob, applied over the scenario's
  std::filesystem::path report_dir;               // empty: write nothing
  bool validation = false;                        // Vulkan validation; any message is red
  int repeat = 1;                                 // > 1: every run must give the same digest
  std::string backend;                            // the command line's choice; empty: the scenario's
  std::string mutant;                             // red-once: the fault to switch on; empty: none
  lanes::LaneOptions lane;                        // how the session is reached
  // Called after every `probe_every`-th backend call with the calls so far and the lane (its
  // server's pid): a soak samples memory there. Nothing it sees enters a result or a digest.
  uint64_t probe_every = 0;
  std::function<void(uint64_t calls, const lanes::LaneReport& lane)> probe;
  // Known failures (expectations.txt): a run they name is judged against them.
  const std::vector<Expectation>* expectations = nullptr;
};

struct RunResult {
  std::string test_name;  // Magma.<Lane>.<Group>.<name>
  std::string subject;    // <group>/<name>, @<backend> for a backend other than the scenario's own
  std::filesystem::path file;
  std::string mutant;                    // the fault compiled in for this run (red-once), or empty
  std::vector<std::string> gauges_used;  // the gauges and knobs its checks read, in order
  report::Verdict verdict = report::Verdict::Red;
  std::string why;  // expected red: the line's reason; unexpected pass: the stale line; could not run: the error
  std::string backend;
  // What a real driver said it is ("mesa-25.0.7: OpenGL ES 3.2 Mesa 25.0.7 on zink ..."), or only
  // the driver build's name when the backend ran in a server; empty: neither.
  std::string driver;
  std::optional<Error> error;  // the run could not complete (the step is named): CouldNotRun
  std::vector<check::Outcome> outcomes;
  Gauges gauges;
  std::optional<KernelGauges> kernel_gauges;      // when the scenario uses the kernel model
  std::optional<ObservedGauges> observed_gauges;  // when it runs with the layer beneath
  std::map<std::string, int64_t> knobs;           // effective values
  std::string pixel_hash;
  std::string trace_hash;  // of trace.pftrace, the run's Perfetto trace
  std::string digest;      // gauges + pixel hash + trace hash
  std::vector<std::string> repeat_digests;
  std::vector<std::string> validation_messages;
  lanes::LaneReport lane;
  double seconds = 0;
  std::filesystem::path report_dir;  // where this scenario's files went

  // Nothing in the run fails the set: green, or red as expectations.txt says.
  bool passed() const { return report::passes(verdict); }
};

// Magma.<Lane>.<Group>.<name>, with @<backend> for a backend other than the scenario's own.
std::string test_name(const scenario::Scenario& scenario, Lane lane, std::string_view backend = {});
// The backend a scenario runs on unless told: its first `backends:` entry, else vulkan.
std::string default_backend(const scenario::Scenario& scenario);
// What names a run on `backend` after its scenario: "" on the scenario's own backend, else
// "@backend" (test names, subjects, report folders and recording files all end with it).
std::string backend_suffix(const scenario::Scenario& scenario, std::string_view backend);
// The subject of a run: "group/name", or "group/name@backend" on another backend than its own.
std::string subject_name(const scenario::Scenario& scenario, std::string_view backend);
std::string camel_case(std::string_view kebab);  // "wire-buffers" -> "WireBuffers"
// What a `run` ran apart from its shard (a summary's series; the shards of one run share it):
// "run lane=spawn backend=gl mutant=M knob=a=1 knob=b=2 repeat=20 validation", the lane as the
// command line named it, the knobs as given (sorted), the rest from `options`.
std::string run_series(std::string_view lane, std::vector<std::string> knobs, const RunOptions& options);
// A review must-fix kept as a fixture: a scenario under fixtures/<review-id>/.
bool is_fixture(const scenario::Scenario& scenario);
// A long scenario under scenarios/soak/: label soak, skipped where only memory errors are sought.
bool is_soak(const scenario::Scenario& scenario);
// CTest labels: integration-magma-<lane>, integration-magma-<group>, and fixture.
std::vector<std::string> test_labels(const scenario::Scenario& scenario, Lane lane);
// `ctest -L` takes a regex: fails when any label, used as a selector, would also match a
// label of a test that does not carry it (e.g. a group named "tcp-extras" under -L ...-tcp).
Status check_label_hygiene(const std::vector<scenario::Scenario>& scenarios);

// Bad input naming the first gauge a check reads that `backend` does not give.
Status check_backend_judges(const scenario::Scenario& scenario, const api::BackendEntry& backend);

// Effective knobs: defaults, then the scenario's, then the overrides. Errors name the knob.
Result<std::map<std::string, int64_t>> effective_knobs(const scenario::Scenario& scenario,
                                                       const std::map<std::string, int64_t>& overrides);

// Errors are for bad input or a missing environment only; a red check, a fatal error in
// the code under test and a wrong wait status are all results (green = false). With a
// report_dir, writes <report_dir>/<group>/<name>/result.json, actual.png and the PNGs of
// failed pixel checks.
Result<RunResult> run(const scenario::Scenario& scenario, const RunOptions& options);

// The result of a run `backend` could not judge (`why`: it lacks what a check reads, a golden
// does not decode, ...): NotJudged, or an expected red when an expectations line says
// `not-judged` for it. Nothing ran, so it has no gauges, digest or report folder.
Result<RunResult> not_judged(const scenario::Scenario& scenario, const RunOptions& options, const std::string& backend,
                             const Error& why);

// A result as result.json and the summaries hold it (report/run_record.h); paths absolute.
report::RunRecord run_record(const RunResult& result);
std::vector<report::RunRecord> run_records(const std::vector<RunResult>& results);

}  // namespace tidemark::runner
