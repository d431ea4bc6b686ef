// Fuzz target (libFuzzer entry point) for the recording stream reader and the payload
// decoders the replayer uses: any input must end in a record, a clean end or an error
// value — never a crash, a hang or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "wire/codec.h"
#include "wire/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tidemark::wire;
  auto in = std::make_unique<std::istringstream>(std::string(reinterpret_cast<const char*>(data), size));
  auto reader = RecordingReader::open(std::move(in), "fuzz-input");
  if (!reader) return 0;
  for (;;) {
    auto record = reader->next();
    if (!record || !*record) break;
    (void)check_payload((*record)->frame);  // every message's decoder, chosen by opcode
  }
  return 0;
}
