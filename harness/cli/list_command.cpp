// list, and the CTest registrations it writes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>

#include "cli/commands.h"
#include "core/mutants.h"
#include "runner/runner.h"
#include "scenario/scenario.h"
#include "session/builtin_backends.h"
#include "lanes/lanes.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

// CMake script text that registers each scenario once per lane (read by ctest at start).
// One test per lane and per backend the scenario lists (its own first, the others @backend),
// each judged against the known failures when a file of them is given. Each is its own whole
// shard (`--shard 1/1`): a CI engine's shard variables split the CTest run, never one test.
std::string ctest_registrations(const std::vector<scenario::Scenario>& scenarios, const std::string& tidemark,
                                const std::string& report_root, const std::string& ledger,
                                const std::string& expectations) {
  const std::string judged = expectations.empty() ? "" : fmt::format(" --expectations [=[{}]=]", expectations);
  std::string out;
  for (const auto& scenario : scenarios) {
    if (!mutant_catalogue().empty()) {  // a release build has no mutants to go red with
      std::string name = fmt::format("RedOnce.{}.{}", runner::camel_case(scenario.group), scenario.name);
      // A soak's controls are proven in the monolith lane here (its runs take seconds each);
      // the nightly red-once proves them in every lane.
      const std::string lanes = runner::is_soak(scenario) ? " --lane monolith" : "";
      out += fmt::format("add_test([=[{}]=] [=[{}]=] red-once --shard 1/1{} --ledger [=[{}]=] --report [=[{}/{}]=] [=[{}]=])\n",
                         name, tidemark, lanes, ledger, report_root, name, fs::absolute(scenario.file).string());
      out += fmt::format("set_tests_properties([=[{}]=] PROPERTIES LABELS [=[red-once{}]=])\n", name,
                         runner::is_soak(scenario) ? ";soak" : "");
    }
    std::vector<std::string> backends = scenario.backends;
    if (backends.empty()) backends.push_back(runner::default_backend(scenario));
    for (const auto& backend : backends)
      for (Lane lane : kAllLanes) {
        std::string name = runner::test_name(scenario, lane, backend);
        std::string labels = "backend-" + backend;
        for (const auto& label : runner::test_labels(scenario, lane)) labels.append(";").append(label);
        const api::BackendEntry* entry = session::builtin_backends().find(backend);
        const bool real_driver = entry && !entry->reports_itself;
        // The sanitizers build leaves a real driver's wire lanes to the default build: the
        // driver is not ours to instrument, and its monolith run still crosses our code.
        if (real_driver && lane != Lane::Monolith) labels.append(";real-driver-wire-lane");
        out += fmt::format("add_test([=[{}]=] [=[{}]=] run --shard 1/1 --lane {} --backend {}{} --report [=[{}/{}]=] [=[{}]=])\n",
                           name, tidemark, lane_name(lane), backend, judged, report_root, name,
                           fs::absolute(scenario.file).string());
        out += fmt::format("set_tests_properties([=[{}]=] PROPERTIES LABELS [=[{}]=])\n", name, labels);
        // Mesa's GL drivers leak a few hundred bytes at eglTerminate and unload, so LeakSanitizer
        // cannot even name them: not ours to mend. Memory errors are still caught.
        if (real_driver)
          out += fmt::format("set_tests_properties([=[{}]=] PROPERTIES ENVIRONMENT_MODIFICATION "
                             "[=[ASAN_OPTIONS=string_append::detect_leaks=0]=])\n",
                             name);
      }
  }
  return out;
}

}  // namespace

int list_command(const ListArgs& args) {
  const auto& inputs = args.inputs;
  const std::string& ctest_file = args.ctest_file;
  auto scenarios = load_shard(inputs, args.shard, args.shard_durations);
  if (!scenarios) return report_error(scenarios.error());
  if (auto clean = runner::check_label_hygiene(*scenarios); !clean) return report_error(clean.error());
  if (ctest_file.empty()) {
    for (const auto& scenario : *scenarios)
      for (Lane lane : kAllLanes)
        fmt::print("{}  {}\n", runner::test_name(scenario, lane), scenario.file.string());
    return kGreen;
  }
  std::ofstream out(ctest_file);
  out << ctest_registrations(*scenarios, args.tidemark, args.report_root, args.ledger, args.expectations);
  if (!out) return report_error({ErrorKind::Io, fmt::format("cannot write {}", ctest_file)});
  return kGreen;
}

}  // namespace tidemark::cli
