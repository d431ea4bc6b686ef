// The one place a session opens: a SessionConfig's knobs, mutant and backend are resolved
// here, once, and the device is made beside its model host. The monolith lane calls it
// directly; tidemark-server hands it to the wire's server as its session factory.
#pragma once

#include "api/registry.h"
#include "api/session_factory.h"

namespace tidemark::session {

// Errors: a config this build cannot resolve (config_refused: the knob, mutant or backend is
// named), or a device or layer that would not start.
api::OpenResult open_session(const api::SessionConfig& config, const api::BackendRegistry& backends,
                             std::function<void(const std::string&)> log);

// open_session over `backends`, which must outlive the factory.
api::SessionFactory session_factory(const api::BackendRegistry& backends);

}  // namespace tidemark::session
