#include "session/builtin_backends.h"

#include "backend/device.h"
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
    backends.identity_probe = []() -> Result<api::Device::Identity> {
      TIDEMARK_TRY(identity, backend_gl::read_gl_strings());
      TIDEMARK_TRY(device, backend::Device::create(false));
      identity.vulkan_driver = device->driver_text();
      return identity;
    };
    return backends;
  }();
  return registry;
}

}  // namespace tidemark::session
