// The one composition of a driver's renderer server for a session (virgl's virpipe client in this
// process, virgl_test_server beside it): its folder, the kernel channel its layer asks the session's
// model over, the tap in front of it, its records fed at each read-back and the client's driver
// clock. A session holds one for as long as its device lives; its end stops them in order.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/gauges.h"
#include "core/temporaries.h"
#include "host/host_thread.h"
#include "layer/settings.h"
#include "renderer/driver_clock.h"
#include "renderer/kernel_channel_server.h"
#include "renderer/renderer_server.h"
#include "renderer/server_records.h"
#include "renderer/tapped_server.h"

namespace tidemark::renderer {

class RendererSession {
 public:
  using Log = std::function<void(const std::string&)>;

  // Starts the server of `spec` with the layer beneath it under `settings` (its events written as
  // they happen), its kernel questions answered by `host`, and this process's client pointed at it
  // (through the tap when the entry names its driver protocol). Errors: the server's, the tap's,
  // the channel's.
  static Result<std::unique_ptr<RendererSession>> start(const ServerSpec& spec, const TidemarkLayerSettings& settings,
                                                        host::HostEvents& host, Log log);
  // Whether a session's folder has room for its sockets (TemporaryFolder::room_for).
  static Status room_for_sockets();

  ~RendererSession();  // the client's settings unset, the tap stopped, then the server, logged
  RendererSession(const RendererSession&) = delete;
  RendererSession& operator=(const RendererSession&) = delete;

  RendererServer& server() { return served_->server(); }
  // The session's host reads the server's gauges, its tap's, its records and its settling.
  void report_to(host::HostThread& host);
  // "virgl_test_server --… (pid 12)": who the layer beneath the device is, for messages.
  std::string described() const;

 private:
  RendererSession(TemporaryFolder folder, Log log) : folder_(std::move(folder)), log_(std::move(log)) {}
  void log_end(const Result<observe::Gathered>& gathered);

  // A shader compile on a loaded machine takes seconds; a server that takes this long to come
  // back to its client is stuck.
  static constexpr std::chrono::milliseconds kSettleWithin{60000};

  TemporaryFolder folder_;  // first: it goes last, with what the server left in it
  Log log_;
  std::unique_ptr<KernelChannelServer> channel_;  // before the server: it goes after it
  std::unique_ptr<ServerRecords> records_;        // before the tap, which feeds it until it stops
  std::unique_ptr<TappedServer> served_;
  std::optional<DriverClock> clock_;  // the client's clock is Tidemark's while it runs
  std::vector<std::string> set_;      // the client's settings this process set
};

}  // namespace tidemark::renderer
