// The server side of the wire: one session = one handshake and one backend. A bad frame
// gets a protocol-error reply and ends the session; it never ends the server.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "wire/protocol.h"

namespace tidemark::wire {

struct ServerOptions {
  std::string token;  // the Hello must carry it; empty: any (a private socketpair)
  std::function<void(const std::string&)> log;
};

class ServerSession {
 public:
  explicit ServerSession(ServerOptions options);
  ~ServerSession();
  // The reply to one request. After a ProtocolError reply or a Goodbye the session is closed.
  Frame handle(const Frame& request);
  bool open() const { return open_; }

 private:
  Frame hello(const Frame& request);
  Result<Frame> dispatch(const Frame& request);
  Frame protocol_error(const Frame& request, const std::string& message);

  ServerOptions options_;
  std::unique_ptr<backend::Backend> backend_;
  bool open_ = true;
};

inline constexpr std::chrono::milliseconds kHelloTimeout{10000};  // an idle connection is dropped
inline constexpr std::chrono::milliseconds kFrameTimeout{30000};   // a frame stalled midway is dropped

// Serves one connection until the client says goodbye, closes, or sends a bad frame.
// Returns a one-line account of how it ended.
std::string serve_connection(int fd, const ServerOptions& options);

}  // namespace tidemark::wire
