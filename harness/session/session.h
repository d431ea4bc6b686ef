// The one place a session opens, from a config resolved once on the side that opens it: a run's
// prepare resolves its own (the monolith lane), a wire's receiver the names its handshake carried
// (tidemark-server's session factory). The device is made beside its model host.
#pragma once

#include "api/registry.h"
#include "api/session_factory.h"
#include "core/error.h"
#include "core/knobs.h"
#include "core/mutants.h"

namespace tidemark::session {

// A session config with its names resolved: what a session opens from, and nothing looks up again.
struct ResolvedConfig {
  api::SessionConfig config;                   // by name, as a wire's handshake carries it
  const api::BackendEntry* backend = nullptr;  // config.backend's entry
  MutantId mutant = MutantId::None;            // config.mutant's
  KnobValues knobs;                            // every knob: the config's over the defaults
};

// Errors: bad input naming the knob (`source` says whose), mutant or backend this build lacks.
Result<ResolvedConfig> resolve_config(const api::SessionConfig& config, const api::BackendRegistry& backends,
                                      std::string_view source);

// Errors: a device or layer that would not start. `backends` probes a driver build's identity.
api::OpenResult open_session(const ResolvedConfig& resolved, const api::BackendRegistry& backends,
                             std::function<void(const std::string&)> log);
// The config resolved here (as a handshake's, a refusal naming what is lacking: config_refused),
// then opened.
api::OpenResult open_session(const api::SessionConfig& config, const api::BackendRegistry& backends,
                             std::function<void(const std::string&)> log);

// Whether a session of `config` on backend `entry` can run on a driver build with a renderer
// server (`server`) or on one without: bad input saying why not. open_session holds every session
// to it, and a run's plan is held to it before anything runs (runner's prepare).
Status check_server_fits(const api::SessionConfig& config, const api::BackendEntry& entry, bool server);

// open_session over `backends`, which must outlive the factory.
api::SessionFactory session_factory(const api::BackendRegistry& backends);

}  // namespace tidemark::session
