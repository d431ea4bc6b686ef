// Private to the gl backend: an EGL display on the surfaceless platform (no window system), a
// GLES 3 context made current, and a 1x1 pbuffer whose swap is the frame boundary; RAII. The
// driver is chosen before EGL loads it (GL_DRIVER_* below), with its threads and shader disk
// cache off so that what it does is the same on every run.
#pragma once

#include <EGL/egl.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark::backend_gl {

enum class GlDriver {
  Zink,      // Mesa's GL on Vulkan (lavapipe beneath): the stack under test, the layer between
  Llvmpipe,  // Mesa's GL on the CPU, no Vulkan: the control for pixels
  Native,    // whatever EGL vendor the environment names (__EGL_VENDOR_LIBRARY_FILENAMES): yours
  // The client of a driver build with a renderer server (virgl's virpipe): the Gallium driver the
  // build names, deterministic as Zink is; its Vulkan is in the server's process.
  ServerClient,
};
const char* driver_name(GlDriver driver);

class EglContext {
 public:
  // `layer`: VK_LAYER_TIDEMARK_observe goes into the driver's Vulkan instance. `notes` gets one
  // line per setting made.
  static Result<EglContext> open(GlDriver driver, bool layer, std::vector<std::string>& notes);
  EglContext(EglContext&& other) noexcept;
  EglContext& operator=(EglContext&&) = delete;
  ~EglContext();
  // The frame boundary: the pbuffer's swap (the driver's own end of frame), or glFlush where
  // the driver gives no pbuffer.
  void swap();
  std::string renderer() const;
  std::string version() const;

 private:
  EglContext() = default;
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  EGLSurface pbuffer_ = EGL_NO_SURFACE;
};

}  // namespace tidemark::backend_gl
