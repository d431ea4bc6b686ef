// `tidemark rebase REPORT_DIR`: after a reviewed change, what runs are held to is brought up to a
// report folder (this machine's or a CI artifact): the baseline, the expectations lines' measured
// values, the red-once ledger lines and the golden images. An incomplete report, a red nobody
// expected or a scenario file changed since is refused with nothing written; each file is written
// whole (with `dry_run`, not at all).
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
