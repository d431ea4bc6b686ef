// Fuzz target (libFuzzer entry point) for the server: the bytes a client sends on the socket,
// framed or not, fed to a real ServerConnection over the fake backend (no GPU: every message
// still goes through the real framing, decoders, dispatch and the real model host). Whatever
// arrives, the server must answer or close: never crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backend_fake/fake_backend.h"
#include "session/session.h"
#include "wire/frame_io.h"
#include "wire/server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tidemark::wire;
  tidemark::fake::FakeBackendLog log;
  const auto backends = tidemark::fake::fake_backends(log);
  ServerOptions options;
  options.open_session = tidemark::session::session_factory(backends);
  ServerConnection connection(options);
  MemorySource source(std::vector<uint8_t>(data, data + size));
  (void)connection.serve(source, [](const Frame&) -> tidemark::Status { return {}; });
  return 0;
}
