#include "report/red_once_record.h"

#include "report/json_fields.h"

namespace tidemark::report {

namespace {

constexpr DocumentKind kRedOnceDocument{"tidemark-red-once", 1, "a red-once report (red-once.json)"};

}  // namespace

Status write_red_once_document(const std::filesystem::path& file, const RedOnceDocument& document) {
  nlohmann::json scenarios = nlohmann::json::array();
  for (const auto& record : document.scenarios)
    scenarios.push_back({{"scenario", record.scenario},
                         {"file", record.file},
                         {"scenario_hash", record.scenario_hash},
                         {"lanes", record.lanes},
                         {"lines", record.lines},
                         {"problems", record.problems}});
  return write_document(file, {{"scenarios", std::move(scenarios)}}, kRedOnceDocument);
}

Result<RedOnceDocument> read_red_once_document(const std::filesystem::path& file) {
  TIDEMARK_TRY(json, read_document(file, kRedOnceDocument));
  JsonFields fields(json, file.string());
  RedOnceDocument document;
  fields.objects("scenarios", [&](JsonFields& in) {
    RedOnceRecord& record = document.scenarios.emplace_back();
    record.scenario = in.take<std::string>("scenario");
    record.file = in.take<std::string>("file");
    record.scenario_hash = in.take<std::string>("scenario_hash");
    record.lanes = in.take<std::vector<std::string>>("lanes");
    record.lines = in.take<std::vector<std::string>>("lines");
    record.problems = in.take<std::vector<std::string>>("problems");
  });
  TIDEMARK_CHECK(fields.finish());
  return document;
}

}  // namespace tidemark::report
