// Lanes: how a scenario's workload reaches the backend. The runner sees only the client
// API (backend::Backend) and a report of what the lane did.
//   monolith  direct calls, no wire
//   split     client and server in one process, every call through the wire's codec
//   spawn     tidemark-server as a child over a socketpair, its environment scrubbed
//   tcp       tidemark-server on loopback; the session presents a token
// Knobs and the mutant travel in the handshake, so every lane honours every knob.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "core/knobs.h"
#include "core/lane.h"

namespace tidemark::wire {

struct LaneOptions {
  Lane lane = Lane::Monolith;
  std::string server_program;  // spawn, tcp: the tidemark-server binary
  std::string connect;         // tcp: HOST:PORT of a running server; empty: start a private one
  std::string token;           // tcp with `connect`: the server's session token
  std::chrono::milliseconds handshake_timeout{20000};  // a cold lavapipe start on a busy 2-core box
  // After the handshake: the longest a reply may take. The slowest legitimate one is a drain
  // of 4096 pipelined draws under the sanitizers, a few seconds.
  std::chrono::milliseconds reply_timeout{60000};
  uint32_t kill_server_at_frame = 0;  // fault injection: SIGKILL the server before frame N
  std::string mutant;
  std::string server_log;  // spawn, tcp: where the server's stderr goes; empty: ours
  std::string record;       // write the session's frames and replies to this file
  std::string record_name;  // the scenario, for the recording's header
};

struct SessionConfig {
  int width = 64;
  int height = 64;
  uint32_t kernel_pid = 1000;
  uint32_t kernel_gpu = 0;
  bool kernel_reports = true;
  kernel::KmdConfig kmd;
  kernel::KgslConfig kgsl;
  tracer::MemorySource trace_memory = tracer::MemorySource::Both;
  KnobValues knobs;
  bool validation = false;
  std::function<void(const std::string&)> log;
};

struct LaneReport {
  std::string lane;
  uint64_t frames_sent = 0;
  uint64_t frames_received = 0;
  int64_t client_pid = 0;
  int64_t server_pid = 0;
  KnobValues server_knobs;  // what the server said it applied
};

class LaneSession {
 public:
  virtual ~LaneSession() = default;
  virtual backend::Backend& api() = 0;
  virtual LaneReport report() const = 0;
  // Ends the session: goodbye to the server, the recording's trailer written. Errors: the
  // recording could not be finished (Io), or fault injection never fired (BadInput).
  virtual Status close() { return {}; }
};

Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, const SessionConfig& config);

// A tcp session token: the first line of `token_file`, else TIDEMARK_TOKEN — never a command
// line argument. `needed_by` names the option in the error ("--connect", "--listen").
Result<std::string> read_session_token(const std::string& token_file, std::string_view needed_by);

// The tidemark-server next to the running executable.
std::string default_server_program();

}  // namespace tidemark::wire
