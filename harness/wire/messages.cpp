#include "wire/messages.h"

#include <fmt/format.h>

#include "core/limits.h"
#include "core/memory_type.h"
#include "wire/codec.h"

namespace tidemark::wire {

bool is_known(Opcode op) {
  switch (op) {
#define TIDEMARK_KNOWN(name, code, text) case Opcode::name:
    TIDEMARK_WIRE_MESSAGES(TIDEMARK_KNOWN)
#undef TIDEMARK_KNOWN
    return true;
  }
  return false;
}

const char* to_string(Opcode op) {
  switch (op) {
#define TIDEMARK_NAME(name, code, text) \
  case Opcode::name:                    \
    return text;
    TIDEMARK_WIRE_MESSAGES(TIDEMARK_NAME)
#undef TIDEMARK_NAME
  }
  return "unknown";
}

bool is_request(Opcode op) { return static_cast<uint16_t>(op) < 100; }

bool has_reply(Opcode op) {
  switch (op) {
#define TIDEMARK_HAS_REPLY(name, code, text) \
  case Opcode::name:                         \
    return expects_reply<name>();
    TIDEMARK_WIRE_MESSAGES(TIDEMARK_HAS_REPLY)
#undef TIDEMARK_HAS_REPLY
  }
  return false;
}

Status TraceCounters::check() const {
  if (op.gpus.size() > 64) return read_error(fmt::format("{} GPUs, at most 64", op.gpus.size()));
  return {};
}

Status KmdSubmit::check() const {
  if (op.commands.empty() || op.commands.size() > kernel::kMaxCommandsPerSubmit)
    return read_error(
        fmt::format("{} commands in a submit, expected 1..{}", op.commands.size(), kernel::kMaxCommandsPerSubmit));
  return {};
}

Status Pixels::check() const {
  if (width < 0 || height < 0 || bytes.size() != size_t(width) * size_t(height) * 4)
    return read_error(fmt::format("{}x{} image with {} bytes", width, height, bytes.size()));
  return {};
}

Status Hello::check() const {
  const auto& [width, height] = std::tie(config.width, config.height);
  const auto& kmd = config.model.kmd;
  const auto& kgsl = config.model.kgsl;
  if (width < 1 || height < 1 || width > kMaxTargetSide || height > kMaxTargetSide)
    return read_error(fmt::format("target {}x{}, each side 1..{}", width, height, kMaxTargetSide));
  if (kmd.ring_dwords < kernel::kMinRingDwords || kmd.ring_dwords > kernel::kMaxRingDwords)
    return read_error(fmt::format("ring of {} dwords, expected {}..{}", kmd.ring_dwords, kernel::kMinRingDwords,
                                  kernel::kMaxRingDwords));
  if (kgsl.freq_table_hz.empty() || kgsl.freq_table_hz.front() == 0)
    return read_error("a kgsl frequency table without a non-zero maximum first");
  return {};
}

}  // namespace tidemark::wire
