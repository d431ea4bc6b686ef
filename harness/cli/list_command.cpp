// list, and the CTest registrations it writes (runner/verbs/ctest_registrations.h makes them).
#include <fmt/format.h>

#include <span>

#include "cli/commands.h"
#include "core/files.h"
#include "runner/verbs/ctest_registrations.h"
#include "runner/kinds/scenario_subject.h"
#include "runner/pipeline/selection.h"

namespace tidemark::cli {

int list_command(const ListArgs& args) {
  const std::string& ctest_file = args.ctest_file;
  // Scenarios and capture fixtures (*.capture.yaml), listed and registered alike.
  auto loaded = load_subjects(args.inputs, args.shard, args.shard_durations);
  if (!loaded) return report_error(loaded.error());
  if (auto clean = runner::check_label_hygiene(loaded->subjects); !clean) return report_error(clean.error());
  if (ctest_file.empty()) {
    for (const auto& subject : loaded->subjects)
      for (Lane lane :
           subject->info().in_lanes ? std::span<const Lane>(kAllLanes) : std::span<const Lane>(kAllLanes, 1))
        fmt::print("{}  {}\n", test_name(subject->info(), lane, ""), subject->info().file.string());
    return kGreen;
  }
  auto registrations = runner::ctest_registrations(loaded->subjects, {.tidemark = args.tidemark,
                                                                      .report_root = args.report_root,
                                                                      .ledger = args.ledger,
                                                                      .expectations = args.expectations,
                                                                      .digests = args.digests,
                                                                      .lanes = args.lanes,
                                                                      .backends = args.backends,
                                                                      .labels = args.labels});
  if (!registrations) return report_error(registrations.error());
  if (auto written = write_file_atomically(ctest_file, *registrations); !written) return report_error(written.error());
  return kGreen;
}

}  // namespace tidemark::cli
