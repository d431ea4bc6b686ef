// tidemark merge DIR...: one summary from the report folders of a sharded run.
#include <fmt/format.h>

#include "cli/commands.h"
#include "report/merge.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

int merge_command(const MergeArgs& args) {
  std::vector<fs::path> dirs(args.dirs.begin(), args.dirs.end());
  const fs::path out = args.out.empty() ? default_report_dir("merged") : fs::path(args.out);
  auto merged = report::merge_summaries(dirs, out);
  if (!merged) return report_error(merged.error());
  for (const auto& difference : merged->differences) fmt::print("DIFF {}\n", difference);
  fmt::print("merged {} summaries: {} results, {} green, {} red; {} of {} scenarios give one digest; report: {}\n",
             merged->summaries, merged->results, merged->green, merged->red,
             merged->scenarios - merged->differences.size(), merged->scenarios,
             fs::absolute(out / "summary.json").string());
  return merged->red == 0 && merged->differences.empty() ? kGreen : kRed;
}

}  // namespace tidemark::cli
