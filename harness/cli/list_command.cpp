// list, and the CTest registrations it writes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <set>

#include "cli/commands.h"
#include "core/files.h"
#include "core/mutants.h"
#include "runner/runner.h"
#include "scenario/scenario.h"
#include "session/builtin_backends.h"
#include "lanes/lanes.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

// `text` as one CMake bracket argument, exactly as it is: the bracket's run of `=` is longer than
// any `]=...]` inside the text, so no path or name can close it early (a scenario path holding
// "]=]" and a newline once ran CMake of its own from the registrations). CMake drops a newline
// right after the opening bracket, so text that starts with one is refused.
Result<std::string> bracket(std::string_view text) {
  if (text.starts_with('\n') || text.starts_with('\r'))
    return fail(ErrorKind::BadInput, fmt::format("list --ctest-file: expected a path or name that does not start with a "
                                                 "line break, found {:?}", text));
  // The first closing bracket in the text and the closer together must be the closer itself: the
  // text may also end with what begins one ("/l]==" before "]]").
  std::string equals;
  auto closes_early = [&] {
    const std::string close = "]" + equals + "]";
    return (std::string(text) + close).find(close) != text.size();
  };
  while (closes_early()) equals += '=';
  return fmt::format("[{0}[{1}]{0}]", equals, text);
}

// What the registrations hold besides the scenarios (tidemark_add_scenarios's arguments).
struct Registration {
  std::string tidemark, report_root, ledger, expectations;
  std::vector<Lane> lanes;
  std::vector<std::string> backends, labels;
};

Result<Registration> registration_of(const ListArgs& args) {
  // The registered tests run from ctest's folder: the files they read are named absolutely.
  auto absolute = [](const std::string& path) { return path.empty() ? path : fs::absolute(path).string(); };
  Registration out{.tidemark = args.tidemark, .report_root = args.report_root, .ledger = absolute(args.ledger),
                   .expectations = absolute(args.expectations), .backends = args.backends, .labels = args.labels};
  for (const auto& name : args.lanes) {
    auto lane = parse_lane(name);
    if (!lane) return fail(ErrorKind::BadInput, fmt::format("--lane: expected monolith, split, spawn or tcp, found {:?}", name));
    if (std::ranges::find(out.lanes, *lane) == out.lanes.end()) out.lanes.push_back(*lane);
  }
  if (out.lanes.empty()) out.lanes.assign(std::begin(kAllLanes), std::end(kAllLanes));
  for (const auto& name : args.backends)
    if (auto known = session::builtin_backends().lookup(name); !known)
      return fail(ErrorKind::BadInput, "--backend: " + known.error().message);
  // A label is one element of a CMake list and a `ctest -L` selector: no ';', no regex.
  for (const auto& label : args.labels)
    if (label.empty() || !std::ranges::all_of(label, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) ||
                                                                            c == '-' || c == '_' || c == '.'; }))
      return fail(ErrorKind::BadInput, fmt::format("--label: expected letters, digits, '-', '_' or '.', found {:?}", label));
  return out;
}

// CMake script text that registers each scenario once per lane (read by ctest at start).
// One test per lane and per backend the scenario lists (its own first, the others @backend), or
// per backend given in their place, each judged against the known failures when a file of them
// is given; with a ledger, one red-once test per scenario. Each is its own whole shard
// (`--shard 1/1`): a CI engine's shard variables split the CTest run, never one test. Every text
// that comes from outside (paths, names) is a bracket argument of its own.
Result<std::string> ctest_registrations(const std::vector<scenario::Scenario>& scenarios, const Registration& given) {
  TIDEMARK_TRY(program, bracket(given.tidemark));
  std::string judged;
  if (!given.expectations.empty()) {
    TIDEMARK_TRY(file, bracket(given.expectations));
    judged = " --expectations " + file;
  }
  std::string extra_labels;
  for (const auto& label : given.labels) extra_labels += ";" + label;
  const bool every_lane = given.lanes.size() == std::size(kAllLanes);
  std::string lane_options;
  for (Lane lane : given.lanes) lane_options += fmt::format(" --lane {}", lane_name(lane));
  std::string out;
  for (const auto& scenario : scenarios) {
    TIDEMARK_TRY(scenario_file, bracket(fs::absolute(scenario.file).string()));
    if (!given.ledger.empty() && !mutant_catalogue().empty()) {  // a release build has no mutants to go red with
      TIDEMARK_TRY(ledger_file, bracket(given.ledger));
      TIDEMARK_TRY(name, bracket(fmt::format("RedOnce.{}.{}", runner::camel_case(scenario.group), scenario.name)));
      TIDEMARK_TRY(report, bracket(fmt::format("{}/RedOnce.{}.{}", given.report_root, runner::camel_case(scenario.group),
                                               scenario.name)));
      // A soak's controls are proven in the monolith lane here (its runs take seconds each);
      // the nightly red-once proves them in every lane.
      const std::string lanes = runner::is_soak(scenario) && every_lane ? " --lane monolith"
                                : every_lane                              ? ""
                                                                          : lane_options;
      out += fmt::format("add_test({} {} red-once --shard 1/1{} --ledger {} --report {} {})\n", name, program, lanes,
                         ledger_file, report, scenario_file);
      TIDEMARK_TRY(labels, bracket(fmt::format("red-once{}{}", runner::is_soak(scenario) ? ";soak" : "", extra_labels)));
      out += fmt::format("set_tests_properties({} PROPERTIES LABELS {})\n", name, labels);
    }
    std::vector<std::string> backends = given.backends.empty() ? scenario.backends : given.backends;
    if (backends.empty()) backends.push_back(runner::default_backend(scenario));
    for (const auto& backend : backends)
      for (Lane lane : given.lanes) {
        const std::string test = runner::test_name(scenario, lane, backend);
        TIDEMARK_TRY(name, bracket(test));
        TIDEMARK_TRY(report, bracket(given.report_root + "/" + test));
        TIDEMARK_TRY(backend_name, bracket(backend));
        std::string labels = "backend-" + backend;
        for (const auto& label : runner::test_labels(scenario, lane)) labels.append(";").append(label);
        const api::BackendEntry* entry = session::builtin_backends().find(backend);
        const bool real_driver = entry && !entry->reports_itself;
        // The sanitizers build leaves a real driver's wire lanes to the default build: the
        // driver is not ours to instrument, and its monolith run still crosses our code.
        if (real_driver && lane != Lane::Monolith) labels.append(";real-driver-wire-lane");
        TIDEMARK_TRY(label_list, bracket(labels + extra_labels));
        out += fmt::format("add_test({} {} run --shard 1/1 --lane {} --backend {}{} --report {} {})\n", name, program,
                           lane_name(lane), backend_name, judged, report, scenario_file);
        out += fmt::format("set_tests_properties({} PROPERTIES LABELS {})\n", name, label_list);
        // Mesa's GL drivers leak a few hundred bytes at eglTerminate and unload, so LeakSanitizer
        // cannot even name them: not ours to mend. Memory errors are still caught.
        if (real_driver)
          out += fmt::format("set_tests_properties({} PROPERTIES ENVIRONMENT_MODIFICATION "
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
  // What the registered tests will read is read now: a missing or broken file is one error here,
  // not every registered test failing later.
  auto given = registration_of(args);
  if (!given) return report_error(given.error());
  if (!args.expectations.empty())
    if (auto loaded = runner::load_expectations(args.expectations); !loaded) return report_error(loaded.error());
  if (!args.ledger.empty())
    if (auto ledger = read_file_if_present(args.ledger, "ledger"); !ledger) return report_error(ledger.error());
  auto registrations = ctest_registrations(*scenarios, *given);
  if (!registrations) return report_error(registrations.error());
  if (auto written = write_file_atomically(ctest_file, *registrations); !written) return report_error(written.error());
  return kGreen;
}

}  // namespace tidemark::cli
