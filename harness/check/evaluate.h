// Every check of a scenario against what one run read back, in report order: the scenario's
// gauge, wait, kernel, trace and pixel checks, then the runner's lane, validation and
// determinism checks. The runner reads back; this decides.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "check/check.h"
#include "check/run_checks.h"
#include "check/trace_checks.h"
#include "core/error.h"
#include "core/gauges.h"
#include "core/image.h"
#include "core/lane.h"
#include "core/mutants.h"
#include "kernel/driver.h"
#include "scenario/scenario.h"

namespace tidemark::check {

// What one run read back once its workload was done (as far as it got).
struct ReadBack {
  Gauges gauges;
  std::optional<KernelGauges> kernel_gauges;             // when the scenario uses the kernel model
  std::optional<ObservedGauges> observed_gauges;         // when it runs with the layer beneath
  std::optional<NamedGauges> wire_gauges;                // when its driver's wire was tapped
  std::optional<std::string> kernel_dump;                // when it checks the GpuMem dump
  std::vector<std::optional<std::string>> kernel_nodes;  // one a node check, in order
  kernel::KernelReport kernel_report;                    // when it has diagnosis or kgsl checks
  std::string trace;                                     // the run's Perfetto trace
  Image image;
  std::vector<std::string> validation_messages;
  WaitTally waits;
};

// How the run was made: what the checks need besides the read-back.
struct RunContext {
  bool completed = true;               // false: the run stopped at an error; only validation and determinism apply
  Values knobs;                        // the effective knobs (gauges shadow them)
  std::filesystem::path artifact_dir;  // where failed pixel checks write PNGs; empty: nowhere
  MutantId mutant = MutantId::None;    // the importer's fault switch (red-once)
  Lane lane = Lane::Monolith;          // a lane other than monolith is checked with `traffic`
  LaneTraffic traffic;
  bool validation = false;           // the validation layer was on
  std::vector<std::string> digests;  // one per repeated run
  CounterTracks counter_tracks;      // the backend's counter tracks, for reconcile
};

// An error is a bad scenario (a gauge check naming an unknown gauge, a golden image that
// cannot be read), never a red check.
Result<std::vector<Outcome>> evaluate(const scenario::Scenario& scenario, const ReadBack& read,
                                      const RunContext& context);

}  // namespace tidemark::check
