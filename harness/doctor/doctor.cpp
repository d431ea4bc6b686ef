#include "doctor/doctor.h"

#include <fmt/format.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "layer/link.h"
#include "report/json_fields.h"
#include "runner/kinds/scenario_subject.h"
#include "scenario/scenario.h"

namespace tidemark::doctor {

namespace fs = std::filesystem;

namespace {

// The instance a look at the loader needs, destroyed with it.
struct Instance {
  VkInstance handle = VK_NULL_HANDLE;
  Instance() {
    VkApplicationInfo app{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                          .pApplicationName = "tidemark doctor",
                          .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo info{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (vkCreateInstance(&info, nullptr, &handle) != VK_SUCCESS) handle = VK_NULL_HANDLE;
  }
  ~Instance() {
    if (handle) vkDestroyInstance(handle, nullptr);
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
};

std::string version_text(uint32_t version) {
  return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version),
                     VK_API_VERSION_PATCH(version));
}

Finding vulkan_devices() {
  Finding finding{.topic = "Vulkan devices", .remedy = "apt-get install mesa-vulkan-drivers", .needed = true};
  Instance instance;
  if (!instance.handle) {
    finding.detail = "no Vulkan instance (the loader found no driver)";
    return finding;
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance.handle, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance.handle, &count, devices.data());
  std::vector<std::string> shown;
  for (VkPhysicalDevice device : devices) {
    VkPhysicalDeviceDriverProperties driver{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 properties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
    vkGetPhysicalDeviceProperties2(device, &properties);
    shown.push_back(fmt::format("{} ({} {}, Vulkan {})", properties.properties.deviceName, driver.driverName,
                                driver.driverInfo, version_text(properties.properties.apiVersion)));
    if (properties.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) finding.present = true;
  }
  finding.detail = shown.empty() ? "none" : fmt::format("{}", fmt::join(shown, "; "));
  if (!finding.present && !shown.empty())
    finding.detail += ": none is a CPU device (lavapipe), which every backend runs on";
  if (finding.present) finding.remedy.clear();
  return finding;
}

Finding validation_layer() {
  Finding finding{.topic = "Khronos validation layer (--validation)",
                  .remedy = "apt-get install vulkan-validationlayers"};
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const auto& layer : layers)
    if (std::strcmp(layer.layerName, "VK_LAYER_KHRONOS_validation") == 0) {
      finding.present = true;
      finding.detail = fmt::format("VK_LAYER_KHRONOS_validation {}", version_text(layer.specVersion));
      finding.remedy.clear();
      return finding;
    }
  finding.detail = "VK_LAYER_KHRONOS_validation is not among the loader's layers";
  return finding;
}

Finding tidemark_layer() {
  const fs::path dir = layer::layer_dir();
  Finding finding{.topic = "Tidemark layer (VK_LAYER_TIDEMARK_observe)",
                  .remedy = "install Tidemark whole (its lib/tidemark/layer), or set TIDEMARK_LAYER_DIR",
                  .needed = true};
  auto library = layer::Library::open(dir);
  std::error_code error;
  if (!library) {
    finding.detail = library.error().message;
  } else if (!fs::exists(dir / "VkLayer_tidemark_observe.json", error)) {
    finding.detail =
        fmt::format("its library is in {}, its manifest VkLayer_tidemark_observe.json is not", dir.string());
  } else {
    finding.present = true;
    finding.detail = fmt::format("in {}", dir.string());
    finding.remedy.clear();
  }
  return finding;
}

Finding egl_vendors() {
  Finding finding{.topic = "EGL vendors (libglvnd)", .remedy = "apt-get install libegl-mesa0"};
  std::vector<std::string> vendors;
  if (const char* named = std::getenv("__EGL_VENDOR_LIBRARY_FILENAMES"); named && *named)
    vendors.push_back(fmt::format("{} (__EGL_VENDOR_LIBRARY_FILENAMES)", named));
  for (const char* dir : {"/etc/glvnd/egl_vendor.d", "/usr/share/glvnd/egl_vendor.d"}) {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error))
      if (entry.path().extension() == ".json") vendors.push_back(entry.path().string());
  }
  std::sort(vendors.begin(), vendors.end());
  finding.present = !vendors.empty();
  finding.detail = vendors.empty() ? "no vendor file" : fmt::format("{}", fmt::join(vendors, ", "));
  if (finding.present) finding.remedy.clear();
  return finding;
}

// One store, one draw, one band: the backend must start, draw and give back the colour.
constexpr std::string_view kProbe = R"(name: doctor-probe
group: doctor
target: {width: 8, height: 8}
buffers: [color]
workload:
  - buffer_data: {buffer: color, size: 64, fill: {palette: 0}}
  - draw: {uniform: color, band: {index: 0, of: 1}}
  - present:
expect:
  pixels:
    - bands: {count: 1, palette: true}
)";

Finding backend_starts(const api::BackendEntry& entry, const api::BackendRegistry& registry) {
  Finding finding{.topic = fmt::format("backend {}", entry.name),
                  .remedy = entry.name == "vulkan" ? "apt-get install mesa-vulkan-drivers"
                                                   : "apt-get install libgl1-mesa-dri libegl-mesa0 mesa-vulkan-drivers",
                  .needed = true};
  if (entry.name == "gl-native" && !std::getenv("__EGL_VENDOR_LIBRARY_FILENAMES"))
    finding.remedy =
        "name your driver's EGL vendor file in __EGL_VENDOR_LIBRARY_FILENAMES (README: your own GL driver)";
  auto probe = scenario::load_text(kProbe, "doctor-probe.yaml");
  if (!probe) {
    finding.detail = "internal: " + probe.error().message;
    return finding;
  }
  runner::RunOptions options;
  options.column.backend = entry.name;
  options.column.lane.backends = &registry;
  const auto started = std::chrono::steady_clock::now();
  auto result = runner::run(*probe, options);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  if (!result) {
    finding.detail = result.error().message;
  } else if (!report::passes(result->verdict)) {
    finding.detail = result->verdict == report::Verdict::CouldNotRun
                         ? result->why
                         : fmt::format("started, but drew wrong ({})", report::verdict_label(result->verdict));
  } else {
    finding.present = true;
    finding.detail = fmt::format("starts and draws one band right ({} ms)", ms.count());
    finding.remedy.clear();
  }
  return finding;
}

// A program some commands and comparisons run, found on PATH.
Finding program(std::string topic, std::vector<std::string> names, std::string package) {
  Finding finding{.topic = std::move(topic), .remedy = "apt-get install " + package};
  std::vector<std::string> found;
  const char* path = std::getenv("PATH");
  for (const auto& name : names) {
    std::string_view dirs = path ? path : "/usr/bin:/bin";
    while (!dirs.empty()) {
      const size_t end = std::min(dirs.find(':'), dirs.size());
      const fs::path file = fs::path(dirs.substr(0, end)) / name;
      std::error_code error;
      if (fs::is_regular_file(file, error)) {
        found.push_back(file.string());
        break;
      }
      dirs.remove_prefix(std::min(end + 1, dirs.size()));
    }
  }
  finding.present = found.size() == names.size();
  finding.detail =
      found.empty() ? fmt::format("no {}", fmt::join(names, ", ")) : fmt::format("{}", fmt::join(found, ", "));
  if (finding.present) finding.remedy.clear();
  return finding;
}

}  // namespace

bool Examination::lacks_what_is_needed() const {
  return std::ranges::any_of(findings, [](const Finding& finding) { return finding.needed && !finding.present; });
}

Result<Examination> examine(const std::vector<std::string>& backends, const api::BackendRegistry& registry) {
  std::vector<const api::BackendEntry*> selected;
  for (const auto& name : backends) {
    TIDEMARK_TRY(entry, registry.lookup(name));
    selected.push_back(entry);
  }
  if (backends.empty())
    for (const auto& entry : registry.entries()) selected.push_back(&entry);
  Examination out;
  out.findings.push_back(vulkan_devices());
  out.findings.push_back(tidemark_layer());
  out.findings.push_back(validation_layer());
  out.findings.push_back(egl_vendors());
  for (const auto* entry : selected) {
    Finding started = backend_starts(*entry, registry);
    // Every backend is listed when none is selected: only a selected one's failure is needed.
    started.needed = !backends.empty();
    out.findings.push_back(std::move(started));
  }
  out.findings.push_back(
      program("GFXReconstruct (scripts/compare-replayers, observe)", {"gfxrecon-replay"}, "gfxreconstruct"));
  out.findings.push_back(program("apitrace (eglretrace)", {"apitrace", "eglretrace"}, "apitrace"));
  out.findings.push_back(
      program("virglrenderer's server (a build with a virgl server)", {"virgl_test_server"}, "virgl-server"));
  out.findings.push_back(program("Chromium (the HTML summary's test)", {"chromium"}, "chromium"));
  return out;
}

namespace {
constexpr report::DocumentKind kExamineRequest{"tidemark-examine", 1, "an examination asked of a driver build"};
constexpr report::DocumentKind kExamination{"tidemark-examination", 1, "an examination of a driver build"};
}  // namespace

nlohmann::json to_json(const ExamineRequest& request) {
  return report::with_kind({{"backends", request.backends}}, kExamineRequest);
}

Result<ExamineRequest> examine_request_from_json(const nlohmann::json& json) {
  TIDEMARK_TRY(body, report::without_kind(json, "examine request", kExamineRequest));
  report::JsonFields fields(body, "examine request");
  ExamineRequest request{.backends = fields.take<std::vector<std::string>>("backends")};
  TIDEMARK_CHECK(fields.finish());
  return request;
}

std::string describe(const Finding& finding) {
  const char* mark = finding.present ? "ok     " : finding.needed ? "MISSING" : "absent ";
  return fmt::format("{} {}: {}{}", mark, finding.topic, finding.detail,
                     finding.remedy.empty() ? "" : fmt::format(" ({})", finding.remedy));
}

bool is_examine_request(const nlohmann::json& json) {
  return json.is_object() && json.value("format", "") == kExamineRequest.format;
}

nlohmann::json to_json(const Examination& examination) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& finding : examination.findings)
    findings.push_back({{"topic", finding.topic},
                        {"present", finding.present},
                        {"detail", finding.detail},
                        {"remedy", finding.remedy},
                        {"needed", finding.needed}});
  return report::with_kind({{"findings", std::move(findings)}}, kExamination);
}

Result<Examination> examination_from_json(const nlohmann::json& json) {
  TIDEMARK_TRY(body, report::without_kind(json, "examination", kExamination));
  report::JsonFields fields(body, "examination");
  Examination examination;
  fields.objects("findings", [&](report::JsonFields& each) {
    examination.findings.push_back({.topic = each.take<std::string>("topic"),
                                    .present = each.take<bool>("present"),
                                    .detail = each.take<std::string>("detail"),
                                    .remedy = each.take<std::string>("remedy"),
                                    .needed = each.take<bool>("needed")});
  });
  TIDEMARK_CHECK(fields.finish());
  return examination;
}

}  // namespace tidemark::doctor
