// `tidemark capture [--vulkan] [--out DIR] --name NAME -- CMD ARGS...`: the library
// (capture/capture_make.h) captures, measures and writes the fixture; this prints what it wrote.
#include <fmt/format.h>

#include "capture/capture_make.h"
#include "cli/commands.h"
#include "layer/link.h"

namespace tidemark::cli {

int capture_command(const CaptureArgs& args) {
  auto made = capture::make_capture({.command = args.command,
                                     .kind = args.vulkan ? capture::CaptureKind::Gfxr : capture::CaptureKind::Apitrace,
                                     .out = args.out,
                                     .name = args.name,
                                     .group = args.group,
                                     .layer_dir = layer::layer_dir()});
  if (!made) return report_error(made.error());
  fmt::print("capture: {}\nfixture: {}\n", made->capture.string(), made->fixture.string());
  for (const auto& bound : made->bounds) fmt::print("  expect {}\n", bound);
  for (const auto& control : made->controls) fmt::print("  control {} (red, as it names)\n", control);
  if (made->controls.empty()) fmt::print("  no control was proven: give it one before it counts (tidemark red-once)\n");
  return kGreen;
}

}  // namespace tidemark::cli
