#include "session/builtin_backends.h"

#include "backend/vulkan_backend.h"
#include "backend_gl/gl_backend.h"

namespace tidemark::session {

const api::BackendRegistry& builtin_backends() {
  static const api::BackendRegistry registry = [] {
    api::BackendRegistry backends;
    backends.add({"vulkan",
                  "the reclaim model on a Vulkan device (Mesa lavapipe)",
                  {GaugeKind::Device, GaugeKind::Reclaim},
                  backend::create_vulkan_device});
    backend_gl::add_gl_backends(backends);
    return backends;
  }();
  return registry;
}

}  // namespace tidemark::session
