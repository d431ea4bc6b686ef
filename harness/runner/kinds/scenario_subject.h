// A scenario as a subject (runner/pipeline/subject.h): its workload in a lane, then its checks; the
// result as JSON, PNGs and a trace.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
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
#include "runner/pipeline/expectations.h"
#include "runner/pipeline/subject.h"
#include "lanes/lanes.h"

namespace tidemark::runner {

// A scenario as a subject: it runs in a lane session on a backend (its own unless the column
// names another), under a mutant and knobs. It shares the scenario it was made from.
class ScenarioSubject final : public Subject {
 public:
  explicit ScenarioSubject(std::shared_ptr<const scenario::Scenario> scenario);
  // A subject of a scenario its caller keeps alive for the subject's life.
  static ScenarioSubject borrowing(const scenario::Scenario& scenario);
  const scenario::Scenario& scenario() const { return *scenario_; }
  Result<std::unique_ptr<SubjectRun>> prepare(const RunOptions& options, report::RunRecord& record) const override;

 private:
  std::shared_ptr<const scenario::Scenario> scenario_;
};

// The backend a scenario runs on unless told: its first `backends:` entry, else vulkan.
std::string default_backend(const scenario::Scenario& scenario);
// What names a run on `backend` after its scenario: "" on the scenario's own backend, else
// "@backend" (test names, subjects, report folders and recording files all end with it).
std::string backend_suffix(const scenario::Scenario& scenario, std::string_view backend);
// The subject of a run: "group/name", or "group/name@backend" on another backend than its own.
std::string subject_name(const scenario::Scenario& scenario, std::string_view backend);
// What a `run` ran apart from its shard (a summary's series; the shards of one run share it):
// "run lane=spawn backend=gl mutant=M knob=a=1 knob=b=2 repeat=20 retry=2 validation", the lane as the
// command line named it, the knobs as given (sorted), the rest from `options`.
std::string run_series(std::string_view lane, std::vector<std::string> knobs, const RunOptions& options);
// A review must-fix kept as a fixture: a scenario under fixtures/<review-id>/.
bool is_fixture(const scenario::Scenario& scenario);
// A long scenario under scenarios/soak/: label soak, skipped where only memory errors are sought.
bool is_soak(const scenario::Scenario& scenario);

// Bad input naming the first gauge a check reads that `backend` does not give.
Status check_backend_judges(const scenario::Scenario& scenario, const api::BackendEntry& backend);

// Effective knobs: defaults, then the scenario's, then the overrides. Errors name the knob.
Result<std::map<std::string, int64_t>> effective_knobs(const scenario::Scenario& scenario,
                                                       const std::map<std::string, int64_t>& overrides);

// The scenario through the pipeline (runner/pipeline/subject.h). Errors are for bad input or a missing
// environment only; a red check, a fatal error in the code under test and a wrong wait status
// are all results. With a report folder, writes <report_dir>/<lane>/<group>/<name>/result.json,
// actual.png, trace.pftrace, backend.log and the PNGs of failed pixel checks.
Result<report::RunRecord> run(const scenario::Scenario& scenario, const RunOptions& options);

}  // namespace tidemark::runner
