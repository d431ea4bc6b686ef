// Fuzz target (libFuzzer entry point) for the recording stream reader and the payload
// decoders the replayer uses: any input must end in a record, a clean end or an error
// value — never a crash, a hang or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "wire/protocol.h"
#include "wire/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tidemark::wire;
  auto in = std::make_unique<std::istringstream>(std::string(reinterpret_cast<const char*>(data), size));
  auto reader = RecordingReader::open(std::move(in), "fuzz-input");
  if (!reader) return 0;
  for (;;) {
    auto record = reader->next();
    if (!record || !*record) break;
    const Frame& frame = (*record)->frame;
    switch (frame.op) {
      case Opcode::Hello: (void)decode_hello(frame.payload); break;
      case Opcode::Welcome: (void)decode_welcome(frame.payload); break;
      case Opcode::Failure: (void)decode_failure(frame.payload); break;
      default: {
        Reader fields(frame.payload);  // the generic field reads replies go through
        while (fields.u32() && fields.bytes()) {
        }
      }
    }
  }
  return 0;
}
