// list, and the CTest registrations it writes (runner/ctest_registrations.h makes them).
#include <fmt/format.h>

#include "capture/capture_subject.h"
#include "cli/commands.h"
#include "core/files.h"
#include "runner/ctest_registrations.h"
#include "runner/runner.h"

namespace tidemark::cli {

int list_command(const ListArgs& args) {
  const std::string& ctest_file = args.ctest_file;
  // Capture fixtures (*.capture.yaml) are listed and registered beside the scenarios.
  auto split = capture::load_inputs(args.inputs);
  if (!split) return report_error(split.error());
  Result<std::vector<scenario::Scenario>> loaded = std::vector<scenario::Scenario>{};
  if (!split->scenarios.empty()) loaded = load_shard(split->scenarios, args.shard, args.shard_durations);
  if (!loaded) return report_error(loaded.error());
  const std::vector<scenario::Scenario>* scenarios = &*loaded;
  if (auto clean = runner::check_label_hygiene(*scenarios); !clean) return report_error(clean.error());
  std::vector<runner::CaptureSubject> captures;
  for (const auto& fixture : split->captures)
    captures.push_back({.test = capture::test_name(fixture), .group = fixture.group, .file = fixture.file});
  if (ctest_file.empty()) {
    for (const auto& scenario : *scenarios)
      for (Lane lane : kAllLanes) fmt::print("{}  {}\n", runner::test_name(scenario, lane), scenario.file.string());
    for (const auto& each : captures) fmt::print("{}  {}\n", each.test, each.file.string());
    return kGreen;
  }
  auto registrations = runner::ctest_registrations(*scenarios, captures,
                                                   {.tidemark = args.tidemark,
                                                    .report_root = args.report_root,
                                                    .ledger = args.ledger,
                                                    .expectations = args.expectations,
                                                    .lanes = args.lanes,
                                                    .backends = args.backends,
                                                    .labels = args.labels});
  if (!registrations) return report_error(registrations.error());
  if (auto written = write_file_atomically(ctest_file, *registrations); !written) return report_error(written.error());
  return kGreen;
}

}  // namespace tidemark::cli
