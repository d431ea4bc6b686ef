// list, and the CTest registrations it writes (runner/ctest_registrations.h makes them).
#include <fmt/format.h>

#include "cli/commands.h"
#include "core/files.h"
#include "runner/ctest_registrations.h"
#include "runner/runner.h"

namespace tidemark::cli {

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
  auto registrations = runner::ctest_registrations(
      *scenarios, {.tidemark = args.tidemark, .report_root = args.report_root, .ledger = args.ledger,
                   .expectations = args.expectations, .lanes = args.lanes, .backends = args.backends,
                   .labels = args.labels});
  if (!registrations) return report_error(registrations.error());
  if (auto written = write_file_atomically(ctest_file, *registrations); !written) return report_error(written.error());
  return kGreen;
}

}  // namespace tidemark::cli
