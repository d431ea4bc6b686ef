// The one place a session opens: a SessionConfig's knobs, mutant and backend are resolved
// here, once, and the device is made beside its model host. The monolith lane calls it
// directly; tidemark-server hands it to the wire's server as its session factory.
#pragma once

#include "api/registry.h"
#include "api/session_factory.h"
#include "core/error.h"

namespace tidemark::session {

// Errors: a config this build cannot resolve (config_refused: the knob, mutant or backend is
// named), or a device or layer that would not start.
api::OpenResult open_session(const api::SessionConfig& config, const api::BackendRegistry& backends,
                             std::function<void(const std::string&)> log);

// Whether a session of `config` on backend `entry` can run on a driver build with a renderer
// server (`server`) or on one without: bad input saying why not. open_session holds every session
// to it, and a run's plan is held to it before anything runs (runner's prepare).
Status check_server_fits(const api::SessionConfig& config, const api::BackendEntry& entry, bool server);

// open_session over `backends`, which must outlive the factory.
api::SessionFactory session_factory(const api::BackendRegistry& backends);

}  // namespace tidemark::session
