// Fuzz target (libFuzzer entry point) for the server: the bytes a client sends on the socket,
// framed or not, fed to a real ServerConnection over the fake backend (no GPU: every message
// still goes through the real framing, decoders, dispatch and kernel driver model). Whatever
// arrives, the server must answer or close: never crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wire/fake_backend.h"
#include "wire/frame_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tidemark::wire;
  FakeBackendLog log;
  ServerConnection connection(fake_backend_options(log));
  MemorySource source(std::vector<uint8_t>(data, data + size));
  (void)connection.serve(source, [](const Frame&) -> tidemark::Status { return {}; });
  return 0;
}
