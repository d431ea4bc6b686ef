#include "reduce/lift.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "core/wait_status.h"
#include "reduce/scenario_text.h"
#include "wire/codec.h"
#include "wire/messages.h"
#include "wire/recording.h"

namespace tidemark::reduce {

namespace {

using wire::Opcode;

// A store's bytes as a fill: nothing (all zero) or one RGBA word over and over; nullopt when
// no fill writes them.
std::optional<std::string> fill_of(std::span<const uint8_t> bytes) {
  if (bytes.empty() || std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; })) return "";
  uint8_t word[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < 4 && i < bytes.size(); ++i) word[i] = bytes[i];
  for (size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != word[i % 4]) return std::nullopt;
  return fmt::format(", fill: {{rgba: [{}, {}, {}, {}]}}", word[0], word[1], word[2], word[3]);
}

// The band `{index, of}` the executor would draw as this rectangle; "" for the whole target.
std::optional<std::string> band_of(const api::Rect& rect, const api::SessionConfig& target) {
  if (rect.y0 != 0 || rect.y1 != target.height) return std::nullopt;
  if (rect.x0 == 0 && rect.x1 == target.width) return "";
  for (int64_t of = 1; of <= target.width; ++of) {
    int64_t index = int64_t{rect.x0} * of / target.width;
    for (int64_t k : {index, index + 1})
      if (k < of && k * target.width / of == rect.x0 && (k + 1) * target.width / of == rect.x1)
        return fmt::format(", band: {{index: {}, of: {}}}", k, of);
  }
  return std::nullopt;
}

std::string nanoseconds(uint64_t ns) {
  if (ns != 0 && ns % 1'000'000'000 == 0) return fmt::format("{}s", ns / 1'000'000'000);
  if (ns != 0 && ns % 1'000'000 == 0) return fmt::format("{}ms", ns / 1'000'000);
  if (ns != 0 && ns % 1'000 == 0) return fmt::format("{}us", ns / 1'000);
  return fmt::format("{}", ns);
}

}  // namespace

Result<std::string> lift_recording(const std::filesystem::path& file, const scenario::Scenario& made_from,
                                   const std::string& text) {
  TIDEMARK_TRY(reader, wire::RecordingReader::open(file));
  auto refuse = [&](std::string what) {
    return fail(ErrorKind::BadInput, fmt::format("{}: record #{}: {}", file.string(), reader.records_read(), what));
  };
  std::map<api::BufferId, std::string> buffers;  // by the handle each BufferCreated gave, in declared order
  std::map<api::FenceId, std::string> fences;
  std::vector<std::string> steps;
  constexpr size_t kNoWait = SIZE_MAX;
  size_t wait_step = kNoWait;  // the client_wait the next WaitResult completes
  auto buffer = [&](api::BufferId id) -> Result<std::string> {
    auto found = buffers.find(id);
    if (found == buffers.end()) return refuse(fmt::format("buffer {} was never created", id));
    return found->second;
  };
  wire::RecordView record{};
  for (;;) {
    TIDEMARK_TRY(more, reader.next(record));
    if (!more) break;
    const wire::FrameView& frame = record.frame;
    if (record.direction == wire::Direction::Reply) {
      if (frame.op == Opcode::BufferCreated) {
        TIDEMARK_TRY(created, wire::decode<wire::BufferCreated>(frame));
        if (buffers.size() >= made_from.buffers.size())
          return refuse(fmt::format("more buffers than {} declares", made_from.name));
        buffers[created.buffer] = made_from.buffers[buffers.size()];
      } else if (frame.op == Opcode::FenceCreated) {
        TIDEMARK_TRY(created, wire::decode<wire::FenceCreated>(frame));
        std::string name = fmt::format("f{}", fences.size() + 1);
        fences[created.fence] = name;
        steps.push_back(fmt::format("  - fence: {}", name));
      } else if (frame.op == Opcode::WaitResult && wait_step != kNoWait) {
        TIDEMARK_TRY(result, wire::decode<wire::WaitResult>(frame));
        steps[wait_step] += fmt::format(", expect: {}}}", to_string(result.status));
        wait_step = kNoWait;
      }
      continue;
    }
    switch (frame.op) {
      case Opcode::Hello:
      case Opcode::Goodbye:
      case Opcode::Sync:
      case Opcode::CreateBuffer:
      case Opcode::FenceSync:
      case Opcode::ReadPixels:
      case Opcode::ReadGauges:
      case Opcode::ReadValidation:
      case Opcode::ReadKernelGauges:
      case Opcode::ReadKernelReport:
      case Opcode::ReadTrace:
      case Opcode::ReadTraceHash:
      case Opcode::ReadObservedGauges:
        break;  // the session's frame, or what the runner reads at the end of every run
      case Opcode::BufferData: {
        TIDEMARK_TRY(m, wire::decode<wire::BufferData>(frame));
        TIDEMARK_TRY(name, buffer(m.buffer));
        auto fill = fill_of(m.data);
        if (!fill) return refuse(fmt::format("a store of {} whose bytes no fill writes", name));
        steps.push_back(fmt::format("  - buffer_data: {{buffer: {}, size: {}{}}}", name,
                                    ScenarioText::format_number(static_cast<int64_t>(m.data.size())), *fill));
        break;
      }
      case Opcode::BufferSubData: {
        TIDEMARK_TRY(m, wire::decode<wire::BufferSubData>(frame));
        TIDEMARK_TRY(name, buffer(m.buffer));
        auto fill = fill_of(m.data);
        if (!fill) return refuse(fmt::format("a write into {} whose bytes no fill writes", name));
        steps.push_back(fmt::format("  - buffer_sub_data: {{buffer: {}, offset: {}, size: {}{}}}", name, m.offset,
                                    m.data.size(), *fill));
        break;
      }
      case Opcode::Draw: {
        TIDEMARK_TRY(m, wire::decode<wire::Draw>(frame));
        TIDEMARK_TRY(uniform, buffer(m.call.uniform));
        std::string vertices;
        if (m.call.vertices) {
          TIDEMARK_TRY(name, buffer(m.call.vertices));
          vertices = ", vertices: " + name;
        }
        auto band = band_of(m.call.rect, made_from.session);
        if (!band) return refuse("a draw of a rectangle that is not a band of the target");
        steps.push_back(fmt::format("  - draw: {{uniform: {}{}{}}}", uniform, vertices, *band));
        break;
      }
      case Opcode::ClientWait: {
        TIDEMARK_TRY(m, wire::decode<wire::ClientWait>(frame));
        auto fence = fences.find(m.fence);
        if (fence == fences.end()) return refuse(fmt::format("a wait for fence {}, never made", m.fence));
        wait_step = steps.size();
        steps.push_back(fmt::format("  - client_wait: {{fence: {}, flush: {}, timeout: {}", fence->second,
                                    m.flush ? "true" : "false", nanoseconds(m.timeout_ns)));
        break;
      }
      case Opcode::Flush:
        steps.push_back("  - flush: {}");
        break;
      case Opcode::Finish:
        steps.push_back("  - finish: {}");
        break;
      case Opcode::Present:
        steps.push_back("  - present: {}");
        break;
      default:
        return refuse(
            fmt::format("{}: only buffer, draw, fence, wait, flush, finish and present calls lift to steps; "
                        "reduce the scenario file itself",
                        to_string(frame.op)));
    }
  }
  if (wait_step != kNoWait) steps[wait_step] += "}";
  if (steps.empty())
    return fail(ErrorKind::BadInput, fmt::format("{}: expected calls to lift, found none", file.string()));

  // The scenario's own file with the lifted steps for its workload.
  TIDEMARK_TRY(source, ScenarioText::parse(text));
  auto workload = source.top_level("workload");
  if (!workload)
    return fail(ErrorKind::BadInput, fmt::format("{}: no workload list to replace", made_from.file.string()));
  std::string lifted = fmt::format("workload:   # lifted from {}, one step a call\n", file.filename().string());
  for (const auto& step : steps) lifted += step + "\n";
  Edits edits;
  edits.replaced.push_back({*workload, lifted});
  return source.render(edits);
}

}  // namespace tidemark::reduce
