// The kernel channel: a layer with no host in its process (a renderer server's) asks the session's
// kernel model over a Unix socket named in TIDEMARK_KERNEL_CHANNEL, one fixed-size question at a
// time under the layer's lock, so the model sees the server's submits and waits in their order.
// Memory and gauges travel in the server's records instead (renderer/server_records.h).
#pragma once

#include <cstdint>
#include <memory>

#include "layer/tidemark_layer.h"

namespace tidemark::layer {

inline constexpr const char* kKernelChannelVariable = "TIDEMARK_KERNEL_CHANNEL";

enum class ChannelQuestion : uint32_t { QueueSubmitted = 1, Retired = 2, WaitRetired = 3, Kick = 4 };

// On the socket in the host's byte order (both ends run on one machine).
struct ChannelRequest {
  uint32_t question = 0;  // ChannelQuestion
  uint32_t reserved = 0;
  uint64_t fence = 0;      // Retired, WaitRetired
  uint64_t budget_ns = 0;  // WaitRetired
};
struct ChannelAnswer {
  uint64_t value = 0;  // QueueSubmitted: the kernel fence (0: refused); Retired, Kick: 0 or 1
};
static_assert(sizeof(ChannelRequest) == 24 && sizeof(ChannelAnswer) == 8);

// The layer's end. Once the session's end has gone (the run is over, the server about to be
// stopped), every question is answered as a layer with no sink answers itself, and the layer
// says so once on stderr.
class KernelChannelClient {
 public:
  // Connects to `path`; null (and a line on stderr) when it cannot.
  static std::unique_ptr<KernelChannelClient> connect(const char* path);
  ~KernelChannelClient();
  KernelChannelClient(const KernelChannelClient&) = delete;
  KernelChannelClient& operator=(const KernelChannelClient&) = delete;

  // Its sink, whose kernel questions go over the channel (memory_changed, sample and device_lost
  // stay null: the server's records carry those); it lives as long as the client.
  const TidemarkLayerSink* sink() const { return &sink_; }

 private:
  explicit KernelChannelClient(int fd);
  // The answer, or `otherwise` once the channel has gone.
  uint64_t ask(ChannelQuestion question, uint64_t fence, uint64_t budget_ns, uint64_t otherwise);
  int fd_ = -1;
  uint64_t submits_ = 0;  // what QueueSubmitted answers once the channel has gone
  TidemarkLayerSink sink_{};
};

}  // namespace tidemark::layer
