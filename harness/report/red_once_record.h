// red-once.json: what `tidemark red-once --report DIR` measured, for `tidemark rebase` to bring a
// ledger up to: each scenario's ledger lines in the lanes it ran, the problems it had apart from
// drift from the ledger (a control that stayed green, a wrong red), and the scenario file's hash
// when it ran. One type, one codec.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark::report {

struct RedOnceRecord {
  std::string scenario;  // group/name
  std::string file;
  std::string scenario_hash;  // of the file's bytes when it ran
  std::vector<std::string> lanes;
  std::vector<std::string> lines;     // its ledger lines, as measured
  std::vector<std::string> problems;  // apart from ledger drift
  bool operator==(const RedOnceRecord&) const = default;
};

struct RedOnceDocument {
  std::vector<RedOnceRecord> scenarios;
  bool operator==(const RedOnceDocument&) const = default;
};

Status write_red_once_document(const std::filesystem::path& file, const RedOnceDocument& document);
Result<RedOnceDocument> read_red_once_document(const std::filesystem::path& file);

}  // namespace tidemark::report
