// `tidemark rebase REPORT_DIR`: after a reviewed change, bring what runs are held to up to a
// report folder (one of this machine's, or a CI artifact downloaded elsewhere): the baseline its
// runs become, the measured values of the expectations lines its known failures matched, the
// ledger lines its red-once measured, and the golden images its runs drew otherwise. A report
// that is incomplete (no summary, a shard not merged, a run's folder missing), that has a red
// nobody expected (a worse-than-baseline run is what a rebase accepts), or whose scenario files
// changed since it was made is refused: nothing is written. Every change is computed first and
// then each file is written whole, or not at all with `dry_run`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark::rebase {

struct Targets {
  std::filesystem::path baseline;      // a folder: its summary.json becomes the report's runs; empty: none
  std::filesystem::path expectations;  // its lines' measured values; empty: none
  std::filesystem::path ledger;        // its lines of what red-once.json measured; empty: none
  bool goldens = false;                // the golden images of pixel checks whose run drew otherwise
  bool dry_run = false;                // say what would change; write nothing
};

// One file's change, for a person: what it was and what it becomes, line by line ("- ..."/"+ ...").
struct FileChange {
  std::filesystem::path file;
  std::vector<std::string> diff;
};

// The changes made (or, with dry_run, that would be). Errors: bad input naming what refused it.
Result<std::vector<FileChange>> rebase(const std::filesystem::path& report_dir, const Targets& targets);

}  // namespace tidemark::rebase
