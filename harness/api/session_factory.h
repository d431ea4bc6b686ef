// An open session (a device beside its model) and the factory that opens one from a
// SessionConfig: what the wire's server and the monolith lane are given, so that neither
// needs to know how a session is built.
#pragma once

#include <expected>
#include <functional>
#include <memory>
#include <string>

#include "api/device.h"
#include "api/model.h"
#include "api/session_config.h"
#include "core/error.h"
#include "core/knobs.h"

namespace tidemark::api {

class Session {
 public:
  virtual ~Session() = default;
  virtual Device& device() = 0;
  virtual Model& model() = 0;
  virtual const KnobValues& knobs() const = 0;  // the config's knobs as resolved: what the session applies
};

// Why a session did not open. `config_refused`: the config names what this side cannot resolve
// (a knob out of range, a mutant or backend it lacks) and nothing was made: a server refuses
// the handshake. Otherwise the session itself failed to start (its device or layer).
struct OpenError {
  Error error;
  bool config_refused = false;
};

using OpenResult = std::expected<std::unique_ptr<Session>, OpenError>;
// `log` gets the backend's notes; it may be empty.
using SessionFactory = std::function<OpenResult(const SessionConfig&, std::function<void(const std::string&)> log)>;

}  // namespace tidemark::api
