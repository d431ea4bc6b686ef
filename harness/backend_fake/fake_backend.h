// The `fake` backend: a device that runs no GPU, for the wire tests of the real model host and
// the session fuzz target. It reports memory, submits and frames to the session's model host like
// any backend, so those tests see the real kernel model and trace. (A call's own crossing of the
// wire is checked against the strict mock instead: wire/wire_seam_test.cpp.) Test support: its
// registry line is in the tests (fake_backends), never in tidemark itself.
#pragma once

#include "api/registry.h"

namespace tidemark::fake {

// What the fake backend was made with.
struct FakeBackendLog {
  api::SessionConfig config;  // what the handshake configured
  KnobValues knobs;           // its knobs, resolved
  MutantId mutant = MutantId::None;
  bool created = false;
};

// The registry entry `fake`, logging into `log`.
api::BackendEntry fake_backend(FakeBackendLog& log);

// A registry with the fake backend alone.
api::BackendRegistry fake_backends(FakeBackendLog& log);

}  // namespace tidemark::fake
