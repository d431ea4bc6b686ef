// The documents the layer writes for `tidemark observe`, each with its one codec: a process's
// `process.json` (ProcessRecord) and its `layer.json` (LayerReport, its gauges per device and in
// all). Header-only: the layer writes them and the observer (harness/observe/) reads them, and
// the two are built apart. Reading is strict: a field missing or of another type is an error
// naming it ("expected 'polls.done', an integer, found none"), never a default.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "layer/tidemark_layer.h"

namespace tidemark::layer {

// The gauges' fields as they are written, once for both directions.
struct CountField {
  const char* key;
  TidemarkLayerCount TidemarkLayerGauges::*field;
};
inline constexpr CountField kCountFields[] = {
    {"buffers", &TidemarkLayerGauges::buffers},
    {"images", &TidemarkLayerGauges::images},
    {"memory_allocations", &TidemarkLayerGauges::memory},
    {"memory_bytes", &TidemarkLayerGauges::memory_bytes},
    {"bound_bytes", &TidemarkLayerGauges::bound_bytes},
    {"descriptor_pools", &TidemarkLayerGauges::descriptor_pools},
    {"descriptor_sets", &TidemarkLayerGauges::descriptor_sets},
    {"command_buffers", &TidemarkLayerGauges::command_buffers},
};
struct NumberField {
  const char* group;  // "" at the top
  const char* key;
  int64_t TidemarkLayerGauges::*field;
};
inline constexpr NumberField kNumberFields[] = {
    {"", "queue_submits", &TidemarkLayerGauges::submits},
    {"polls", "done", &TidemarkLayerGauges::polls_done},
    {"polls", "busy", &TidemarkLayerGauges::polls_busy},
    {"polls", "revealed", &TidemarkLayerGauges::polls_revealed},
    {"waits", "done", &TidemarkLayerGauges::waits_done},
    {"waits", "timed_out", &TidemarkLayerGauges::waits_timed_out},
    {"waits", "lost", &TidemarkLayerGauges::waits_lost},
    {"", "frees_held", &TidemarkLayerGauges::frees_held},
    {"", "allocations_refused", &TidemarkLayerGauges::allocations_refused},
    {"device_lost", "answers", &TidemarkLayerGauges::lost_answers},
};
// The first of something among devices: summed, the first device's that has one stands.
inline constexpr NumberField kFirstFields[] = {
    {"device_lost", "first_call", &TidemarkLayerGauges::first_lost_call},
    {"device_lost", "first_at", &TidemarkLayerGauges::first_lost_at},
};

// Each number field of the gauges, the summed ones and the first ones.
template <class Each>
void for_each_number_field(Each each) {
  for (const NumberField& field : kNumberFields) each(field);
  for (const NumberField& field : kFirstFields) each(field);
}

// Adds `g` into `into`, field by field (a peak summed is the sum of the peaks).
inline void sum_into(TidemarkLayerGauges& into, const TidemarkLayerGauges& g) {
  for (const auto& [key, field] : kCountFields) {
    (into.*field).live += (g.*field).live;
    (into.*field).peak += (g.*field).peak;
    (into.*field).total += (g.*field).total;
  }
  for (const auto& [group, key, field] : kNumberFields) into.*field += g.*field;
  if (into.first_lost_call == 0)
    for (const auto& [group, key, field] : kFirstFields) into.*field = g.*field;
}

namespace records {

template <class T>
using Read = std::expected<T, std::string>;

inline std::string path_of(const std::string& at, const std::string& key) { return at.empty() ? key : at + "." + key; }

inline Read<const nlohmann::json*> member(const nlohmann::json& object, const std::string& at, const std::string& key,
                                          const char* what, bool (nlohmann::json::*is)() const noexcept) {
  auto found = object.is_object() ? object.find(key) : object.end();
  if (!object.is_object() || found == object.end())
    return std::unexpected("expected '" + path_of(at, key) + "', " + what + ", found none");
  if (!((*found).*is)())
    return std::unexpected("expected '" + path_of(at, key) + "', " + what + ", found " + found->dump());
  return &*found;
}
inline Read<int64_t> integer(const nlohmann::json& object, const std::string& at, const std::string& key) {
  auto found = member(object, at, key, "an integer", &nlohmann::json::is_number_integer);
  if (!found) return std::unexpected(found.error());
  return (*found)->get<int64_t>();
}
inline Read<uint32_t> pid(const nlohmann::json& object, const std::string& at, const std::string& key) {
  auto found = member(object, at, key, "a pid", &nlohmann::json::is_number_integer);
  if (!found) return std::unexpected(found.error());
  const int64_t value = (*found)->get<int64_t>();
  if (value < 0 || value > int64_t{UINT32_MAX})
    return std::unexpected("expected '" + path_of(at, key) + "', a pid, found " + (*found)->dump());
  return static_cast<uint32_t>(value);
}
inline Read<std::vector<std::string>> strings(const nlohmann::json& object, const std::string& at,
                                              const std::string& key) {
  auto found = member(object, at, key, "a list of strings", &nlohmann::json::is_array);
  if (!found) return std::unexpected(found.error());
  std::vector<std::string> out;
  for (const auto& item : **found) {
    if (!item.is_string())
      return std::unexpected("expected '" + path_of(at, key) + "', a list of strings, found " + item.dump());
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace records

inline nlohmann::json gauges_to_json(const TidemarkLayerGauges& g) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, field] : kCountFields)
    out[key] = {{"live", (g.*field).live}, {"peak", (g.*field).peak}, {"total", (g.*field).total}};
  for_each_number_field([&](const NumberField& f) { (*f.group ? out[f.group][f.key] : out[f.key]) = g.*f.field; });
  return out;
}

inline records::Read<TidemarkLayerGauges> gauges_from_json(const nlohmann::json& json, const std::string& at) {
  TidemarkLayerGauges g{};
  for (const auto& [key, field] : kCountFields) {
    const std::string count = records::path_of(at, key);
    for (auto [part, value] :
         {std::pair{"live", &TidemarkLayerCount::live}, std::pair{"peak", &TidemarkLayerCount::peak},
          std::pair{"total", &TidemarkLayerCount::total}}) {
      auto number = records::integer(json.contains(key) ? json[key] : nlohmann::json(), count, part);
      if (!number) return std::unexpected(number.error());
      (g.*field).*value = *number;
    }
  }
  std::string error;
  for_each_number_field([&](const NumberField& f) {
    const bool nested = *f.group;
    const nlohmann::json& holder = nested ? (json.contains(f.group) ? json[f.group] : nlohmann::json()) : json;
    auto number = records::integer(holder, nested ? records::path_of(at, f.group) : at, f.key);
    if (!number && error.empty()) error = number.error();
    if (number) g.*f.field = *number;
  });
  if (!error.empty()) return std::unexpected(error);
  return g;
}

// layer.json: the process's gauges per device and in all.
// The Vulkan driver beneath a device as identities name it: "NAME INFO (DEVICE)", e.g.
// "llvmpipe Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) (llvmpipe (LLVM 15.0.6, 256 bits))".
inline std::string driver_text(const TidemarkLayerDriver& driver) {
  return std::string(driver.driver_name) + " " + driver.driver_info + " (" + driver.device_name + ")";
}

struct LayerReport {
  struct Device {
    uint64_t number = 0;  // in the process, from 1
    bool destroyed = false;
    TidemarkLayerGauges gauges{};
    std::string driver;  // driver_text() of the driver beneath it; empty: the layer could not tell
  };
  uint32_t pid = 0;
  std::vector<Device> devices;
  TidemarkLayerGauges all{};
  // The shared libraries the process had mapped (core/mapped_files.h): which build's driver it ran.
  std::vector<std::string> libraries;
};

inline nlohmann::json to_json(const LayerReport::Device& device) {
  nlohmann::json out = gauges_to_json(device.gauges);
  out["device"] = device.number;
  out["destroyed"] = device.destroyed;
  if (!device.driver.empty()) out["driver"] = device.driver;
  return out;
}

inline nlohmann::json to_json(const LayerReport& report) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& device : report.devices) devices.push_back(to_json(device));
  return {{"layer", TIDEMARK_LAYER_NAME},
          {"pid", report.pid},
          {"devices", devices},
          {"all", gauges_to_json(report.all)},
          {"libraries", report.libraries}};
}

inline records::Read<LayerReport> layer_report_from_json(const nlohmann::json& json) {
  LayerReport report;
  auto pid = records::pid(json, "", "pid");
  if (!pid) return std::unexpected(pid.error());
  report.pid = *pid;
  auto devices = records::member(json, "", "devices", "a list", &nlohmann::json::is_array);
  if (!devices) return std::unexpected(devices.error());
  for (size_t i = 0; i < (*devices)->size(); ++i) {
    const nlohmann::json& entry = (**devices)[i];
    const std::string at = "devices[" + std::to_string(i) + "]";
    LayerReport::Device device;
    auto number = records::integer(entry, at, "device");
    if (!number) return std::unexpected(number.error());
    device.number = static_cast<uint64_t>(*number);
    auto destroyed = records::member(entry, at, "destroyed", "true or false", &nlohmann::json::is_boolean);
    if (!destroyed) return std::unexpected(destroyed.error());
    device.destroyed = (*destroyed)->get<bool>();
    auto gauges = gauges_from_json(entry, at);
    if (!gauges) return std::unexpected(gauges.error());
    device.gauges = *gauges;
    if (entry.contains("driver")) {  // a device whose driver the layer could not tell has none
      auto driver = records::member(entry, at, "driver", "the driver's name", &nlohmann::json::is_string);
      if (!driver) return std::unexpected(driver.error());
      device.driver = (*driver)->get<std::string>();
    }
    report.devices.push_back(device);
  }
  auto all = records::member(json, "", "all", "the gauges in all", &nlohmann::json::is_object);
  if (!all) return std::unexpected(all.error());
  auto gauges = gauges_from_json(**all, "all");
  if (!gauges) return std::unexpected(gauges.error());
  report.all = *gauges;
  if (json.contains("libraries")) {  // a layer of an earlier Tidemark wrote none
    auto libraries = records::strings(json, "", "libraries");
    if (!libraries) return std::unexpected(libraries.error());
    report.libraries = std::move(*libraries);
  }
  return report;
}

// process.json: who the process is, and the processes above it up to the observer.
struct ProcessRecord {
  struct Ancestor {
    uint32_t pid = 0, parent = 0;
    std::vector<std::string> command;
  };
  uint32_t pid = 0, parent = 0;
  std::vector<std::string> command;
  std::string executable;
  bool observed = true;      // false: --only names other programs
  uint32_t forked_from = 0;  // 0: not a forked copy
  std::vector<Ancestor> ancestors;
};

inline nlohmann::json to_json(const ProcessRecord& record) {
  nlohmann::json ancestors = nlohmann::json::array();
  for (const auto& a : record.ancestors)
    ancestors.push_back({{"pid", a.pid}, {"parent", a.parent}, {"command", a.command}});
  return {{"pid", record.pid},           {"parent", record.parent},
          {"command", record.command},   {"executable", record.executable},
          {"observed", record.observed}, {"forked_from", record.forked_from},
          {"ancestors", ancestors}};
}

inline records::Read<ProcessRecord> process_record_from_json(const nlohmann::json& json) {
  ProcessRecord record;
  auto pid = records::pid(json, "", "pid");
  auto parent = records::pid(json, "", "parent");
  auto forked = records::pid(json, "", "forked_from");
  auto command = records::strings(json, "", "command");
  auto executable = records::member(json, "", "executable", "a path", &nlohmann::json::is_string);
  auto observed = records::member(json, "", "observed", "true or false", &nlohmann::json::is_boolean);
  auto ancestors = records::member(json, "", "ancestors", "a list", &nlohmann::json::is_array);
  for (const std::string* error :
       {pid ? nullptr : &pid.error(), parent ? nullptr : &parent.error(), forked ? nullptr : &forked.error(),
        command ? nullptr : &command.error(), executable ? nullptr : &executable.error(),
        observed ? nullptr : &observed.error(), ancestors ? nullptr : &ancestors.error()})
    if (error) return std::unexpected(*error);
  record.pid = *pid;
  record.parent = *parent;
  record.forked_from = *forked;
  record.command = *command;
  record.executable = (*executable)->get<std::string>();
  record.observed = (*observed)->get<bool>();
  for (size_t i = 0; i < (*ancestors)->size(); ++i) {
    const nlohmann::json& entry = (**ancestors)[i];
    const std::string at = "ancestors[" + std::to_string(i) + "]";
    auto a_pid = records::pid(entry, at, "pid");
    auto a_parent = records::pid(entry, at, "parent");
    auto a_command = records::strings(entry, at, "command");
    if (!a_pid) return std::unexpected(a_pid.error());
    if (!a_parent) return std::unexpected(a_parent.error());
    if (!a_command) return std::unexpected(a_command.error());
    record.ancestors.push_back({*a_pid, *a_parent, *a_command});
  }
  return record;
}

}  // namespace tidemark::layer
