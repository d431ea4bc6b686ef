#include "backend_gl/egl_context.h"

#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <utility>

#include "layer/tidemark_layer.h"

namespace tidemark::backend_gl {

namespace {

std::unexpected<Error> no_driver(std::string what) {
  return fail(ErrorKind::Environment,
              fmt::format("{} (no EGL/GLES driver: install libegl-mesa0 and libgl1-mesa-dri)", what));
}

// An environment variable set for the driver while it starts, and put back after: Zink makes
// its Vulkan instance when EGL initialises, and the process's other Vulkan instances (the
// vulkan backend's) must not get the layer from it.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedVariable() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

const char* driver_name(GlDriver driver) {
  switch (driver) {
    case GlDriver::Zink:
      return "zink";
    case GlDriver::Llvmpipe:
      return "llvmpipe";
    case GlDriver::Native:
      return "native";
    case GlDriver::ServerClient:
      return "a server's client";
  }
  return "?";
}

// Deterministic by design: Gallium's driver thread and llvmpipe's/lavapipe's rasteriser
// threads off (with them on, Zink's peak of live buffers moves from run to run), the disk
// cache off (a warm cache changes what the driver allocates), Zink's or llvmpipe's choice
// forced. Set for the process before EGL loads the driver; Mesa reads them then.
Result<EglContext> EglContext::open(GlDriver driver, bool layer, std::vector<std::string>& notes) {
  auto set = [&](const char* name, const char* value) {
    ::setenv(name, value, 1);
    notes.push_back(fmt::format("gl: {}={}", name, value));
  };
  if (driver != GlDriver::Native) {
    if (driver != GlDriver::ServerClient) set("GALLIUM_DRIVER", driver == GlDriver::Zink ? "zink" : "llvmpipe");
    set("LIBGL_ALWAYS_SOFTWARE", "1");
    set("GALLIUM_THREAD", "0");
    set("LP_NUM_THREADS", "0");
    set("MESA_SHADER_CACHE_DISABLE", "true");
    if (!std::getenv("XDG_RUNTIME_DIR")) set("XDG_RUNTIME_DIR", "/tmp");  // Mesa's drivers want one
  }
  std::optional<ScopedVariable> layers;
  if (layer) {
    std::string names = TIDEMARK_LAYER_NAME;
    if (const char* others = std::getenv("VK_INSTANCE_LAYERS"); others && *others) names.append(":").append(others);
    layers.emplace("VK_INSTANCE_LAYERS", names);
    notes.push_back(fmt::format("gl: the driver's Vulkan instance gets {}", TIDEMARK_LAYER_NAME));
  }
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_platform_display) return no_driver("EGL has no eglGetPlatformDisplayEXT");
  EglContext egl;
  egl.display_ = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (egl.display_ == EGL_NO_DISPLAY) return no_driver("EGL has no surfaceless platform");
  if (!eglInitialize(egl.display_, nullptr, nullptr)) {
    egl.display_ = EGL_NO_DISPLAY;
    return no_driver(fmt::format("eglInitialize failed (EGL error 0x{:x})", eglGetError()));
  }
  if (!eglBindAPI(EGL_OPENGL_ES_API)) return no_driver("EGL cannot bind OpenGL ES");
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE,
                                      EGL_PBUFFER_BIT,
                                      EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_ES3_BIT,
                                      EGL_RED_SIZE,
                                      8,
                                      EGL_GREEN_SIZE,
                                      8,
                                      EGL_BLUE_SIZE,
                                      8,
                                      EGL_ALPHA_SIZE,
                                      8,
                                      EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  if (!eglChooseConfig(egl.display_, config_attributes, &config, 1, &configs) || configs == 0)
    return no_driver("EGL offers no RGBA8 OpenGL ES 3 pbuffer config");
  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
  egl.context_ = eglCreateContext(egl.display_, config, EGL_NO_CONTEXT, context_attributes);
  if (egl.context_ == EGL_NO_CONTEXT)
    return no_driver(fmt::format("no OpenGL ES 3.1 context (EGL error 0x{:x})", eglGetError()));
  const EGLint pbuffer_attributes[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
  egl.pbuffer_ = eglCreatePbufferSurface(egl.display_, config, pbuffer_attributes);
  if (egl.pbuffer_ == EGL_NO_SURFACE) notes.push_back("gl: no pbuffer: a present is glFlush");
  if (!eglMakeCurrent(egl.display_, egl.pbuffer_, egl.pbuffer_, egl.context_))
    return fail(ErrorKind::Fatal, fmt::format("eglMakeCurrent failed (EGL error 0x{:x})", eglGetError()));
  notes.push_back(fmt::format("gl: {} on {}", egl.version(), egl.renderer()));
  return egl;
}

EglContext::EglContext(EglContext&& other) noexcept
    : display_(std::exchange(other.display_, EGL_NO_DISPLAY)),
      context_(std::exchange(other.context_, EGL_NO_CONTEXT)),
      pbuffer_(std::exchange(other.pbuffer_, EGL_NO_SURFACE)) {}

EglContext::~EglContext() {
  if (display_ == EGL_NO_DISPLAY) return;
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (pbuffer_ != EGL_NO_SURFACE) eglDestroySurface(display_, pbuffer_);
  if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
  eglTerminate(display_);  // the driver's screen goes: Zink destroys its Vulkan device
  eglReleaseThread();
}

void EglContext::swap() {
  if (pbuffer_ != EGL_NO_SURFACE)
    eglSwapBuffers(display_, pbuffer_);
  else
    glFlush();
}

std::string EglContext::renderer() const { return reinterpret_cast<const char*>(glGetString(GL_RENDERER)); }
std::string EglContext::version() const { return reinterpret_cast<const char*>(glGetString(GL_VERSION)); }

}  // namespace tidemark::backend_gl
