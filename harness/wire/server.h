// The server side of the wire: one session = one handshake and one backend. A bad frame
// gets a protocol-error reply and ends the session; it never ends the server.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "api/session_factory.h"
#include "wire/frame_io.h"
#include "wire/codec.h"
#include "wire/messages.h"

namespace tidemark::wire {

struct ServerOptions {
  std::string token;  // the Hello must carry it; empty: any (a private socketpair)
  std::function<void(const std::string&)> log;
  // Opens the session a Hello's config describes; empty: every Hello is refused.
  api::SessionFactory open_session;
  uint64_t stop_after_frames = 0;  // fault injection: SIGSTOP this process after that many frames
};

class ServerSession {
 public:
  explicit ServerSession(ServerOptions options);
  ~ServerSession();
  // The reply to one request, if it has one: a pipelined request is answered only when it
  // fails. After a ProtocolError reply or a Goodbye the session is closed.
  std::optional<Frame> handle(FrameView request);
  bool open() const { return open_; }
  bool greeted() const { return session_ != nullptr; }

 private:
  template <class M>
  std::optional<Frame> route(FrameView request);
  Frame hello(FrameView request, const Hello& message);
  Frame protocol_error(FrameView request, const std::string& message);

  ServerOptions options_;
  std::unique_ptr<api::Session> session_;
  std::optional<uint32_t> failed_sequence_;  // a pipelined request failed: skip to the next reply
  bool open_ = true;
};

inline constexpr std::chrono::milliseconds kHelloTimeout{10000};  // the whole Hello, from the connection
inline constexpr std::chrono::milliseconds kFrameTimeout{30000};  // a frame stalled midway is dropped

// A session fed from a byte stream: a socket, or the split lane's in-memory pipe.
class ServerConnection {
 public:
  explicit ServerConnection(ServerOptions options);
  // Serves the requests `source` holds, passing each reply to `write`, until the source ends,
  // the session closes, or a write fails. Returns a one-line account of why it stopped.
  std::string serve(ByteSource& source, const std::function<Status(const Frame&)>& write);
  bool open() const { return session_.open(); }

 private:
  ServerOptions options_;
  ServerSession session_;
  Clock::time_point hello_by_;
  uint64_t frames_ = 0;
  // One request frame for the connection's life: its payload keeps its room across frames and
  // across serve() calls (the split lane serves each 64 KiB batch with one call).
  Frame request_;
};

// Serves one connection until the client says goodbye, closes, or sends a bad frame.
// Returns a one-line account of how it ended.
std::string serve_connection(int fd, const ServerOptions& options);

// The tcp lane's server: accepts `sessions` connections (0: for ever) on `listener` and serves
// each in a process of its own, so that a session that crashes, stalls or exhausts memory ends
// only itself and leaves nothing to the next; the children die with the listener (killing the
// server ends every session). Returns when the last session ended, or on an accept or fork error:
// the wait status of the last session that died by a signal, if one did (its crash, said in the log).
Result<std::optional<int>> serve_tcp_sessions(int listener, const ServerOptions& options, int sessions);

}  // namespace tidemark::wire
