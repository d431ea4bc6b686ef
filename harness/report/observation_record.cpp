#include "report/observation_record.h"

#include <nlohmann/json.hpp>

#include "report/described.h"
#include "report/described_records.h"
#include "report/json_fields.h"

namespace tidemark::report {

namespace {

constexpr DocumentKind kObservationDocument{"tidemark-observation", 1, "an observation (observation.json)"};

}  // namespace

template <>
struct JsonDescription<VulkanProcessRecord> {
  static constexpr auto fields() {
    using T = VulkanProcessRecord;
    return std::tuple{always("devices", &T::devices),
                      always("reported", &T::reported),
                      always("events", &T::events),
                      always("observed_gauges", &T::observed_gauges),
                      always("kernel_gauges", &T::kernel_gauges),
                      always("trace", &T::trace)};
  }
};
template <>
struct JsonDescription<ObservedProcessRecord> {
  static constexpr auto fields() {
    using T = ObservedProcessRecord;
    return std::tuple{always("pid", &T::pid), always("parent", &T::parent), always("command", &T::command),
                      always("kind", &T::kind), when_set("executable", &T::executable),
                      when_set("forked_from", &T::forked_from), when_set("folder", &T::folder),
                      // A Vulkan process's figures come together: its device count stands for all.
                      inlined(&T::vulkan, "devices")};
  }
};
template <>
struct JsonDescription<BoundRecord> {
  static constexpr auto fields() {
    using T = BoundRecord;
    return std::tuple{always("check", &T::check), always("scope", &T::scope), always("passed", &T::passed),
                      always("detail", &T::detail)};
  }
};
template <>
struct JsonDescription<ObservationRecord> {
  static constexpr auto fields() {
    using T = ObservationRecord;
    return std::tuple{
        always("command", &T::command),
        always("exit_code", &T::exit_code),
        always("pid", &T::pid),
        always("settings", &T::settings),
        always("only", &T::only),
        always("processes", &T::processes),
        group("whole", always("observed_gauges", &T::whole_observed), always("kernel_gauges", &T::whole_kernel)),
        always("kernel_map", &T::kernel_map),
        when_set("wire_gauges", &T::wire_gauges),
        when_set("server_ended", &T::server_ended),
        when_set("verdict", &T::verdict),
        when_set("why", &T::why),
        when_set("timeout", &T::timeout),
        always("checks", &T::checks)};
  }
};

nlohmann::json to_json(const ObservationRecord& record) { return described_json(record); }

Result<ObservationRecord> observation_record_from_json(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  ObservationRecord record;
  read_described(fields, record);
  TIDEMARK_CHECK(fields.finish());
  return record;
}

Status write_observation_record(const std::filesystem::path& file, const ObservationRecord& record) {
  return write_document(file, to_json(record), kObservationDocument);
}

Result<ObservationRecord> read_observation_record(const std::filesystem::path& file) {
  TIDEMARK_TRY(json, read_document(file, kObservationDocument));
  return observation_record_from_json(json, file.string());
}

}  // namespace tidemark::report
