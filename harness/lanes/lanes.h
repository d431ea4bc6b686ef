// Lanes: how a scenario's workload reaches the backend (monolith: direct calls; split: through the
// wire's codec in one process; spawn: a tidemark-server child over a socketpair; tcp: a
// tidemark-server on loopback, with a token). The runner sees only api::Device and api::Model. The
// session is its api::SessionConfig alone, sent in the handshake, so every lane honours every knob;
// LaneOptions says only how the session is reached.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "api/device.h"
#include "api/model.h"
#include "api/registry.h"
#include "api/session_config.h"
#include "core/knobs.h"
#include "core/lane.h"
#include "core/process.h"
#include "session/session.h"

namespace tidemark::lanes {

struct LaneOptions {
  Lane lane = Lane::Monolith;
  std::string server_program;                          // spawn, tcp: the tidemark-server binary
  std::string connect;                                 // tcp: HOST:PORT of a running server; empty: start a private one
  std::string token;                                   // tcp with `connect`: the server's session token
  std::chrono::milliseconds handshake_timeout{20000};  // a cold lavapipe start on a busy 2-core box
  // After the handshake: the longest a reply may take. The slowest legitimate one is a drain
  // of 4096 pipelined draws under the sanitizers, a few seconds.
  std::chrono::milliseconds reply_timeout{60000};
  uint32_t kill_server_at_frame = 0;  // fault injection: SIGKILL the server before frame N
  // Where the in-process lanes (monolith, split) find the config's backend; spawn and tcp
  // servers have their own.
  const api::BackendRegistry* backends = nullptr;
  std::string server_log;   // spawn, tcp: where the server's stderr goes; empty: ours
  std::string record;       // write the session's frames and replies to this file
  std::string record_name;  // the scenario, for the recording's header
};

using Log = std::function<void(const std::string&)>;

class LaneSession {
 public:
  virtual ~LaneSession() = default;
  virtual api::Device& device() = 0;
  virtual api::Model& model() = 0;
  virtual LaneTraffic report() const = 0;
  // Ends the session: goodbye to the server, the recording's trailer written. Errors: the
  // recording could not be finished (Io), or fault injection never fired (BadInput).
  virtual Status close() { return {}; }
  // The lane's server process, when it died under the session (spawn, tcp); else none.
  virtual std::optional<ProcessDeath> server_death() const { return std::nullopt; }
};

// The session `resolved` describes, in the lane `options` name: the monolith opens it as resolved;
// the other lanes send its names in the handshake, which the server resolves on its side. `log`
// gets the backend's notes (in-process lanes) and the lane's own.
Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, const session::ResolvedConfig& resolved,
                                               Log log);
// A config by name: resolved here first in the monolith (a refusal naming what is lacking); sent
// as it is in the other lanes.
Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, const api::SessionConfig& config, Log log);

// The tidemark-server next to the running executable.
std::string default_server_program();

}  // namespace tidemark::lanes
