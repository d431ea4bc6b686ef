// `tidemark rebase REPORT_DIR [--baseline DIR] [--expectations F] [--ledger F] [--goldens]
// [--dry-run]`: the library (rebase/rebase.h) works out and makes the changes; this prints them.
#include <fmt/format.h>

#include "cli/commands.h"
#include "rebase/rebase.h"

namespace tidemark::cli {

int rebase_command(const RebaseArgs& args) {
  auto changes = rebase::rebase(args.report, {.baseline = args.baseline,
                                              .expectations = args.expectations,
                                              .ledger = args.ledger,
                                              .goldens = args.goldens,
                                              .dry_run = args.dry_run});
  if (!changes) return report_error(changes.error());
  size_t changed = 0;
  for (const auto& change : *changes) {
    if (change.diff.empty()) continue;
    ++changed;
    fmt::print("{} {}\n", args.dry_run ? "would change" : "changed", change.file.string());
    for (const auto& line : change.diff) fmt::print("  {}\n", line);
  }
  fmt::print("rebase: {} file{} {}{}\n", changed, changed == 1 ? "" : "s", args.dry_run ? "would change" : "changed",
             changed == 0 ? " (everything already matches the report)" : "");
  return kGreen;
}

}  // namespace tidemark::cli
