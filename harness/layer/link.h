// The host's side of VK_LAYER_TIDEMARK_observe in its own process: open the layer's library
// before any Vulkan instance loads it (the loader's own dlopen of that file then finds this
// copy), attach a sink for the devices made while attached, and read the layer's gauges.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/gauges.h"
#include "layer/tidemark_layer.h"

namespace tidemark::layer {

// Where the layer's library and manifest are: TIDEMARK_LAYER_DIR, else found from this program's
// own folder (<folder>/layer in a build tree, <folder>/../lib/tidemark/layer when installed).
std::filesystem::path layer_dir();

// Makes the layer findable by the Vulkan loader of this process (VK_ADD_LAYER_PATH gains its
// folder); it stays off until an instance or VK_INSTANCE_LAYERS names it. Call before any
// thread starts: it sets the environment.
void make_discoverable();

class Library {
 public:
  static Result<Library> open(const std::filesystem::path& dir = layer_dir());
  PFN_tidemarkLayerAttach attach = nullptr;
  PFN_tidemarkLayerDetach detach = nullptr;
  PFN_tidemarkLayerGauges gauges = nullptr;
  PFN_tidemarkLayerDriver driver = nullptr;      // null: a layer older than the entry
  PFN_tidemarkLayerActivity activity = nullptr;  // likewise

 private:
  struct Close {
    void operator()(void* handle) const;
  };
  std::unique_ptr<void, Close> handle_;
};

// The layer's counts under the gauge catalogue's names (the claim fields stay 0: the host's).
ObservedGauges to_observed(const TidemarkLayerGauges& gauges);

// Devices made while it lives report to its sink and run under its settings.
class Attachment {
 public:
  Attachment(Library library, const TidemarkLayerSink* sink, const TidemarkLayerSettings& settings);
  ~Attachment();
  Attachment(const Attachment&) = delete;
  Attachment& operator=(const Attachment&) = delete;
  TidemarkLayerGauges gauges() const;
  uint32_t devices() const;
  // The Vulkan driver beneath its first device, as "driverName driverInfo (deviceName)"; empty
  // when no device was made yet or the layer cannot say.
  std::string driver() const;

 private:
  Library library_;
  uint64_t id_ = 0;
};

}  // namespace tidemark::layer
