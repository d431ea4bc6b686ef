// The `fake` backend: a device that logs every call it receives and runs no GPU, for the wire
// tests and the session fuzz target. It reports memory, submits and frames to the session's
// model host like any backend, so the wire tests see the real kernel model and trace. Test
// support: its registry line is in the tests (fake_backends), never in tidemark itself.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/registry.h"

namespace tidemark::fake {

// What the fake backend saw and what it is told to do.
struct FakeBackendLog {
  std::vector<std::string> calls;     // "buffer_data(1, 4 bytes: 01020304)", in order
  std::map<size_t, Error> fail_call;  // 1-based call number -> the error it returns
  api::SessionConfig config;          // what the handshake configured
  KnobValues knobs;                   // its knobs, resolved
  MutantId mutant = MutantId::None;
  bool created = false;
};

// The registry entry `fake`, logging into `log`.
api::BackendEntry fake_backend(FakeBackendLog& log);

// A registry with the fake backend alone.
api::BackendRegistry fake_backends(FakeBackendLog& log);

}  // namespace tidemark::fake
