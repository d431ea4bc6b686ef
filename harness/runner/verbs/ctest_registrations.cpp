// The CTest registrations `tidemark list --ctest-file` writes for tidemark_add_scenarios().
#include "runner/verbs/ctest_registrations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/files.h"
#include "core/mutants.h"
#include "runner/pipeline/expectations.h"
#include "runner/verbs/parity.h"
#include "runner/kinds/scenario_subject.h"
#include "session/builtin_backends.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

// `text` as one CMake bracket argument, exactly as it is: the bracket's run of `=` is longer than
// any `]=...]` inside the text, so no path or name can close it early (a scenario path holding
// "]=]" and a newline once ran CMake of its own from the registrations). CMake drops a newline
// right after the opening bracket, so text that starts with one is refused.
Result<std::string> bracket(std::string_view text) {
  if (text.starts_with('\n') || text.starts_with('\r'))
    return fail(ErrorKind::BadInput,
                fmt::format("list --ctest-file: expected a path or name that does not start with a "
                            "line break, found {:?}",
                            text));
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

namespace {

// The request checked and its files named absolutely.
struct Registration {
  std::string tidemark, report_root, ledger, expectations, digests;
  std::vector<Lane> lanes;
  std::vector<std::string> backends, labels;
};

Result<Registration> registration_of(const RegistrationRequest& args) {
  // The registered tests run from ctest's folder: the files they read are named absolutely.
  auto absolute = [](const std::string& path) { return path.empty() ? path : fs::absolute(path).string(); };
  Registration out{.tidemark = args.tidemark,
                   .report_root = args.report_root,
                   .ledger = absolute(args.ledger),
                   .expectations = absolute(args.expectations),
                   .digests = absolute(args.digests),
                   .backends = args.backends,
                   .labels = args.labels};
  for (const auto& name : args.lanes) {
    auto lane = parse_lane(name);
    if (!lane)
      return fail(ErrorKind::BadInput, fmt::format("--lane: expected monolith, split, spawn or tcp, found {:?}", name));
    if (std::ranges::find(out.lanes, *lane) == out.lanes.end()) out.lanes.push_back(*lane);
  }
  if (out.lanes.empty()) out.lanes.assign(std::begin(kAllLanes), std::end(kAllLanes));
  for (const auto& name : args.backends)
    if (auto known = session::builtin_backends().lookup(name); !known)
      return fail(ErrorKind::BadInput, "--backend: " + known.error().message);
  // A label is one element of a CMake list and a `ctest -L` selector: no ';', no regex.
  for (const auto& label : args.labels)
    if (label.empty() || !std::ranges::all_of(label, [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
        }))
      return fail(ErrorKind::BadInput,
                  fmt::format("--label: expected letters, digits, '-', '_' or '.', found {:?}", label));
  return out;
}

// " --expectations FILE" when the runs are judged against known failures, " --digests FILE" when
// each is held to its committed digest.
Result<std::string> judgement_options(const Registration& given) {
  std::string options;
  for (const auto& [option, file] : {std::pair{"expectations", given.expectations}, {"digests", given.digests}}) {
    if (file.empty()) continue;
    TIDEMARK_TRY(bracketed, bracket(file));
    options += fmt::format(" --{} {}", option, bracketed);
  }
  return options;
}

// ";A;B": the labels given for every test, to append to a test's own.
std::string more_labels(const Registration& given) {
  std::string out;
  for (const auto& label : given.labels) out += ";" + label;
  return out;
}

// CMake script text that registers each subject (read by ctest at start). A subject in lanes is
// one test per lane and per backend it lists (its own first, the others @backend), or per backend
// given in their place; a subject in no lane (a capture's replay) is one test. Each is judged
// against the known failures when a file of them is given; with a ledger, each subject has one
// red-once test, unless its controls need mutants this build lacks (a release build). A run in
// lanes is its own whole shard (`--shard 1/1`): a CI engine's shard variables split the CTest
// run, never one test. Every text that comes from outside (paths, names) is a bracket argument.
Result<std::string> registrations_of(const Subjects& subjects, const Registration& given) {
  TIDEMARK_TRY(program, bracket(given.tidemark));
  TIDEMARK_TRY(judged, judgement_options(given));
  const std::string extra_labels = more_labels(given);
  const bool every_lane = given.lanes.size() == std::size(kAllLanes);
  std::string lane_options;
  for (Lane lane : given.lanes) lane_options += fmt::format(" --lane {}", lane_name(lane));
  std::string out;
  for (const auto& subject : subjects) {
    TIDEMARK_TRY(subject_file, bracket(fs::absolute(subject->info().file).string()));
    const std::vector<SubjectControl> controls = subject->info().controls;
    const bool needs_mutants =
        std::ranges::any_of(controls, [](const SubjectControl& c) { return !c.variant.mutant.empty(); });
    if (!given.ledger.empty() && !(needs_mutants && mutant_catalogue().empty())) {
      TIDEMARK_TRY(ledger_file, bracket(given.ledger));
      TIDEMARK_TRY(name, bracket(subject->info().red_once_test_name));
      TIDEMARK_TRY(report, bracket(given.report_root + "/" + subject->info().red_once_test_name));
      // A long subject's controls are proven in the monolith lane here (its runs take seconds
      // each); the nightly red-once proves them in every lane.
      std::string options;
      if (subject->info().in_lanes)
        options = " --shard 1/1" + (subject->info().is_long && every_lane ? " --lane monolith"
                                    : every_lane                          ? std::string()
                                                                          : lane_options);
      out += fmt::format("add_test({} {} red-once{} --ledger {} --report {} {})\n", name, program, options, ledger_file,
                         report, subject_file);
      TIDEMARK_TRY(labels, bracket(fmt::format("{}{}", fmt::join(subject->info().red_once_labels, ";"), extra_labels)));
      out += fmt::format("set_tests_properties({} PROPERTIES LABELS {})\n", name, labels);
    }
    if (!subject->info().in_lanes) {  // lanes and backends do not apply to a replay: one test
      const std::string test = test_name(subject->info(), Lane::Monolith, "");
      TIDEMARK_TRY(name, bracket(test));
      TIDEMARK_TRY(report, bracket(given.report_root + "/" + test));
      TIDEMARK_TRY(labels, bracket(fmt::format("{}{}", fmt::join(test_labels(subject->info(), Lane::Monolith), ";"),
                                               extra_labels)));
      out += fmt::format("add_test({} {} run{} --report {} {})\n", name, program, judged, report, subject_file);
      out += fmt::format("set_tests_properties({} PROPERTIES LABELS {})\n", name, labels);
      continue;
    }
    const std::vector<std::string> backends = given.backends.empty() ? subject->info().backends : given.backends;
    for (const auto& backend : backends)
      for (Lane lane : given.lanes) {
        const std::string test = test_name(subject->info(), lane, backend);
        TIDEMARK_TRY(name, bracket(test));
        TIDEMARK_TRY(report, bracket(given.report_root + "/" + test));
        TIDEMARK_TRY(backend_name, bracket(backend));
        std::string labels = "backend-" + backend;
        for (const auto& label : test_labels(subject->info(), lane)) labels.append(";").append(label);
        const api::BackendEntry* entry = session::builtin_backends().find(backend);
        const bool real_driver = entry && !entry->reports_itself;
        // The sanitizers build leaves a real driver's wire lanes to the default build: the
        // driver is not ours to instrument, and its monolith run still crosses our code.
        if (real_driver && lane != Lane::Monolith) labels.append(";real-driver-wire-lane");
        TIDEMARK_TRY(label_list, bracket(labels + extra_labels));
        out += fmt::format("add_test({} {} run --shard 1/1 --lane {} --backend {}{} --report {} {})\n", name, program,
                           lane_name(lane), backend_name, judged, report, subject_file);
        out += fmt::format("set_tests_properties({} PROPERTIES LABELS {})\n", name, label_list);
        // Mesa's GL drivers leak a few hundred bytes at eglTerminate and unload, so LeakSanitizer
        // cannot even name them: not ours to mend. Memory errors are still caught.
        if (real_driver)
          out += fmt::format(
              "set_tests_properties({} PROPERTIES ENVIRONMENT_MODIFICATION "
              "[=[ASAN_OPTIONS=string_append::detect_leaks=0]=])\n",
              name);
      }
  }
  return out;
}

}  // namespace

Result<std::string> ctest_registrations(const Subjects& subjects, const RegistrationRequest& request) {
  TIDEMARK_TRY(given, registration_of(request));
  // What the registered tests will read is read now: a missing or broken file is one error here,
  // not every registered test failing later.
  if (!given.expectations.empty()) TIDEMARK_CHECK(load_expectations(given.expectations));
  if (!given.ledger.empty()) TIDEMARK_CHECK(read_file_if_present(given.ledger, "ledger"));
  if (!given.digests.empty()) TIDEMARK_CHECK(read_digests(given.digests));
  return registrations_of(subjects, given);
}

}  // namespace tidemark::runner
