#include "drivers/driver_builds.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include <fmt/format.h>

#include "core/testing/scratch.h"

namespace tidemark::drivers {
namespace {

namespace fs = std::filesystem;

// A drivers file in a folder of its own with an EGL vendor file, an ICD file and a library folder.
class DriversFile : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "root/lib");
    std::ofstream(dir_ / "egl.json") << "{}";
    std::ofstream(dir_ / "icd.json") << "{}";
  }
  Result<DriverBuilds> load(const std::string& text) {
    std::ofstream(dir_ / "drivers.yaml") << text;
    return load_driver_builds(dir_ / "drivers.yaml");
  }
  std::string error(const std::string& text) {
    auto loaded = load(text);
    EXPECT_FALSE(loaded.has_value());
    if (loaded) return "";
    EXPECT_EQ(loaded.error().kind, ErrorKind::BadInput);
    const std::string prefix = (dir_ / "drivers.yaml").string() + ":";
    EXPECT_EQ(loaded.error().message.rfind(prefix, 0), 0u) << loaded.error().message;
    return loaded.error().message.substr(prefix.size());
  }
  const test_support::ScratchDir scratch_{"drivers"};
  const fs::path dir_ = scratch_.path();
};

constexpr const char* kTwoBuilds = R"(- name: mesa-22.3.6
  identity: {gl_version: 'Mesa 22\.3\.6\b', mapped: [libvulkan_lvp.so]}
- name: mesa-25.0.7
  egl_vendor_file: egl.json
  vulkan_icd_file: icd.json
  library_path: [root/lib]
  environment: {LIBGL_DRIVERS_PATH: '{dir}/root/lib/dri'}
  identity:
    gl_version: 'Mesa 25\.0\.7\b'
    gl_renderer: '^zink'
    mapped: [libvulkan_lvp.so, libEGL_mesa.so.0]
)";

// Check that each build's paths are made absolute from the file's folder, {dir} expanded.
TEST_F(DriversFile, BuildsReadWithTheirPathsBesideTheFile) {
  auto builds = load(kTwoBuilds);
  ASSERT_TRUE(builds) << builds.error().message;
  ASSERT_EQ(builds->builds.size(), 2u);
  const DriverBuild* system = builds->find("mesa-22.3.6");
  ASSERT_NE(system, nullptr);
  EXPECT_FALSE(system->egl_vendor_file);
  EXPECT_TRUE(system->library_path.empty());
  const DriverBuild* newer = builds->find("mesa-25.0.7");
  ASSERT_NE(newer, nullptr);
  EXPECT_EQ(*newer->egl_vendor_file, dir_ / "egl.json");
  EXPECT_EQ(*newer->vulkan_icd_file, dir_ / "icd.json");
  ASSERT_EQ(newer->library_path.size(), 1u);
  EXPECT_EQ(newer->library_path[0], dir_ / "root/lib");
  ASSERT_EQ(newer->environment.size(), 1u);
  EXPECT_EQ(newer->environment[0].second, (dir_ / "root/lib/dri").string());
  EXPECT_EQ(newer->identity.mapped, (std::vector<std::string>{"libvulkan_lvp.so", "libEGL_mesa.so.0"}));
  EXPECT_EQ(newer->where.line, 3);
  EXPECT_EQ(builds->find("nope"), nullptr);
}

// Check that what a user gets wrong is named at its place.
TEST_F(DriversFile, BadEntriesAreNamedAtTheirPlace) {
  EXPECT_EQ(error(""), "1:1: expected a list of driver builds, found an empty file");
  EXPECT_EQ(
      error("- name: a\n  identity: {gl_version: x}\n- name: a\n  identity: {gl_version: y}\n"),
      "3:3: expected a build name used once, found 'a' again (first at " + (dir_ / "drivers.yaml").string() + ":1:3)");
  EXPECT_EQ(error("- name: A b\n  identity: {gl_version: x}\n"),
            "1:9: expected a build name of lower-case letters, digits and '.-+_' (such as mesa-25.0.7), found 'A b'");
  EXPECT_EQ(error("- name: a\n"), "1:3: expected field 'identity' in a driver build, found none");
  EXPECT_EQ(error("- name: a\n  identity: {}\n"),
            "2:13: expected at least one of gl_version, gl_renderer, vulkan_driver or mapped (a build must be told "
            "apart), found none");
  EXPECT_EQ(error("- name: a\n  identity: {gl_version: '('}\n").substr(0, 60),
            "2:26: expected a pattern for GL_VERSION (an RE2 regular expr");
  EXPECT_EQ(error("- name: a\n  identity: {mapped: [lib/x.so]}\n"),
            "2:23: expected a library file name without a folder, such as libvulkan_lvp.so, found 'lib/x.so'");
  EXPECT_EQ(error("- name: a\n  egl_vendor_file: missing.json\n  identity: {gl_version: x}\n").substr(0, 60),
            "2:20: expected an EGL vendor file, an existing file, found '");
  EXPECT_EQ(error("- name: a\n  library_path: [nowhere]\n  identity: {gl_version: x}\n").substr(0, 55),
            "2:18: expected an existing library folder, found 'nowhe");
  EXPECT_EQ(error("- name: a\n  environment: {LD_LIBRARY_PATH: /x}\n  identity: {gl_version: x}\n").substr(0, 50),
            "2:17: expected a variable the entry's own keys do ");
  EXPECT_EQ(error("- name: a\n  identity: {gl_version: x}\n  colour: red\n").substr(0, 40),
            "3:3: expected one of name, description, ");
}

// Check that an identity pattern is bounded before it is compiled (30 000 parentheses deep
// overflowed std::regex's recursion: SIGSEGV), that a pattern that does not compile is refused at
// load, never when the run checks the identity, and that a pattern std::regex backtracked on for
// over 20 s is judged at once.
TEST_F(DriversFile, IdentityPatternsAreBoundedAndJudgedInLinearTime) {
  const std::string deep = std::string(30000, '(') + std::string(30000, ')');
  EXPECT_EQ(error("- name: a\n  identity: {gl_version: '" + deep + "'}\n"),
            "2:26: expected a pattern for GL_VERSION (an RE2 regular expression) of at most 1024 characters, "
            "found 60000 characters");
  EXPECT_TRUE(
      load("- name: a\n  identity: {gl_version: '" + std::string(100, '(') + "x" + std::string(100, ')') + "'}\n"));
  EXPECT_EQ(error("- name: a\n  identity: {vulkan_driver: 'a{2,1}'}\n").substr(0, 71),
            "2:29: expected a pattern for the Vulkan driver's name, version text and");
  auto builds = load("- name: a\n  identity: {gl_renderer: '(.+)+x', gl_version: '(a|a)*x'}\n");
  ASSERT_TRUE(builds);
  const std::string renderer =
      "zink Vulkan 1.4(llvmpipe (LLVM 15.0.6, 256 bits) (MESA_LLVMPIPE)) " + std::string(40, 'a');
  const auto started = std::chrono::steady_clock::now();
  auto refused = check_identity(builds->builds.front(), {.reader = "a test",
                                                         .gl_version = std::string(60, 'a'),
                                                         .gl_renderer = renderer,
                                                         .vulkan_driver = {},
                                                         .mapped = {},
                                                         .loaded_whole_driver = true});
  EXPECT_FALSE(refused);
  // Not a timing assertion of speed: std::regex took over 20 s here; a bound of 5 s tells the two apart.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

// Check that a build's server is read with its command, environment, host build and client
// variable, and that what is wrong in it is named at its place.
TEST_F(DriversFile, AServerIsReadAndItsMistakesNamedAtTheirPlace) {
  auto builds = load(
      "- name: virgl\n  server:\n    command: [virgl_test_server, '--socket-path={socket}', '{dir}/x']\n"
      "    environment: {GALLIUM_DRIVER: zink}\n    build: host\n    client_variable: VTEST_SOCKET_NAME\n"
      "    ready_within_ms: 5000\n  identity: {gl_renderer: '^virgl'}\n- name: host\n  identity: {gl_version: x}\n");
  ASSERT_TRUE(builds) << builds.error().message;
  const DriverServer& server = *builds->builds.front().server;
  EXPECT_EQ(server.command,
            (std::vector<std::string>{"virgl_test_server", "--socket-path={socket}", (dir_ / "x").string()}));
  EXPECT_EQ(server.environment, (std::vector<std::pair<std::string, std::string>>{{"GALLIUM_DRIVER", "zink"}}));
  EXPECT_EQ(server.build, "host");
  EXPECT_EQ(server.client_variable, "VTEST_SOCKET_NAME");
  EXPECT_EQ(server.ready_within, std::chrono::milliseconds(5000));
  const std::string head = "- name: v\n  identity: {gl_renderer: x}\n  server:\n";
  EXPECT_EQ(error(head + "    command: [virgl_test_server]\n    client_variable: V\n"),
            "4:14: expected a command naming the socket it must listen on ({socket}), found none of its words does");
  EXPECT_EQ(error(head + "    command: ['{socket}']\n"),
            "4:5: expected one of client_variable (the client's variable naming the socket) or client_socket (the "
            "fixed path the client connects to), found neither");
  EXPECT_EQ(error(head + "    command: ['{socket}']\n    client_socket: .virgl_test\n"),
            "5:20: expected an absolute socket path under 108 bytes, found '.virgl_test'");
  auto fixed = load(head + "    command: ['{socket}']\n    client_socket: /tmp/.virgl_test\n");
  ASSERT_TRUE(fixed) << fixed.error().message;
  EXPECT_EQ(fixed->builds.front().server->client_socket, "/tmp/.virgl_test");
  EXPECT_EQ(error(head + "    command: ['{socket}']\n    client_variable: V\n    ready_within_ms: 0\n").substr(0, 24),
            "6:22: expected an intege");
  EXPECT_EQ(error(head + "    command: ['{socket}']\n    client_variable: 'A B'\n"),
            "5:22: expected an environment variable name, found 'A B'");
}

// Check that `{dir}` is expanded in one pass: a million of them (5 MB) load at once, and a
// value that would pass its bound once expanded is refused before it is built.
TEST_F(DriversFile, DirExpansionIsLinearAndBoundedBeforeItIsBuilt) {
  std::string many;
  for (int k = 0; k < 500; ++k) many += "{dir}:";  // within the bound for a folder path of up to 64 bytes
  auto builds = load("- name: a\n  environment: {DIRS: '" + many + "'}\n  identity: {gl_version: x}\n");
  ASSERT_TRUE(builds) << builds.error().message;
  const std::string value = builds->builds[0].environment[0].second;
  EXPECT_EQ(value.size(), 500 * (dir_.string().size() + 1));
  EXPECT_EQ(value.substr(0, dir_.string().size() + 1), dir_.string() + ":");

  std::string million;
  million.reserve(5'000'000);
  for (int k = 0; k < 1'000'000; ++k) million += "{dir}";
  const auto started = std::chrono::steady_clock::now();
  const std::string refused =
      error("- name: a\n  environment: {DIRS: '" + million + "'}\n  identity: {gl_version: x}\n");
  EXPECT_EQ(refused,
            fmt::format("2:23: expected a value of DIRS of at most {} bytes with {{dir}} expanded, found {} bytes",
                        kMaxEnvironmentEntryBytes - 5, 1'000'000 * dir_.string().size()));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(error("- name: a\n  library_path: ['" + million + "']\n  identity: {gl_version: x}\n").substr(0, 45),
            "2:18: expected a path of at most 4096 bytes w");
}

// Check that what a build puts in the environment is bounded at load (file:line:column), where an
// exec would fail with "Argument list too long" (exit 4, after the expansion).
TEST_F(DriversFile, EnvironmentsOverTheKernelsBoundsAreRefusedAtLoad) {
  const std::string big(130 << 10, 'x');
  EXPECT_EQ(error("- name: a\n  environment: {BIG: " + big + "}\n  identity: {gl_version: x}\n"),
            fmt::format("2:22: expected a value of BIG of at most {} bytes with {{dir}} expanded, found {} bytes",
                        kMaxEnvironmentEntryBytes - 4, big.size()));
  std::string many_values;
  const std::string value(30 << 10, 'v');
  for (int k = 0; k < 9; ++k) many_values += fmt::format("    V{}: {}\n", k, value);
  EXPECT_EQ(error("- name: a\n  environment:\n" + many_values + "  identity: {gl_version: x}\n").substr(0, 65),
            fmt::format("1:3: expected a build whose environment is at most {} bytes i", kMaxBuildEnvironmentBytes));
  EXPECT_EQ(error("- name: a\n  environment: {" + std::string(300, 'N') + ": x}\n  identity: {gl_version: x}\n")
                .substr(0, 71),
            "2:17: expected an environment variable name ([A-Za-z_][A-Za-z0-9_]*) of");
}

// Check that what a server's exec would fail on is refused at load (file:line:column), not when a
// run starts it: an empty word, a NUL in any text, a command or environment past the kernel's
// bounds, and a host build the file lacks.
TEST_F(DriversFile, AServerItsExecWouldRefuseIsRefusedAtLoad) {
  auto with_server = [](const std::string& server) {
    return "- name: a\n  identity: {gl_version: x}\n  server:\n" + server;
  };
  const std::string socket = "    client_variable: VTEST_SOCKET_NAME\n";
  EXPECT_EQ(error(with_server("    command: ['', '{socket}']\n" + socket)),
            "4:15: expected a word of the server's command, not empty, found ''");
  EXPECT_EQ(error(with_server("    command: [s, '{socket}']\n    client_socket: \"/tmp/a\\0b\"\n")),
            "5:20: expected the fixed socket path the client connects to without a NUL character, found one at "
            "byte 6 of '/tmp/a'");
  EXPECT_EQ(error(with_server("    command: [s, \"{socket}\\0\"]\n" + socket)).substr(0, 62),
            "4:18: expected a word of the command without a NUL character, ");
  std::string words;
  const std::string word(30 << 10, 'w');
  for (int k = 0; k < 9; ++k) words += word + ", ";
  EXPECT_EQ(error(with_server("    command: [" + words + "'{socket}']\n" + socket)).substr(0, 61),
            "4:5: expected a server whose command and environment are at m");
  std::string values;
  for (int k = 0; k < 9; ++k) values += fmt::format("V{}: {}, ", k, word);
  EXPECT_EQ(
      error(with_server("    command: [s, '{socket}']\n    environment: {" + values + "}\n" + socket)).substr(0, 40),
      "4:5: expected a server whose command and");
  EXPECT_EQ(error(with_server("    command: [s, '{socket}']\n    build: nosuch\n" + socket)),
            "5:12: expected the build the server renders with, one of this file's (a), found 'nosuch'");
}

// Check that a build's environment replaces every driver variable of the caller's, so nothing
// of another build (or of the caller's own choice) reaches its run.
TEST_F(DriversFile, ABuildsEnvironmentReplacesEveryDriverVariable) {
  auto builds = load(kTwoBuilds);
  ASSERT_TRUE(builds);
  const std::vector<std::string> current = {"HOME=/root",
                                            "LD_LIBRARY_PATH=/elsewhere",
                                            "VK_ICD_FILENAMES=/other/icd.json",
                                            "__EGL_VENDOR_LIBRARY_DIRS=/x",
                                            "TIDEMARK_DRIVER=old",
                                            "LIBGL_DRIVERS_PATH=/old/dri"};
  const auto newer = environment_for(*builds, *builds->find("mesa-25.0.7"), current);
  const std::vector<std::string> expected_newer = {"HOME=/root",
                                                   "LD_LIBRARY_PATH=" + (dir_ / "root/lib").string(),
                                                   "__EGL_VENDOR_LIBRARY_FILENAMES=" + (dir_ / "egl.json").string(),
                                                   "VK_DRIVER_FILES=" + (dir_ / "icd.json").string(),
                                                   "LIBGL_DRIVERS_PATH=" + (dir_ / "root/lib/dri").string(),
                                                   "TIDEMARK_DRIVER=mesa-25.0.7",
                                                   "TIDEMARK_DRIVERS_FILE=" + (dir_ / "drivers.yaml").string()};
  EXPECT_EQ(newer, expected_newer);
  const auto system = environment_for(*builds, *builds->find("mesa-22.3.6"), current);
  const std::vector<std::string> expected_system = {"HOME=/root", "TIDEMARK_DRIVER=mesa-22.3.6",
                                                    "TIDEMARK_DRIVERS_FILE=" + (dir_ / "drivers.yaml").string()};
  EXPECT_EQ(system, expected_system);
}

// Check the identity: the strings by pattern, and each library mapped once, from the build's folders.
TEST_F(DriversFile, TheIdentityHoldsOnlyForTheBuildNamed) {
  auto builds = load(kTwoBuilds);
  ASSERT_TRUE(builds);
  const DriverBuild& newer = *builds->find("mesa-25.0.7");
  const DriverBuild& system = *builds->find("mesa-22.3.6");
  const fs::path lib = dir_ / "root/lib";
  Reported ok{
      .gl_version = "OpenGL ES 3.2 Mesa 25.0.7-2~bpo12+1",
      .gl_renderer = "zink Vulkan 1.4(llvmpipe (LLVM 15.0.6, 256 bits) (MESA_LLVMPIPE))",
      .mapped = {"/usr/lib/x86_64-linux-gnu/libc.so.6", lib / "libvulkan_lvp.so", lib / "libEGL_mesa.so.0.0.0"}};
  EXPECT_TRUE(check_identity(newer, ok)) << check_identity(newer, ok).error().message;

  // The newer Zink over the system's lavapipe: the mixed stack.
  Reported mixed = ok;
  mixed.mapped = {"/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so", lib / "libEGL_mesa.so.0.0.0"};
  auto refused = check_identity(newer, mixed);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::Environment);
  EXPECT_NE(refused.error().message.find("libvulkan_lvp.so mapped from " + lib.string()), std::string::npos);
  EXPECT_NE(refused.error().message.find("found GL_VERSION 'OpenGL ES 3.2 Mesa 25.0.7-2~bpo12+1', GL_RENDERER"),
            std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("libvulkan_lvp.so from /usr/lib/x86_64-linux-gnu"), std::string::npos);

  // Two lavapipes at once (an ICD of another build added beside the named one).
  Reported both = ok;
  both.mapped.push_back("/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so");
  EXPECT_FALSE(check_identity(newer, both));

  // The Vulkan driver the layer read, held to its pattern when the build names one.
  DriverBuild by_vulkan = newer;
  by_vulkan.identity.vulkan_driver = "^llvmpipe Mesa 25\\.0\\.7";
  Reported vulkan = ok;
  vulkan.vulkan_driver = "llvmpipe Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) (llvmpipe (LLVM 15.0.6, 256 bits))";
  EXPECT_TRUE(check_identity(by_vulkan, vulkan));
  vulkan.vulkan_driver = "llvmpipe Mesa 22.3.6 (LLVM 15.0.6) (llvmpipe (LLVM 15.0.6, 256 bits))";
  auto other_vulkan = check_identity(by_vulkan, vulkan);
  ASSERT_FALSE(other_vulkan);
  EXPECT_NE(other_vulkan.error().message.find("the Vulkan driver 'llvmpipe Mesa 22.3.6"), std::string::npos)
      << other_vulkan.error().message;

  // The system's build: its strings, and libraries from the system's folders only.
  Reported older{.gl_version = "OpenGL ES 3.2 Mesa 22.3.6",
                 .gl_renderer = "zink (llvmpipe (LLVM 15.0.6, 256 bits))",
                 .mapped = {"/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"}};
  EXPECT_TRUE(check_identity(system, older));
  EXPECT_FALSE(check_identity(system, ok));    // 25.0.7's version string
  EXPECT_FALSE(check_identity(newer, older));  // and the other way round
  Reported none = older;
  none.mapped.clear();
  auto unmapped = check_identity(system, none);
  ASSERT_FALSE(unmapped);
  EXPECT_NE(unmapped.error().message.find("libvulkan_lvp.so not mapped"), std::string::npos);
}

// Check that a field the reader cannot read is refused, never skipped, and that a process that
// loaded only part of the driver is held to the libraries it mapped.
TEST_F(DriversFile, AFieldNotReadIsRefusedAndAPartOfTheDriverIsHeldToWhatItMapped) {
  auto builds = load(kTwoBuilds);
  ASSERT_TRUE(builds);
  DriverBuild newer = *builds->find("mesa-25.0.7");
  newer.identity.vulkan_driver = "^llvmpipe Mesa 25\\.0\\.7";
  const fs::path lib = dir_ / "root/lib";
  Reported replay{.reader = "the replay's process 12 (gfxrecon-replay)",
                  .gl_version = {},
                  .gl_renderer = {},
                  .vulkan_driver = "llvmpipe Mesa 25.0.7 (LLVM 15.0.6) (llvmpipe)",
                  .mapped = {lib / "libvulkan_lvp.so"},
                  .loaded_whole_driver = false};
  auto unread = check_identity(newer, replay);
  ASSERT_FALSE(unread);
  EXPECT_EQ(unread.error().kind, ErrorKind::Environment);
  EXPECT_NE(unread.error().message.find("names gl_version (GL_VERSION), which the replay's process 12 "
                                        "(gfxrecon-replay) cannot read: refused rather than left unchecked"),
            std::string::npos)
      << unread.error().message;

  DriverBuild vulkan_half = newer;
  vulkan_half.identity.gl_version.reset();
  vulkan_half.identity.gl_renderer.reset();
  EXPECT_TRUE(check_identity(vulkan_half, replay));  // libEGL_mesa is not in a Vulkan program
  Reported system_lavapipe = replay;
  system_lavapipe.mapped = {"/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"};
  auto elsewhere = check_identity(vulkan_half, system_lavapipe);
  ASSERT_FALSE(elsewhere);
  EXPECT_NE(elsewhere.error().message.find("libvulkan_lvp.so from /usr/lib/x86_64-linux-gnu (read by the replay's"),
            std::string::npos)
      << elsewhere.error().message;
  Reported whole = replay;
  whole.loaded_whole_driver = true;  // a GL program must have mapped libEGL_mesa too
  EXPECT_FALSE(check_identity(vulkan_half, whole));
}

// Check that this process's own mappings are read (the C library is always among them).
TEST(MappedFiles, IncludeTheCLibrary) {
  const auto files = mapped_files();
  EXPECT_TRUE(std::any_of(files.begin(), files.end(),
                          [](const fs::path& f) { return f.filename().string().starts_with("libc.so"); }));
}

}  // namespace
}  // namespace tidemark::drivers
