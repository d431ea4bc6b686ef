// The `gl` backends: the client API's device half on a real OpenGL ES driver through EGL
// (surfaceless, no window system). A buffer record is a GL buffer and buffer_data is
// glBufferData (the driver orphans as GL says); fences are glFenceSync / glClientWaitSync; a
// present is the driver's frame boundary. The driver reports nothing of itself: with Zink the
// Tidemark layer beneath it is its report (device gauges, memory events, submits), so the same
// kernel model, trace and checks judge it as they judge the built-in model.
#pragma once

#include <memory>

#include "api/registry.h"
#include "backend_gl/egl_context.h"

namespace tidemark::backend_gl {

// Environment errors name the missing package (libegl-mesa0, libgl1-mesa-dri).
Result<std::unique_ptr<api::Device>> create_gl_device(GlDriver driver, const api::SessionConfig& config,
                                                      const api::DeviceContext& context);

// The registry lines: gl (Zink on lavapipe), gl-llvmpipe (the pixel control), gl-native (the
// environment's own EGL vendor).
void add_gl_backends(api::BackendRegistry& registry);

// GL_VERSION and GL_RENDERER of Zink as this process's environment gives it, from a context of
// its own (EGL surfaceless, no layer) that is gone when this returns.
Result<api::Device::Identity> read_gl_strings();

}  // namespace tidemark::backend_gl
