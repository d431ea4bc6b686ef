// Driver builds as data: a drivers file (YAML) names each build of a GL-on-Vulkan driver a run can
// pick (`--drivers FILE --driver NAME`): its EGL vendor and Vulkan ICD files, libraries, environment
// and the identity it must report. The loader picks the libraries as a process starts, so a run on
// a build is a process of its own (enter()); before the first step the gl backend checks what the
// driver reports and the libraries really mapped against the entry (check_identity; else exit 3).
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "core/mapped_files.h"
#include "core/process.h"

namespace tidemark::drivers {

// What a build must report; every pattern is a user's pattern (core/user_pattern.h) searched in the text.
struct Identity {
  std::optional<std::string> gl_version;   // GL_VERSION ("OpenGL ES 3.2 Mesa 25.0.7-2~bpo12+1")
  std::optional<std::string> gl_renderer;  // GL_RENDERER ("zink Vulkan 1.4(llvmpipe ...)")
  // The Vulkan driver beneath, as the Tidemark layer read it at vkCreateDevice: its driver name,
  // version text and device ("llvmpipe Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) (llvmpipe (LLVM ...))").
  std::optional<std::string> vulkan_driver;
  // Library file names (libvulkan_lvp.so; a versioned file such as libEGL_mesa.so.0.0.0 is
  // libEGL_mesa.so.0 as well) that must be mapped into the process, each from one of
  // the build's library_path folders (from outside them when the build names none: the system's).
  std::vector<std::string> mapped;
};

// A build whose client talks to a renderer process (virgl's vtest: Mesa's virpipe client,
// virglrenderer's virgl_test_server): what starts that server for a run, with the Tidemark
// layer beneath it (renderer/renderer_server.h).
struct DriverServer {
  SourceLocation where;
  std::vector<std::string> command;                              // "{socket}" in a word: the socket it must listen on
  std::vector<std::pair<std::string, std::string>> environment;  // set over the host driver's
  // The build of the same drivers files the server renders with (its environment); empty: the
  // system's driver (every driver variable of the client's cleared).
  std::string build;
  SourceLocation build_where;
  // How the client is pointed at the run's own server: its variable that names the socket
  // (VTEST_SOCKET_NAME), or the fixed path it always connects to (/tmp/.virgl_test), which a
  // connect() of the client's is redirected from. One of the two.
  std::string client_variable;
  std::string client_socket;
  std::chrono::milliseconds ready_within{20000};
  // The protocol the client speaks to it (tap/decoders.h: "vtest"): a tap between the two decodes
  // it into the run's wire gauges. Empty: the client connects to the server itself.
  std::string wire;
};

struct DriverBuild {
  std::string name;
  SourceLocation where;
  std::optional<std::filesystem::path> egl_vendor_file;  // absolute
  std::optional<std::filesystem::path> vulkan_icd_file;  // absolute
  std::vector<std::filesystem::path> library_path;       // absolute, searched first
  std::vector<std::pair<std::string, std::string>> environment;
  Identity identity;
  std::optional<DriverServer> server;
};

struct DriverBuilds {
  std::filesystem::path file;  // absolute
  std::vector<DriverBuild> builds;
  const DriverBuild* find(std::string_view name) const;
};

// A drivers file; paths in it are relative to its folder. Bad input is file:line:column: so is
// a pattern or an environment over the bounds above, before any of it is compiled or expanded.
Result<DriverBuilds> load_driver_builds(const std::filesystem::path& file);

// The variables a build owns: cleared from a run's environment before the build's own are set,
// so that the caller's choice of driver never leaks into a build that does not name one.
const std::vector<std::string>& driver_variables();

// The variables a process running `build` must not inherit: driver_variables() and the names
// the build's own environment sets.
std::set<std::string> owned_variables(const DriverBuild& build);

// What `build` sets (NAME=VALUE): its libraries, EGL vendor and Vulkan ICD files, its own
// environment, and TIDEMARK_DRIVER / TIDEMARK_DRIVERS_FILE naming it.
std::vector<std::string> build_settings(const DriverBuilds& builds, const DriverBuild& build);

// The one way out of a build: `current` without owned_variables(build) (a build's renderer server
// leaves its client's before it enters its host build's).
ProcessEnvironment environment_without(const DriverBuild& build, const ProcessEnvironment& current);

// The one way into a build: the environment of a process started on `build` from one whose
// environment is `current`, without owned_variables(), with build_settings(). Every process
// started on a build has it (run --driver's tidemark, a column's batch child, a capture's replay,
// a renderer server's host build); a layer Tidemark puts beneath it goes over it, keeping the
// layers it names (observe::layer_environment).
ProcessEnvironment environment_for(const DriverBuilds& builds, const DriverBuild& build,
                                   const ProcessEnvironment& current);

// The build `name` of the first of the drivers files `files` that names it, with its file.
struct NamedBuild {
  DriverBuilds builds;
  DriverBuild build;
};
Result<NamedBuild> find_build(const std::vector<std::filesystem::path>& files, std::string_view name);

// The first of the drivers files `files` that names build `name` (absolute); none: bad input,
// after `option`, naming every build they have.
Result<std::filesystem::path> file_naming(const std::vector<std::filesystem::path>& files, std::string_view name,
                                          std::string_view option = "--driver");

// Whether `name` is a build name: lower-case letters, digits and '.-+_', from a letter or digit
// (never a path: no separator, no leading dot).
bool valid_build_name(std::string_view name);

// A build a command names (BACKEND@BUILD, --bug-build): a build name that the drivers files
// have, or bad input after `option`, before the command has created anything.
Status check_named_build(const std::vector<std::filesystem::path>& files, std::string_view name,
                         std::string_view option);

// Makes this process the build `name` of the first of the drivers files `files` that names it:
// unless it already is (TIDEMARK_DRIVER and TIDEMARK_DRIVERS_FILE say so), re-executes this
// program with the same arguments under the build's environment, and returns only on failure (a
// file or name that is not there is bad input).
Status run_under(const std::vector<std::filesystem::path>& files, std::string_view name, char** argv);

// The build this process runs under (TIDEMARK_DRIVER and TIDEMARK_DRIVERS_FILE), if any.
Result<std::optional<DriverBuild>> active_build();

// What one process of a run read of the driver it runs on. A field it could not read is absent:
// check_identity refuses a build that names it, so a field is never skipped unread (a run whose
// device is not the whole driver has the rest read by probe_identity()).
struct Reported {
  std::string reader;  // who read it, for messages: "the vulkan backend", "the replay (pid 12)"
  std::optional<std::string> gl_version, gl_renderer;
  std::optional<std::string> vulkan_driver;   // "" : the layer beneath could not tell
  std::vector<std::filesystem::path> mapped;  // every file the process had mapped
  // True: the process loaded the whole driver (GL and Vulkan), so every library the identity
  // names must be among `mapped`; false: those it mapped must come from the build's folders.
  bool loaded_whole_driver = true;
};

// Whether `reported` is `build`: an Environment error naming both identities when not, or
// naming the field `reported` lacks (the reader cannot check it: refused, never skipped).
Status check_identity(const DriverBuild& build, const Reported& reported);

}  // namespace tidemark::drivers
