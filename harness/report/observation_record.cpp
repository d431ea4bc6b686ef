#include "report/observation_record.h"

#include <nlohmann/json.hpp>

#include "report/json_fields.h"

namespace tidemark::report {

namespace {

constexpr DocumentKind kObservationDocument{"tidemark-observation", 1, "an observation (observation.json)"};

void read_gauges(JsonFields& fields, GaugeValues& observed, GaugeValues& kernel) {
  observed = fields.take<GaugeValues>("observed_gauges");
  kernel = fields.take<GaugeValues>("kernel_gauges");
}

}  // namespace

nlohmann::json to_json(const ObservationRecord& record) {
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& process : record.processes) {
    nlohmann::json entry{
        {"pid", process.pid}, {"parent", process.parent}, {"command", process.command}, {"kind", process.kind}};
    if (!process.executable.empty()) entry["executable"] = process.executable;
    if (process.forked_from) entry["forked_from"] = process.forked_from;
    if (!process.folder.empty()) entry["folder"] = process.folder;
    if (const auto& vulkan = process.vulkan) {
      entry["devices"] = vulkan->devices;
      entry["reported"] = vulkan->reported;
      entry["events"] = vulkan->events;
      entry["observed_gauges"] = vulkan->observed_gauges;
      entry["kernel_gauges"] = vulkan->kernel_gauges;
      entry["trace"] = vulkan->trace;
    }
    processes.push_back(std::move(entry));
  }
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& check : record.checks)
    checks.push_back(
        {{"check", check.check}, {"scope", check.scope}, {"passed", check.passed}, {"detail", check.detail}});
  nlohmann::json json = {
      {"command", record.command},
      {"exit_code", record.exit_code},
      {"pid", record.pid},
      {"settings", record.settings},
      {"only", record.only},
      {"processes", std::move(processes)},
      {"whole", {{"observed_gauges", record.whole_observed}, {"kernel_gauges", record.whole_kernel}}},
      {"kernel_map", record.kernel_map},
      {"checks", std::move(checks)}};
  if (record.wire_gauges) json["wire_gauges"] = *record.wire_gauges;
  if (!record.server_ended.empty()) json["server_ended"] = record.server_ended;
  if (!record.verdict.empty()) json["verdict"] = record.verdict;
  if (!record.why.empty()) json["why"] = record.why;
  if (record.timeout) json["timeout"] = to_json(*record.timeout);
  return json;
}

Result<ObservationRecord> observation_record_from_json(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  ObservationRecord record;
  record.command = fields.take<std::vector<std::string>>("command");
  record.exit_code = fields.take<int64_t>("exit_code");
  record.pid = fields.take<uint64_t>("pid");
  record.settings = fields.take<std::string>("settings");
  record.only = fields.take<std::string>("only");
  fields.objects("processes", [&](JsonFields& in) {
    ObservedProcessRecord& process = record.processes.emplace_back();
    process.pid = in.take<uint64_t>("pid");
    process.parent = in.take<uint64_t>("parent");
    process.command = in.take<std::vector<std::string>>("command");
    process.kind = in.take<std::string>("kind");
    process.executable = in.take_optional<std::string>("executable").value_or("");
    process.forked_from = in.take_optional<uint64_t>("forked_from").value_or(0);
    process.folder = in.take_optional<std::string>("folder").value_or("");
    // A Vulkan process's figures come together: the first one stands for all.
    if (auto devices = in.take_optional<uint64_t>("devices")) {
      auto& vulkan = process.vulkan.emplace();
      vulkan.devices = *devices;
      vulkan.reported = in.take<bool>("reported");
      vulkan.events = in.take<int64_t>("events");
      read_gauges(in, vulkan.observed_gauges, vulkan.kernel_gauges);
      vulkan.trace = in.take<std::string>("trace");
    }
  });
  fields.object("whole", [&](JsonFields& in) { read_gauges(in, record.whole_observed, record.whole_kernel); });
  record.kernel_map = fields.take<std::string>("kernel_map");
  record.wire_gauges = fields.take_optional<GaugeValues>("wire_gauges");
  record.server_ended = fields.take_optional<std::string>("server_ended").value_or("");
  record.verdict = fields.take_optional<std::string>("verdict").value_or("");
  record.why = fields.take_optional<std::string>("why").value_or("");
  fields.object(
      "timeout", [&](JsonFields& in) { read_timeout_record(in, record.timeout.emplace()); },
      /*required=*/false);
  fields.objects("checks", [&](JsonFields& in) {
    record.checks.push_back({in.take<std::string>("check"), in.take<std::string>("scope"), in.take<bool>("passed"),
                             in.take<std::string>("detail")});
  });
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
