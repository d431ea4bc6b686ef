#include "report/parity.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace tidemark::report {

namespace {

std::string variant_of(const nlohmann::json& result) {
  std::string variant = result.contains("knobs") ? result["knobs"].dump() : "{}";
  if (const std::string mutant = result.value("mutant", ""); !mutant.empty()) variant += " mutant=" + mutant;
  return variant;
}

}  // namespace

std::string parity_key(const nlohmann::json& result) {
  return result.value("subject", result.value("test", "")) + " " + variant_of(result);
}

nlohmann::json parity_rows(const nlohmann::json& results) {
  std::map<std::string, nlohmann::json> rows;
  for (const auto& result : results) {
    nlohmann::json& row = rows[parity_key(result)];
    if (row.is_null())
      row = {{"subject", result.value("subject", result.value("test", ""))},
             {"variant", variant_of(result)},
             {"cells", nlohmann::json::array()}};
    const nlohmann::json lane = result.contains("lane") ? result["lane"] : nlohmann::json::object();
    row["cells"].push_back({{"test", result.value("test", "")},
                            {"lane", lane.value("name", "")},
                            {"backend", result.value("backend", "")},
                            {"digest", result.value("digest", "")},
                            {"green", result.value("green", false)}});
  }
  nlohmann::json out = nlohmann::json::array();
  for (auto& [key, row] : rows) {
    std::set<std::string> digests;
    for (const auto& cell : row["cells"]) digests.insert(cell["digest"].get<std::string>());
    row["same"] = digests.size() == 1;
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace tidemark::report
