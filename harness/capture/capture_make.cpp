#include "capture/capture_make.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/capture_subject.h"
#include "runner/verbs/red_once.h"
#include "core/files.h"
#include "core/temporaries.h"
#include "core/process.h"
#include "report/run_record.h"

namespace tidemark::capture {

namespace fs = std::filesystem;

namespace {

// What to install when a capture tool cannot be started.
std::string_view install_hint(std::string_view tool) {
  return tool == "apitrace"                     ? " (install apitrace)"
         : tool == "gfxrecon-capture-vulkan.py" ? " (install gfxreconstruct)"
                                                : "";
}

}  // namespace

namespace {
Result<MadeCapture> capture_and_measure(const MakeOptions& options);
}  // namespace

Result<MadeCapture> make_capture(const MakeOptions& options) {
  auto made = capture_and_measure(options);
  // One that failed on a full device keeps nothing of it: its log and trace are cut short.
  if (!made && full_device_error(options.out)) {
    std::error_code ignored;
    for (const char* suffix : {".capture.log", ".trace", ".gfxr"})
      fs::remove(options.out / (options.name + suffix), ignored);
  }
  return made;
}

namespace {
Result<MadeCapture> capture_and_measure(const MakeOptions& options) {
  TIDEMARK_CHECK(check_fixture_name(options.name, "--name"));
  TIDEMARK_CHECK(check_fixture_name(options.group, "--group"));
  if (options.command.empty()) return fail(ErrorKind::BadInput, "capture: expected a program after --, found none");
  MadeCapture made;
  made.capture =
      fs::absolute(options.out / (options.name + (options.kind == CaptureKind::Apitrace ? ".trace" : ".gfxr")));
  made.fixture = fs::absolute(options.out / (options.name + std::string(kCaptureSuffix)));
  // The replays' work folder is this run's own: one there already (another run's, or the
  // user's) is refused, never removed, and this run removes the one it made on every way out.
  const fs::path scratch = fs::absolute(options.out / (options.name + ".measure"));
  std::error_code ec;
  for (const auto& taken : {made.fixture, made.capture, scratch})
    if (fs::exists(fs::symlink_status(taken, ec)))
      return fail(ErrorKind::BadInput,
                  fmt::format("capture: {} is there already: choose another --name or remove it", taken.string()));
  TIDEMARK_CHECK(make_directories(options.out));
  if (!fs::create_directory(scratch, ec))
    return fail(ErrorKind::Io, fmt::format("capture: cannot make {}: {}", scratch.string(),
                                           ec ? ec.message() : "something else made it first"));
  const TemporaryFolder made_here = TemporaryFolder::adopt(scratch);  // however the run ends, a signal's included

  // The program under the driver settings its replay will have: Zink on lavapipe, one driver thread, no shader cache.
  std::vector<std::string> tool;
  std::vector<std::pair<std::string, std::string>> environment = {{"LP_NUM_THREADS", "0"}};
  if (options.kind == CaptureKind::Apitrace) {
    tool = {"apitrace", "trace", "--api", "egl", "-o", made.capture.string()};
    environment.insert(environment.end(), {{"LIBGL_ALWAYS_SOFTWARE", "1"},
                                           {"GALLIUM_DRIVER", "zink"},
                                           {"GALLIUM_THREAD", "0"},
                                           {"MESA_SHADER_CACHE_DISABLE", "true"}});
  } else {
    tool = {"gfxrecon-capture-vulkan.py", "--no-file-timestamp", "-o", made.capture.string()};
  }
  tool.insert(tool.end(), options.command.begin(), options.command.end());
  const fs::path log = options.out / (options.name + ".capture.log");
  TIDEMARK_TRY(code, run_to_file(tool, environment, log, install_hint(tool.front()), kLogKept));
  if (code != 0 || !fs::is_regular_file(made.capture, ec)) {
    if (auto full = full_device_error(options.out, log)) return std::unexpected(std::move(*full));
    return fail(ErrorKind::Environment, fmt::format("capture: '{}' under {} exited {} (its output: {})",
                                                    options.command[0], tool[0], code, log.string()));
  }

  // Replayed once, bounds as measured; then the fixture must load, be green and have its controls red.
  auto write_fixture = [&](const std::vector<std::string>& bounds, const std::vector<Control>& controls) {
    return write_file_atomically(
        made.fixture,
        fixture_text({.comment = {fmt::format("{} captured by {} (tidemark capture); its bounds are what its replay "
                                              "measured.",
                                              fmt::join(options.command, " "), tool[0])},
                      .name = options.name,
                      .group = options.group,
                      .capture = made.capture.filename().string(),
                      .expect = bounds,
                      .whole = {},
                      .controls = controls}));
  };
  TIDEMARK_CHECK(write_fixture({"vksubmits >= 0"}, {}));
  TIDEMARK_TRY(probe, load_capture_fixture(made.fixture));
  TIDEMARK_TRY(measured, run_capture(probe, {.report_dir = scratch, .layer_dir = options.layer_dir}));
  if (measured.verdict != report::Verdict::Green) {
    fs::remove(made.fixture, ec);
    return fail(ErrorKind::Environment, fmt::format("capture: the replay of {} is {}: {}", made.capture.string(),
                                                    report::verdict_label(measured.verdict), measured.why));
  }
  auto gauge = [&](const char* name) { return report::gauge_value(measured, name).value_or(0); };
  made.bounds = {fmt::format("vkbufspk <= {}", gauge("vkbufspk")), fmt::format("vkbytespk <= {}", gauge("vkbytespk")),
                 fmt::format("vkallocspk <= {}", gauge("vkallocspk"))};
  // Controls are what a fault measurably does to this replay: the checks it makes red, or the
  // replay it makes fail. A driver that keeps a copy of every buffer and allocation (the peaks);
  // one that never frees, when the program destroys buffers; one that refuses the first
  // allocation, when it allocates.
  std::vector<std::string> faults;
  if (gauge("vkbufsmade") > 0 || gauge("vkallocsmade") > 0) faults.push_back("shadow_copies");
  if (gauge("vkbufsmade") > 0 && gauge("vkbufs") == 0) made.bounds.push_back("vkbufs == 0");
  if (gauge("vkbufsmade") > gauge("vkbufs")) faults.push_back("hold_frees");
  if (gauge("vkallocsmade") > 0 && gauge("vkrefused") == 0) {
    made.bounds.push_back("vkrefused == 0");
    faults.push_back("fail_allocation=1");
  }
  std::vector<Control> tried;
  for (const auto& fault : faults) tried.push_back({.fault = fault, .build = {}, .cut = {}, .fails = {}, .where = {}});
  // An "at least" bound, of an apitrace capture: more made than its setup calls alone make, so
  // a replay that skipped the capture's work (a replayer, or bytes, that replayed nothing of it)
  // is red. Its control is that replay, the setup alone; a GFXReconstruct capture has no cut.
  if (options.kind == CaptureKind::Apitrace) {
    TIDEMARK_TRY(setup_alone, run_capture(probe, {.variant = {.cut = std::string(kSetupCut)},
                                                  .report_dir = scratch,
                                                  .layer_dir = options.layer_dir}));
    for (const char* name : {"vkbufsmade", "vksubmits", "vkallocsmade"}) {
      const int64_t alone = report::gauge_value(setup_alone, name).value_or(0);
      if (gauge(name) <= alone) continue;
      made.bounds.push_back(fmt::format("{} > {}", name, alone));
      tried.push_back({.fault = {}, .build = {}, .cut = std::string(kSetupCut), .fails = {}, .where = {}});
      break;
    }
  }
  TIDEMARK_CHECK(write_fixture(made.bounds, {}));
  TIDEMARK_TRY(bounded, load_capture_fixture(made.fixture));
  std::vector<Control> controls;
  for (Control control : tried) {
    TIDEMARK_TRY(under, run_capture(bounded, {.variant = {.fault = control.fault, .cut = control.cut},
                                              .report_dir = scratch,
                                              .layer_dir = options.layer_dir}));
    if (under.verdict == report::Verdict::CouldNotRun)  // a replay that failed: its checks judged nothing
      control.fails.emplace_back(kReplayFails);
    else
      for (const auto& check : under.checks)
        if (!check.passed && std::find(control.fails.begin(), control.fails.end(), check.check) == control.fails.end())
          control.fails.push_back(check.check);
    if (!control.fails.empty()) controls.push_back(std::move(control));
  }
  fs::remove_all(scratch, ec);
  // A refused allocation the replayer does not survive is the replay's check: `vkrefused == 0`
  // could then never be red alone, so it is not kept. Any other bound no fault made red is
  // left to the user, as a check nothing turns red proves nothing.
  auto named = [&](const std::string& bound) {
    return std::any_of(controls.begin(), controls.end(), [&](const Control& c) {
      return std::find(c.fails.begin(), c.fails.end(), bound) != c.fails.end();
    });
  };
  std::erase_if(made.bounds, [&](const std::string& bound) { return bound == "vkrefused == 0" && !named(bound); });
  TIDEMARK_CHECK(write_fixture(made.bounds, controls));
  for (const auto& bound : made.bounds)
    if (!named(bound))
      return fail(ErrorKind::Environment,
                  fmt::format("capture: no control made `{}` red: {} is left for you to give it a control", bound,
                              made.fixture.string()));
  TIDEMARK_TRY(fixture, load_capture_fixture(made.fixture));
  runner::RedOnceOptions proving;
  proving.run.report_dir = scratch;
  proving.run.layer_dir = options.layer_dir;
  TIDEMARK_TRY(red_once, runner::red_once(CaptureSubject(fixture), proving));
  fs::remove_all(scratch, ec);
  for (const auto& control : fixture.controls) {
    auto run = std::find_if(red_once.runs.begin(), red_once.runs.end(),
                            [&](const auto& each) { return each.control == control.describe(); });
    if (run == red_once.runs.end() || run->effect != runner::ControlRun::Effect::RedAsNamed)
      return fail(ErrorKind::Environment,
                  fmt::format("capture: {} did not make {} red ({}): {} is left for you to give a control",
                              control.describe(), fmt::join(control.fails, ", "),
                              run == red_once.runs.end() ? "it did not run" : run->detail, made.fixture.string()));
    made.controls.push_back(fmt::format("{} fails {}", control.fault.empty() ? control.describe() : control.fault,
                                        fmt::join(control.fails, ", ")));
  }
  return made;
}

}  // namespace

}  // namespace tidemark::capture
