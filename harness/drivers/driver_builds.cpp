#include "drivers/driver_builds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "core/files.h"
#include "core/user_pattern.h"
#include "scenario/yaml_reader.h"
#include "tap/decoders.h"

namespace tidemark::drivers {

namespace fs = std::filesystem;
namespace yaml = scenario::yaml;

namespace {

constexpr const char* kDriverVariable = "TIDEMARK_DRIVER";
constexpr const char* kDriversFileVariable = "TIDEMARK_DRIVERS_FILE";

// An environment variable's name: a shell's, and short (its NAME=VALUE is bounded as one).
constexpr size_t kMaxVariableName = 255;
bool variable_name(std::string_view name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !name.empty() && name.size() <= kMaxVariableName && !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), word);
}

// Every text of a drivers file ends up in a path, a command's word or an environment entry, each a
// C string that a NUL would cut short: refused wherever it is, at its place.
Result<std::string> text_of(const yaml::Reader& read, const yaml::Value& value, std::string_view what) {
  TIDEMARK_TRY(text, read.text(value, what));
  if (const size_t nul = text.find('\0'); nul != std::string::npos)
    return yaml::error_at(value.where, fmt::format("{} without a NUL character", what),
                          fmt::format("one at byte {} of {}", nul, yaml::quote(text.substr(0, nul))));
  return text;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 100 ||
      !(std::islower(static_cast<unsigned char>(name[0])) || std::isdigit(static_cast<unsigned char>(name[0]))))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
           c == '-' || c == '+' || c == '_';
  });
}

// `{dir}` in a value is the drivers file's folder: an entry beside its prefix moves with it. The
// expanded size is known before anything is built (over `limit` bytes is bad input at the
// value's place), and the text is built in one pass: a million `{dir}` replaced one by one took
// 25 s.
Result<std::string> expand(const yaml::Value& value, std::string_view text, const fs::path& dir, size_t limit,
                           std::string_view what) {
  constexpr std::string_view kDir = "{dir}";
  const std::string folder = dir.string();
  size_t count = 0;
  for (size_t at = text.find(kDir); at != std::string_view::npos; at = text.find(kDir, at + kDir.size())) ++count;
  const size_t size = text.size() - count * kDir.size() + count * folder.size();
  if (size > limit)
    return yaml::error_at(value.where, fmt::format("{} of at most {} bytes with {{dir}} expanded", what, limit),
                          fmt::format("{} bytes", size));
  std::string out;
  out.reserve(size);
  size_t from = 0;
  for (size_t at = text.find(kDir); at != std::string_view::npos; at = text.find(kDir, from)) {
    out.append(text.substr(from, at - from));
    out += folder;
    from = at + kDir.size();
  }
  out.append(text.substr(from));
  return out;
}

// An identity pattern (core/user_pattern.h), compiled once here so that a bad one is refused at load.
Result<std::string> pattern(const yaml::Reader& read, const yaml::Value& value, std::string_view what) {
  TIDEMARK_TRY(text, text_of(read, value, what));
  TIDEMARK_CHECK(UserPattern::compile(text, format_location(value.where), what));
  return text;
}

Result<fs::path> existing_file(const yaml::Reader& read, const yaml::Value& value, const fs::path& dir,
                               std::string_view what) {
  TIDEMARK_TRY(text, text_of(read, value, what));
  TIDEMARK_TRY(expanded, expand(value, text, dir, PATH_MAX, "a path"));
  const fs::path file = fs::absolute(dir / expanded).lexically_normal();
  if (auto checked = check_given_file(file, what); !checked)
    return yaml::error_at(value.where, fmt::format("{}, an existing file", what),
                          fmt::format("{} ({})", yaml::quote(text), checked.error().message));
  return file;
}

Result<fs::path> existing_folder(const yaml::Reader& read, const yaml::Value& value, const fs::path& dir) {
  TIDEMARK_TRY(text, text_of(read, value, "a library folder"));
  TIDEMARK_TRY(expanded, expand(value, text, dir, PATH_MAX, "a path"));
  const fs::path folder = fs::absolute(dir / expanded).lexically_normal();
  std::error_code error;
  if (!fs::is_directory(folder, error))
    return yaml::error_at(value.where, "an existing library folder",
                          fmt::format("{} ({} is no folder)", yaml::quote(text), folder.string()));
  return folder;
}

Result<Identity> identity_of(const yaml::Reader& read, const yaml::Value& value) {
  TIDEMARK_TRY(fields,
               read.fields(value, "a driver's identity", {"gl_version", "gl_renderer", "vulkan_driver", "mapped"}));
  Identity identity;
  auto text_pattern = [&](std::string_view what) {
    return [&read, what](const yaml::Value& v) { return pattern(read, v, what); };
  };
  TIDEMARK_CHECK(yaml::optional(fields, "gl_version", identity.gl_version, text_pattern("a pattern for GL_VERSION")));
  TIDEMARK_CHECK(
      yaml::optional(fields, "gl_renderer", identity.gl_renderer, text_pattern("a pattern for GL_RENDERER")));
  TIDEMARK_CHECK(yaml::optional(fields, "vulkan_driver", identity.vulkan_driver,
                                text_pattern("a pattern for the Vulkan driver's name, version text and device")));
  if (auto mapped = fields.optional("mapped")) {
    TIDEMARK_TRY(items, read.non_empty_list(*mapped, "a list of library file names such as libvulkan_lvp.so"));
    for (const auto& item : items) {
      TIDEMARK_TRY(name, text_of(read, item, "a library file name such as libvulkan_lvp.so"));
      if (name.find('/') != std::string::npos || name.empty())
        return yaml::error_at(item.where, "a library file name without a folder, such as libvulkan_lvp.so",
                              yaml::quote(name));
      identity.mapped.push_back(name);
    }
  }
  if (!identity.gl_version && !identity.gl_renderer && !identity.vulkan_driver && identity.mapped.empty())
    return yaml::error_at(value.where,
                          "at least one of gl_version, gl_renderer, vulkan_driver or mapped (a build must be "
                          "told apart)",
                          "none");
  return identity;
}

// An environment map (NAME: value, {dir} expanded). A build's own may not set what its keys set
// (`for_build`); a server's may (its host driver is its own business).
Result<std::vector<std::pair<std::string, std::string>>> environment_of(const yaml::Reader& read,
                                                                        const yaml::Value& environment,
                                                                        const fs::path& dir, bool for_build) {
  if (!environment.node.IsMap())
    return yaml::error_at(environment.where, "a map of environment variables", yaml::describe(environment.node));
  std::vector<std::pair<std::string, std::string>> settings;
  for (const auto& entry : environment.node) {
    const yaml::Value key = read.source().value(entry.first, environment.where);
    TIDEMARK_TRY(variable, text_of(read, key, "a variable name"));
    if (!variable_name(variable))
      return yaml::error_at(key.where,
                            fmt::format("an environment variable name ([A-Za-z_][A-Za-z0-9_]*) of at most {} "
                                        "characters",
                                        kMaxVariableName),
                            yaml::quote(variable));
    if (for_build &&
        (variable == kDriverVariable || variable == kDriversFileVariable || variable == "LD_LIBRARY_PATH" ||
         variable == "__EGL_VENDOR_LIBRARY_FILENAMES" || variable == "VK_DRIVER_FILES"))
      return yaml::error_at(key.where,
                            "a variable the entry's own keys do not set (library_path, egl_vendor_file, "
                            "vulkan_icd_file)",
                            yaml::quote(variable));
    const yaml::Value setting_value = read.source().value(entry.second, key.where);
    TIDEMARK_TRY(setting, text_of(read, setting_value, "a value"));
    TIDEMARK_TRY(expanded, expand(setting_value, setting, dir, kMaxEnvironmentEntryBytes - variable.size() - 1,
                                  fmt::format("a value of {}", variable)));
    settings.emplace_back(variable, std::move(expanded));
  }
  return settings;
}

// A build's server: the renderer process its client talks to (renderer/renderer_server.h).
Result<DriverServer> server_of(const yaml::Reader& read, const yaml::Value& value, const fs::path& dir) {
  TIDEMARK_TRY(fields, read.fields(value, "a driver's server",
                                   {"command", "environment", "build", "client_variable", "client_socket",
                                    "ready_within_ms", "wire"}));
  DriverServer server;
  server.where = value.where;
  TIDEMARK_TRY(command_value, fields.required("command"));
  TIDEMARK_TRY(command, read.non_empty_list(command_value, "the server's command, a list of words"));
  bool names_socket = false;
  size_t bytes = 0;  // what the server's exec is handed: its words and its environment
  for (const auto& word : command) {
    TIDEMARK_TRY(text, text_of(read, word, "a word of the command"));
    if (text.empty()) return yaml::error_at(word.where, "a word of the server's command, not empty", "''");
    TIDEMARK_TRY(expanded, expand(word, text, dir, kMaxEnvironmentEntryBytes, "a word of the server's command"));
    names_socket = names_socket || expanded.find("{socket}") != std::string::npos;
    bytes += expanded.size() + 1;
    server.command.push_back(std::move(expanded));
  }
  if (!names_socket)
    return yaml::error_at(command_value.where, "a command naming the socket it must listen on ({socket})",
                          "none of its words does");
  if (auto environment = fields.optional("environment")) {
    TIDEMARK_TRY(settings, environment_of(read, *environment, dir, false));
    server.environment = std::move(settings);
  }
  for (const auto& [name, setting] : server.environment) bytes += name.size() + setting.size() + 2;
  if (bytes > kMaxBuildEnvironmentBytes)
    return yaml::error_at(
        value.where,
        fmt::format("a server whose command and environment are at most {} bytes in all", kMaxBuildEnvironmentBytes),
        fmt::format("{} bytes", bytes));
  if (auto build = fields.optional("build")) {
    TIDEMARK_TRY(name, text_of(read, *build, "the build the server renders with"));
    if (!valid_name(name))
      return yaml::error_at(build->where, "a build name of lower-case letters, digits and '.-+_'", yaml::quote(name));
    server.build = name;
    server.build_where = build->where;
  }
  const auto variable_value = fields.optional("client_variable");
  const auto socket_value = fields.optional("client_socket");
  if (variable_value.has_value() == socket_value.has_value())
    return yaml::error_at(value.where,
                          "one of client_variable (the client's variable naming the socket) or client_socket (the "
                          "fixed path the client connects to)",
                          variable_value ? "both" : "neither");
  if (variable_value) {
    TIDEMARK_TRY(variable, text_of(read, *variable_value, "the client's variable naming the socket"));
    if (!variable_name(variable))
      return yaml::error_at(variable_value->where, "an environment variable name", yaml::quote(variable));
    server.client_variable = variable;
  } else {
    TIDEMARK_TRY(path, text_of(read, *socket_value, "the fixed socket path the client connects to"));
    if (!path.starts_with('/') || path.size() >= 108)
      return yaml::error_at(socket_value->where, "an absolute socket path under 108 bytes", yaml::quote(path));
    server.client_socket = path;
  }
  if (auto ready = fields.optional("ready_within_ms")) {
    TIDEMARK_TRY(ms, read.integer(*ready, 1, 600000, "milliseconds until the server listens"));
    server.ready_within = std::chrono::milliseconds(ms);
  }
  if (auto wire = fields.optional("wire")) {
    TIDEMARK_TRY(protocol, text_of(read, *wire, "the protocol of the client's wire"));
    if (auto decoder = tap::decoder_for(protocol); !decoder)
      return yaml::error_at(wire->where,
                            fmt::format("a wire protocol the tap decodes ({})", fmt::join(tap::protocols(), ", ")),
                            yaml::quote(protocol));
    server.wire = protocol;
  }
  return server;
}

Result<DriverBuild> build_of(const yaml::Reader& read, const yaml::Value& value, const fs::path& dir) {
  TIDEMARK_TRY(fields, read.fields(value, "a driver build",
                                   {"name", "description", "egl_vendor_file", "vulkan_icd_file", "library_path",
                                    "environment", "server", "identity"}));
  DriverBuild build;
  build.where = value.where;
  TIDEMARK_TRY(name_value, fields.required("name"));
  TIDEMARK_TRY(name, text_of(read, name_value, "a build name"));
  if (!valid_name(name))
    return yaml::error_at(name_value.where,
                          "a build name of lower-case letters, digits and '.-+_' (such as mesa-25.0.7)",
                          yaml::quote(name));
  build.name = name;
  if (auto description = fields.optional("description")) TIDEMARK_CHECK(text_of(read, *description, "a description"));
  TIDEMARK_CHECK(yaml::optional(fields, "egl_vendor_file", build.egl_vendor_file, [&](const yaml::Value& v) {
    return existing_file(read, v, dir, "an EGL vendor file");
  }));
  TIDEMARK_CHECK(yaml::optional(fields, "vulkan_icd_file", build.vulkan_icd_file, [&](const yaml::Value& v) {
    return existing_file(read, v, dir, "a Vulkan ICD file");
  }));
  if (auto folders = fields.optional("library_path")) {
    TIDEMARK_TRY(items, read.non_empty_list(*folders, "a list of library folders"));
    size_t bytes = std::string_view("LD_LIBRARY_PATH=").size();
    for (const auto& item : items) {
      TIDEMARK_TRY(folder, existing_folder(read, item, dir));
      bytes += folder.string().size() + 1;
      build.library_path.push_back(folder);
    }
    if (bytes > kMaxEnvironmentEntryBytes)
      return yaml::error_at(
          folders->where,
          fmt::format("library folders of at most {} bytes in all (LD_LIBRARY_PATH)", kMaxEnvironmentEntryBytes),
          fmt::format("{} bytes", bytes));
  }
  if (auto environment = fields.optional("environment")) {
    TIDEMARK_TRY(settings, environment_of(read, *environment, dir, true));
    build.environment = std::move(settings);
  }
  if (auto server = fields.optional("server")) {
    TIDEMARK_TRY(entry, server_of(read, *server, dir));
    build.server = std::move(entry);
  }
  TIDEMARK_TRY(identity_value, fields.required("identity"));
  TIDEMARK_TRY(identity, identity_of(read, identity_value));
  build.identity = std::move(identity);
  return build;
}

bool under(const fs::path& file, const fs::path& folder) {
  const std::string f = file.lexically_normal().string(), d = (folder.lexically_normal() / "").string();
  return f.rfind(d, 0) == 0;
}

bool from_system(const fs::path& file) {
  return under(file, "/usr/lib") || under(file, "/lib") || under(file, "/lib64") || under(file, "/usr/lib64");
}

}  // namespace

const DriverBuild* DriverBuilds::find(std::string_view name) const {
  for (const auto& build : builds)
    if (build.name == name) return &build;
  return nullptr;
}

Result<DriverBuilds> load_driver_builds(const fs::path& given) {
  const fs::path file = fs::absolute(given).lexically_normal();
  TIDEMARK_TRY(text, read_given_file(given, "drivers file"));
  yaml::Source source(given.string(), text);
  const SourceLocation start{source.file(), 1, 1};
  TIDEMARK_TRY(root, source.one_document());
  if (!root.IsDefined() || root.IsNull()) return yaml::error_at(start, "a list of driver builds", "an empty file");
  yaml::Reader read(source);
  TIDEMARK_TRY(items, read.non_empty_list(source.value(root, start), "a list of driver builds (- name: ...)"));
  DriverBuilds builds{.file = file};
  for (const auto& item : items) {
    TIDEMARK_TRY(build, build_of(read, item, file.parent_path()));
    size_t bytes = 0;
    for (const auto& setting : build_settings(builds, build)) bytes += setting.size() + 1;
    if (bytes > kMaxBuildEnvironmentBytes)
      return yaml::error_at(build.where,
                            fmt::format("a build whose environment is at most {} bytes in all (library_path, "
                                        "the EGL and ICD files, environment)",
                                        kMaxBuildEnvironmentBytes),
                            fmt::format("{} bytes", bytes));
    if (const DriverBuild* earlier = builds.find(build.name))
      return yaml::error_at(
          build.where, "a build name used once",
          fmt::format("{} again (first at {})", yaml::quote(build.name), format_location(earlier->where)));
    builds.builds.push_back(std::move(build));
  }
  // A server's host build is one of the same file's, named before or after it.
  for (const auto& build : builds.builds)
    if (build.server && !build.server->build.empty() && !builds.find(build.server->build)) {
      std::vector<std::string> names;
      for (const auto& each : builds.builds) names.push_back(each.name);
      return yaml::error_at(
          build.server->build_where,
          fmt::format("the build the server renders with, one of this file's ({})", fmt::join(names, ", ")),
          yaml::quote(build.server->build));
    }
  return builds;
}

const std::vector<std::string>& driver_variables() {
  static const std::vector<std::string> kVariables = {"LD_LIBRARY_PATH",
                                                      "__EGL_VENDOR_LIBRARY_FILENAMES",
                                                      "__EGL_VENDOR_LIBRARY_DIRS",
                                                      "VK_DRIVER_FILES",
                                                      "VK_ICD_FILENAMES",
                                                      "VK_ADD_DRIVER_FILES",
                                                      "LIBGL_DRIVERS_PATH",
                                                      "GBM_BACKENDS_PATH",
                                                      "MESA_LOADER_DRIVER_OVERRIDE",
                                                      kDriverVariable,
                                                      kDriversFileVariable};
  return kVariables;
}

std::set<std::string> owned_variables(const DriverBuild& build) {
  std::set<std::string> owned(driver_variables().begin(), driver_variables().end());
  for (const auto& [name, value] : build.environment) owned.insert(name);
  return owned;
}

std::vector<std::string> build_settings(const DriverBuilds& builds, const DriverBuild& build) {
  auto join = [](const std::vector<fs::path>& paths) {
    std::string text;
    for (const auto& path : paths) text += (text.empty() ? "" : ":") + path.string();
    return text;
  };
  std::vector<std::string> out;
  if (!build.library_path.empty()) out.push_back("LD_LIBRARY_PATH=" + join(build.library_path));
  if (build.egl_vendor_file) out.push_back("__EGL_VENDOR_LIBRARY_FILENAMES=" + build.egl_vendor_file->string());
  if (build.vulkan_icd_file) out.push_back("VK_DRIVER_FILES=" + build.vulkan_icd_file->string());
  for (const auto& [name, value] : build.environment) out.push_back(name + "=" + value);
  out.push_back(fmt::format("{}={}", kDriverVariable, build.name));
  out.push_back(fmt::format("{}={}", kDriversFileVariable, builds.file.string()));
  return out;
}

ProcessEnvironment environment_without(const DriverBuild& build, const ProcessEnvironment& current) {
  const std::set<std::string> owned = owned_variables(build);
  ProcessEnvironment out;
  for (const auto& entry : current)
    if (!owned.contains(entry.substr(0, entry.find('=')))) out.push_back(entry);
  return out;
}

ProcessEnvironment environment_for(const DriverBuilds& builds, const DriverBuild& build,
                                   const ProcessEnvironment& current) {
  ProcessEnvironment out = environment_without(build, current);
  for (auto& setting : build_settings(builds, build)) out.push_back(std::move(setting));
  return out;
}

namespace {

Status enter(const DriverBuilds& builds, const DriverBuild& build, char** argv) {
  const ProcessEnvironment environment = environment_for(builds, build, this_environment());
  std::vector<char*> envp;
  for (const auto& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  ::execve("/proc/self/exe", argv, envp.data());
  return fail(ErrorKind::Io, fmt::format("driver build '{}': could not start tidemark again under it: {}", build.name,
                                         std::strerror(errno)));
}

}  // namespace

Result<fs::path> file_naming(const std::vector<fs::path>& files, std::string_view name, std::string_view option) {
  std::vector<std::string> paths, names;
  for (const auto& file : files) {
    TIDEMARK_TRY(builds, load_driver_builds(file));
    if (builds.find(name)) return builds.file;
    paths.push_back(file.string());
    for (const auto& each : builds.builds) names.push_back(each.name);
  }
  return fail(ErrorKind::BadInput, fmt::format("{}: expected a build of {} ({}), found '{}'", option,
                                               fmt::join(paths, ", "), fmt::join(names, ", "), name));
}

bool valid_build_name(std::string_view name) { return valid_name(name); }

Status check_named_build(const std::vector<fs::path>& files, std::string_view name, std::string_view option) {
  if (!valid_name(name))
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a build name of lower-case letters, digits and '.-+_' "
                                                 "(such as mesa-25.0.7), found '{}'",
                                                 option, name));
  TIDEMARK_TRY(file, file_naming(files, name, option));
  (void)file;
  return {};
}

Result<NamedBuild> find_build(const std::vector<fs::path>& files, std::string_view name) {
  TIDEMARK_TRY(file, file_naming(files, name));
  TIDEMARK_TRY(builds, load_driver_builds(file));
  const DriverBuild build = *builds.find(name);
  return NamedBuild{.builds = std::move(builds), .build = build};
}

Status run_under(const std::vector<fs::path>& files, std::string_view name, char** argv) {
  TIDEMARK_TRY(named, find_build(files, name));
  const char* active = std::getenv(kDriverVariable);
  const char* active_file = std::getenv(kDriversFileVariable);
  if (active && active_file && name == active && named.builds.file == fs::path(active_file)) return {};
  return enter(named.builds, named.build, argv);
}

namespace {

Result<std::optional<DriverBuild>> load_active_build() {
  const char* name = std::getenv(kDriverVariable);
  const char* file = std::getenv(kDriversFileVariable);
  if (!name || !*name) return std::optional<DriverBuild>();
  if (!file || !*file)
    return fail(ErrorKind::BadInput, fmt::format("{}={}: expected {} naming its drivers file, found none",
                                                 kDriverVariable, name, kDriversFileVariable));
  TIDEMARK_TRY(builds, load_driver_builds(file));
  const DriverBuild* build = builds.find(name);
  if (!build)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a build named '{}', found {}", file, name,
                                                 builds.builds.empty() ? "none" : "others"));
  return std::optional<DriverBuild>(*build);
}

}  // namespace

Result<std::optional<DriverBuild>> active_build() {
  // The build is named once, when the process starts: its file is read once, not once per run.
  static const Result<std::optional<DriverBuild>> active = load_active_build();
  return active;
}

Status check_identity(const DriverBuild& build, const Reported& reported) {
  std::vector<std::string> expected, found;
  bool same = true;
  auto text = [&](const std::optional<std::string>& pattern, const std::optional<std::string>& value,
                  std::string_view field, std::string_view what) -> Status {
    if (!pattern) return {};
    if (!value)
      return fail(ErrorKind::Environment,
                  fmt::format("driver build '{}' ({}): names {} ({}), which {} cannot read: refused rather than "
                              "left unchecked",
                              build.name, format_location(build.where), field, what, reported.reader));
    TIDEMARK_TRY(compiled, UserPattern::compile(*pattern, format_location(build.where), field));
    const bool matches = compiled.found_in(*value);
    same = same && matches;
    expected.push_back(fmt::format("{} matching '{}'", what, *pattern));
    found.push_back(fmt::format("{} '{}'", what, *value));
    return {};
  };
  TIDEMARK_CHECK(text(build.identity.gl_version, reported.gl_version, "gl_version", "GL_VERSION"));
  TIDEMARK_CHECK(text(build.identity.gl_renderer, reported.gl_renderer, "gl_renderer", "GL_RENDERER"));
  TIDEMARK_CHECK(text(build.identity.vulkan_driver, reported.vulkan_driver, "vulkan_driver", "the Vulkan driver"));
  for (const auto& library : build.identity.mapped) {
    std::vector<std::string> from;
    bool right = false;
    for (const auto& file : reported.mapped) {
      // The maps name the file a link resolves to: libEGL_mesa.so.0 is libEGL_mesa.so.0.0.0 there.
      const std::string name = file.filename().string();
      if (name != library && !name.starts_with(library + ".")) continue;
      from.push_back(file.parent_path().string());
      const bool inside =
          build.library_path.empty()
              ? from_system(file)
              : std::any_of(build.library_path.begin(), build.library_path.end(),
                            [&](const fs::path& folder) { return under(file, fs::weakly_canonical(folder)); });
      right = right || inside;
    }
    // A process that loaded only part of the driver (a Vulkan program) is held to the libraries it mapped.
    if (from.empty() && !reported.loaded_whole_driver) continue;
    same = same && right && from.size() == 1;
    std::string folders;
    for (const auto& path : build.library_path) folders += (folders.empty() ? "" : " or ") + path.string();
    expected.push_back(fmt::format("{} mapped from {}", library, folders.empty() ? "the system's folders" : folders));
    std::string where;
    for (const auto& path : from) where += (where.empty() ? "" : " and ") + path;
    found.push_back(from.empty() ? fmt::format("{} not mapped", library) : fmt::format("{} from {}", library, where));
  }
  if (same) return {};
  auto joined = [](const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& part : parts) out += (out.empty() ? "" : ", ") + part;
    return out;
  };
  return fail(
      ErrorKind::Environment,
      fmt::format("driver build '{}' ({}): expected {}; found {} (read by {}): this is not the build the run names "
                  "(a library path leaking in, or an ICD or vendor file of another build)",
                  build.name, format_location(build.where), joined(expected), joined(found), reported.reader));
}

}  // namespace tidemark::drivers
