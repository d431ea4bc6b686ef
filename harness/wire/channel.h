// The wire's transports: channels carry requests to a server and bring back its replies. A
// request may wait in the channel until a reply is wanted, so many travel together. Which
// channel a session gets is the lanes' choice (harness/lanes/).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "wire/posix.h"
#include "wire/codec.h"
#include "wire/messages.h"
#include "wire/recording.h"
#include "wire/server.h"

namespace tidemark::wire {

class Channel {
 public:
  virtual ~Channel() = default;
  // Queues a request; it goes out with the next receive() or once enough have queued.
  virtual Status send(FrameView request) = 0;
  // Sends what is queued, then returns the next reply.
  virtual Result<Frame> receive() = 0;
  // Bounds how long the next replies may take (the handshake); nullopt: no bound.
  virtual void set_deadline(std::optional<Clock::time_point> /*deadline*/, std::string /*what*/) {}
  // Fault injection: SIGKILL the server process, if this channel has one.
  virtual void kill_server() {}
  // No more requests: a recording channel writes its trailer.
  virtual Status close() { return {}; }
  // The channel's own server, when it died under it (a receive or send said so); else none.
  virtual std::optional<ProcessDeath> server_death() const { return std::nullopt; }
  uint64_t sent = 0;
  uint64_t received = 0;
};

// A server session in this process, called directly: frames are never turned into bytes.
std::unique_ptr<Channel> direct_channel(ServerOptions options);

// The split lane's channel: a server session in this process, every frame as bytes.
std::unique_ptr<Channel> in_process_channel(ServerOptions options);

// A socket to a server process (`server` when this client owns it, else null), named by
// `lane` in its errors; a reply may take at most `reply_timeout` unless a deadline is set. A
// server that died is named with the last lines of `server_log` (its stderr), when given.
std::unique_ptr<Channel> socket_channel(std::string lane, UniqueFd fd, ChildProcess* server,
                                        std::chrono::milliseconds reply_timeout, std::filesystem::path server_log = {});

// Writes every request and reply that passes through `inner` into `writer`.
std::unique_ptr<Channel> recording_channel(std::unique_ptr<Channel> inner, RecordingWriter writer);

}  // namespace tidemark::wire
