#include "layer/link.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "core/files.h"
#include "layer/records.h"

namespace tidemark::layer {

std::filesystem::path layer_dir() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("TIDEMARK_LAYER_DIR"); dir && *dir) return dir;
  // Found from the program itself, never from a path compiled in: a build tree keeps the layer
  // beside tidemark, an installed tree under the prefix's lib/tidemark (so a copy of a prefix,
  // or an unpacked package, works wherever it lies).
  std::error_code error;
  const fs::path self = this_executable_dir();
  const fs::path beside = self / "layer", installed = (self / ".." / "lib" / "tidemark" / "layer").lexically_normal();
  for (const fs::path& dir : {beside, installed})
    if (fs::exists(dir / TIDEMARK_LAYER_LIBRARY, error)) return dir;
  return beside;  // absent: the error that follows names where it was looked for
}

void make_discoverable() {
  std::string path = layer_dir().string();
  if (const char* others = std::getenv("VK_ADD_LAYER_PATH"); others && *others) {
    if (std::string_view(others).find(path) != std::string_view::npos) return;
    path.append(":").append(others);
  }
  ::setenv("VK_ADD_LAYER_PATH", path.c_str(), 1);
}

ObservedGauges to_observed(const TidemarkLayerGauges& g) {
  return {.vkbufs = g.buffers.live,
          .vkbufspk = g.buffers.peak,
          .vkbufsmade = g.buffers.total,
          .vkimages = g.images.live,
          .vkimagespk = g.images.peak,
          .vkallocs = g.memory.live,
          .vkallocspk = g.memory.peak,
          .vkallocsmade = g.memory.total,
          .vkbytes = g.memory_bytes.live,
          .vkbytespk = g.memory_bytes.peak,
          .vkbound = g.bound_bytes.live,
          .vkboundpk = g.bound_bytes.peak,
          .vkdsets = g.descriptor_sets.live,
          .vkdsetspk = g.descriptor_sets.peak,
          .vkdsetsalloc = g.descriptor_sets.total,
          .vkcmdbufs = g.command_buffers.live,
          .vkcmdbufspk = g.command_buffers.peak,
          .vksubmits = g.submits,
          .vkpollsdone = g.polls_done,
          .vkpollsbusy = g.polls_busy,
          .vkwaitsdone = g.waits_done,
          .vkwaitstimeout = g.waits_timed_out,
          .vkwaitslost = g.waits_lost,
          .vkheld = g.frees_held,
          .vkrefused = g.allocations_refused,
          .vklost = g.lost_answers,
          .vklostcall = g.first_lost_call,
          .vklostat = g.first_lost_at};
}

void Library::Close::operator()(void* handle) const { ::dlclose(handle); }

Result<Library> Library::open(const std::filesystem::path& dir) {
  std::filesystem::path file = dir / TIDEMARK_LAYER_LIBRARY;
  // Never unloaded: a sink the layer holds must not outlive its code, and a fuzzer's coverage
  // counters in an instrumented layer must stay mapped.
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle)
    return fail(ErrorKind::Environment,
                fmt::format("expected the Tidemark layer at {}, found none ({}): build the VkLayer_tidemark_observe "
                            "target, install Tidemark whole (its lib/tidemark/layer), or set TIDEMARK_LAYER_DIR",
                            file.string(), ::dlerror()));
  Library library;
  library.handle_.reset(handle);
  library.attach = reinterpret_cast<PFN_tidemarkLayerAttach>(::dlsym(handle, "tidemarkLayerAttach"));
  library.detach = reinterpret_cast<PFN_tidemarkLayerDetach>(::dlsym(handle, "tidemarkLayerDetach"));
  library.gauges = reinterpret_cast<PFN_tidemarkLayerGauges>(::dlsym(handle, "tidemarkLayerGauges"));
  library.driver = reinterpret_cast<PFN_tidemarkLayerDriver>(::dlsym(handle, "tidemarkLayerDriver"));
  library.activity = reinterpret_cast<PFN_tidemarkLayerActivity>(::dlsym(handle, "tidemarkLayerActivity"));
  if (!library.attach || !library.detach || !library.gauges)
    return fail(ErrorKind::Environment, fmt::format("{} is not the Tidemark layer this build expects (no "
                                                    "tidemarkLayerAttach)",
                                                    file.string()));
  return library;
}

Attachment::Attachment(Library library, const TidemarkLayerSink* sink, const TidemarkLayerSettings& settings)
    : library_(std::move(library)), id_(library_.attach(sink, &settings)) {}

Attachment::~Attachment() { library_.detach(id_); }

TidemarkLayerGauges Attachment::gauges() const {
  TidemarkLayerGauges g{};
  library_.gauges(id_, &g);
  return g;
}

std::string Attachment::driver() const {
  TidemarkLayerDriver d{};
  if (!library_.driver || library_.driver(id_, &d) == 0) return {};
  return driver_text(d);
}

uint32_t Attachment::devices() const {
  TidemarkLayerGauges g{};
  return library_.gauges(id_, &g);
}

}  // namespace tidemark::layer
