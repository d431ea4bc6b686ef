// The session's end of the kernel channel (layer/kernel_channel.h): it listens in a renderer
// server's folder and answers the server layer's kernel questions on a thread of its own by
// asking the session's host through the sink a hosted layer would have (host/layer_sink.h). The
// host serialises those answers with the session's own steps (host/host_thread.h), and the session
// steps the model only once the server has settled (TappedServer::settle), so the model sees one
// order of the two on every run.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

#include "core/error.h"
#include "core/process.h"
#include "layer/tidemark_layer.h"

namespace tidemark::renderer {

// The channel's socket in the server's folder.
inline constexpr std::string_view kKernelChannelName = "kernel.sock";

class KernelChannelServer {
 public:
  // A request is 24 bytes, written at once: one begun and not whole within this is from a layer
  // that is stuck, and must not hold the channel's thread (nor the session's end joining it).
  static constexpr std::chrono::milliseconds kRequestWithin{10000};

  // Listens at `path` (which must not exist); a begun request is cut (its connection closed) when
  // not whole `request_within` after it began. Errors: a path too long for a socket (BadInput), a
  // socket that cannot be made (Environment).
  static Result<std::unique_ptr<KernelChannelServer>> start(const std::filesystem::path& path, TidemarkLayerSink sink,
                                                            std::chrono::milliseconds request_within = kRequestWithin);
  ~KernelChannelServer();  // the thread woken and joined, every connection closed
  KernelChannelServer(const KernelChannelServer&) = delete;
  KernelChannelServer& operator=(const KernelChannelServer&) = delete;

  const std::filesystem::path& path() const { return path_; }
  uint64_t questions() const { return questions_.load(std::memory_order_relaxed); }  // answered so far

 private:
  KernelChannelServer() = default;
  void run();
  bool answer(int connection);  // false: the connection ended or broke
  std::filesystem::path path_;
  TidemarkLayerSink sink_{};
  std::chrono::milliseconds request_within_ = kRequestWithin;
  UniqueFd listener_, wake_;
  std::atomic<uint64_t> questions_{0};
  std::thread thread_;
};

}  // namespace tidemark::renderer
