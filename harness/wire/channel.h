// Private to the wire: channels carry requests to a server and bring back its replies. A
// request may wait in the channel until a reply is wanted, so many travel together.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "wire/lanes.h"
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
  uint64_t sent = 0;
  uint64_t received = 0;
};

// A channel to a server of the lane, ready for the Hello. `server` is the server process
// when this client owns one; `token` is what the Hello must carry.
struct OpenedChannel {
  std::unique_ptr<ChildProcess> server;  // before the channel: the channel points at it
  std::unique_ptr<Channel> channel;
  std::string token;
};

// Monolith gets a server session in this process, called directly (no bytes); split the
// same through the byte codec; spawn and tcp a socket to a server process.
Result<OpenedChannel> open_channel(const LaneOptions& options, std::function<void(const std::string&)> log);

// The split lane's channel: a server session in this process, every frame as bytes.
std::unique_ptr<Channel> in_process_channel(ServerOptions options);

// Writes every request and reply that passes through `inner` into `writer`.
std::unique_ptr<Channel> recording_channel(std::unique_ptr<Channel> inner, RecordingWriter writer);

}  // namespace tidemark::wire
