// `tidemark capture -- CMD`: a program captured under the same deterministic driver settings its
// replay will run under (apitrace for GL on Zink, GFXReconstruct for Vulkan on lavapipe), replayed
// once under the layer to measure it, and written as a capture fixture whose bounds are what the
// replay measured: ready to be checked in, its controls proven red before it is called done.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "capture/capture_fixture.h"
#include "core/error.h"

namespace tidemark::capture {

struct MakeOptions {
  std::vector<std::string> command;  // the program and its arguments
  CaptureKind kind = CaptureKind::Apitrace;
  std::filesystem::path out;  // the folder the capture and its fixture go in
  std::string name;           // kebab case: NAME.trace / NAME.gfxr and NAME.capture.yaml
  std::string group = "captures";
  std::filesystem::path layer_dir;
};

struct MadeCapture {
  std::filesystem::path capture, fixture;
  std::vector<std::string> bounds;    // as written
  std::vector<std::string> controls;  // the faults proven red, as written
};

// Bad input: a name not in kebab case, an existing fixture of that name. Environment: the
// capturing tool is missing, the program failed, the replay made no Vulkan device.
Result<MadeCapture> make_capture(const MakeOptions& options);

}  // namespace tidemark::capture
