// A real program's capture as a fixture: NAME.capture.yaml beside an apitrace (.trace) or
// GFXReconstruct (.gfxr) capture, naming the checks its replay is held to and the controls that
// prove them; the replayer follows from the capture's type. captures/README.md shows the file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "scenario/gauge_bounds.h"

namespace tidemark::capture {

enum class CaptureKind { Apitrace, Gfxr };
std::string_view kind_name(CaptureKind kind);  // "apitrace", "gfxreconstruct"

// A capture fixture's file name ends so; scenario folders skip such files.
inline constexpr std::string_view kCaptureSuffix = ".capture.yaml";
bool is_capture_fixture(const std::filesystem::path& file);

// A name a command gives a capture fixture (--name, --group), checked before anything is made
// after it (its files, its work folder): kebab case of at most kMaxNameLength characters, so
// never a path. Bad input after `option` otherwise.
Status check_fixture_name(std::string_view name, std::string_view option);

// "replay": the control makes the replay itself fail (the replayer exits non-zero).
inline constexpr std::string_view kReplayFails = "replay";

// A control's cut of an apitrace capture: its setup calls alone (trace_calls.h's units), the
// replay a replayer that skipped the capture's work would make. It proves an "at least" bound.
inline constexpr std::string_view kSetupCut = "setup";

// A control is a layer fault, a driver build (of the drivers files) or a cut of the capture under
// which the checks it names must be red: a driver known to have the defect proves the check as
// well as a fault does, and a replay of the setup alone proves a bound of what the replay did.
struct Control {
  std::string fault;  // the layer's settings text: hold_frees, never_done, shadow_copies, fail_allocation=N
  std::string build;  // or a driver build's name: mesa-22.3.6
  std::string cut;    // or kSetupCut
  std::vector<std::string> fails;  // the checks (as written) it must make red, or "replay"
  SourceLocation where;
  std::string describe() const {
    return !fault.empty() ? "fault=" + fault : !build.empty() ? "build=" + build : "replay=" + cut;
  }
};

struct CaptureFixture {
  std::filesystem::path file;  // the YAML
  std::string name, group;
  std::filesystem::path capture;  // absolute
  CaptureKind kind = CaptureKind::Apitrace;
  scenario::GaugeBounds bounds;
  std::vector<Control> controls;
  TimeBoundsOverride time_bounds;  // `timeout:`, `inactivity_timeout:` (scenario/yaml_reader.h)
  std::string id() const { return group + "/" + name; }
  // Every check as written, expect's then whole's: what controls name.
  std::vector<std::string> checks() const;
};

// A capture fixture as written: the one codec of NAME.capture.yaml's text (load_capture_fixture
// reads it back). `comment` lines open the file as comments.
struct FixtureDocument {
  std::vector<std::string> comment;
  std::string name, group;
  std::string capture;  // the capture's file name, beside the fixture
  std::vector<std::string> expect, whole;
  std::vector<Control> controls;
};
std::string fixture_text(const FixtureDocument& document);

// A command's paths, split: scenario files and folders, and the capture fixtures named or found
// under a folder (*.capture.yaml). A folder of capture fixtures only is not a scenario folder.
struct SplitInputs {
  std::vector<std::string> scenarios;
  std::vector<std::filesystem::path> captures;
};
Result<SplitInputs> split_inputs(const std::vector<std::string>& inputs);

// The backend its records and expectations lines name: gl for an apitrace, vulkan for a GFXR capture.
std::string backend_of(const CaptureFixture& fixture);
// The id of check `index` of checks(): "gauge[2]", as a scenario names its gauge checks.
std::string check_id(size_t index);
// "check[2]": how capture fixtures named their checks before they shared the scenarios' ids; still read.
std::string legacy_check_id(size_t index);

// Errors are one line, file:line:column: what was expected, what was found.
Result<CaptureFixture> load_capture_fixture(const std::filesystem::path& file);

// A command's paths: the capture fixtures among them loaded (every one before anything runs),
// and the paths left for the scenario loader.
struct Inputs {
  std::vector<std::string> scenarios;
  std::vector<CaptureFixture> captures;
};
Result<Inputs> load_inputs(const std::vector<std::string>& paths);

// The replayer's command line for the capture (absolute paths), and the environment it runs in
// (headless, Zink on lavapipe with driver threads and the shader cache off for an apitrace).
struct Replayer {
  std::vector<std::string> command;
  std::vector<std::pair<std::string, std::string>> environment;
};
Replayer replayer_for(const CaptureFixture& fixture);

}  // namespace tidemark::capture
