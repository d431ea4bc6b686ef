// Fuzz target (libFuzzer entry point) for the kernel driver model as a client drives it: a
// Hello frame (its kmd and kgsl configuration, checked as the server checks it) and then the
// kernel operation frames, each decoded and applied as the server would. Any sequence must end
// in a report, never a crash, a hang or an unbounded allocation: rings, clocks and waits are
// all sized by the client.
#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "kernel/driver.h"
#include "wire/frame_io.h"
#include "wire/codec.h"
#include "wire/messages.h"

namespace {

using namespace tidemark;

template <class... Operations>
void apply_frame(kernel::KernelDriver& driver, const wire::Frame& frame, std::variant<Operations...>*) {
  auto apply_as = [&]<class Operation>(Operation*) {
    using Message = wire::MessageOf<Operation>;
    if (frame.op != Message::kOpcode) return;
    if (auto message = wire::decode<Message>(frame)) (void)driver.apply(kernel::KernelOp{message->op});
  };
  (apply_as(static_cast<Operations*>(nullptr)), ...);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wire::MemorySource source(std::vector<uint8_t>(data, data + size));
  auto first = wire::read_frame(source);
  if (!first) return 0;
  auto hello = wire::decode<wire::Hello>(*first);
  if (!hello) return 0;
  kernel::KernelDriver driver(hello->config.model.kmd, hello->config.model.kgsl, MutantId::None);
  while (auto frame = wire::read_frame(source)) apply_frame(driver, *frame, static_cast<kernel::KernelOp*>(nullptr));
  KernelGauges gauges;
  driver.fill(gauges);
  (void)driver.report();
  return 0;
}
