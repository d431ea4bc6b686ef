// A tap on a Unix-socket wire: Tidemark listens where the client connects, connects each client
// to the server and forwards every byte and passed descriptor (SCM_RIGHTS) unchanged and in order,
// while a decoder of its own reads what passes; a decode error stops decoding, never forwarding.
// One thread of the tap's own forwards; its gauges are read from any thread. Each chunk is decoded
// before it is forwarded, so whatever a peer has received, the tap already counts.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "core/error.h"
#include "tap/wire_decoder.h"

namespace tidemark::tap {

struct TapOptions {
  size_t max_events = 1 << 18;  // events kept (more are counted, not kept): 2 000 rounds make 6 000
  // Called on the tap's thread with each event as it is decoded (a trace writer), under the
  // tap's lock: it must not call back into the tap.
  std::function<void(const WireEvent&)> on_event;
  // Called on the tap's thread, without its lock, when a server ends its side of a connection
  // whose client has not ended its own: a server that died or hung up mid-run, reported before
  // the client is shown that end (a client may abort the process when it sees it).
  std::function<void(uint32_t connection)> on_server_end;
  // How long a client may wait for the server to take its connection (a server whose backlog is
  // full): past it the client is closed on and the connection's error says so.
  std::chrono::milliseconds connect_within{2000};
};

struct ConnectionReport {
  uint32_t connection = 0;
  bool open = true;
  WireGauges gauges;
  std::optional<Error> error;  // the decoder's, or the forwarding's (the server unreachable)
};

class SocketTap {
 public:
  // Listens at `listen_path` (which must not exist; removed again by stop()) and forwards each
  // client to `server_path`. Errors: a path too long for a socket (BadInput), a socket that cannot
  // be made or bound (Environment).
  static Result<SocketTap> start(const std::filesystem::path& listen_path, const std::filesystem::path& server_path,
                                 DecoderFactory decoder_factory, TapOptions options = {});

  SocketTap(SocketTap&&) noexcept;
  SocketTap& operator=(SocketTap&&) noexcept;
  ~SocketTap();  // stop()

  // Ends the thread (promptly: it is woken), closes every connection and the listening socket.
  // A connection cut here is not judged truncated. Idempotent.
  void stop();

  const std::filesystem::path& listen_path() const;
  // Every connection's gauges summed: wire_resources over the open ones (the server frees a
  // closed client's resources), the peak the largest of any one connection's and of the sum's.
  // Bytes and descriptors are every one forwarded, past a decode error too.
  WireGauges gauges() const;
  std::vector<WireEvent> events() const;
  uint64_t events_dropped() const;
  // The first error of any connection.
  std::optional<Error> error() const;
  std::vector<ConnectionReport> connections() const;
  // Whether every byte each open connection's client has written so far has been read by the
  // server: none waits unread at the tap, in the tap, or at the server's socket.
  bool delivered_to_server() const;
  // Whether `count` connections have been accepted and have closed, waiting up to `within`.
  bool wait_closed(size_t count, std::chrono::milliseconds within) const;

 private:
  struct Shared;
  SocketTap() = default;
  std::unique_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace tidemark::tap
