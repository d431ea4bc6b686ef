#include "reduce/lift.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "core/wait_status.h"
#include "reduce/scenario_text.h"
#include "wire/codec.h"
#include "wire/messages.h"
#include "wire/recording.h"

#include "calls/lift.h"  // lift_request(): each request's case, generated from api/calls.yaml

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

// What the lift has made so far, and each request's own lift (the generated lift_request() calls
// the one for its message: a call with a step and no overload here fails to compile).
struct Lifting {
  const std::filesystem::path& file;
  const scenario::Scenario& made_from;
  const wire::RecordingReader& reader;
  std::map<api::BufferId, std::string> buffers;  // by the handle each BufferCreated gave, in declared order
  std::map<api::FenceId, std::string> fences;
  std::vector<std::string> steps;
  static constexpr size_t kNoWait = SIZE_MAX;
  size_t wait_step = kNoWait;  // the client_wait the next WaitResult completes

  std::unexpected<Error> refuse(const std::string& what) const {
    return std::unexpected(
        Error{ErrorKind::BadInput, fmt::format("{}: record #{}: {}", file.string(), reader.records_read(), what)});
  }
  Result<std::string> buffer(api::BufferId id) const {
    auto found = buffers.find(id);
    if (found == buffers.end()) return refuse(fmt::format("buffer {} was never created", id));
    return found->second;
  }
  Status reply(const wire::FrameView& frame);
};

Status lift(Lifting& lifting, const wire::BufferData& m) {
  TIDEMARK_TRY(name, lifting.buffer(m.buffer));
  auto fill = fill_of(m.data);
  if (!fill) return lifting.refuse(fmt::format("a store of {} whose bytes no fill writes", name));
  lifting.steps.push_back(fmt::format("  - buffer_data: {{buffer: {}, size: {}{}}}", name,
                                      ScenarioText::format_number(static_cast<int64_t>(m.data.size())), *fill));
  return {};
}
Status lift(Lifting& lifting, const wire::BufferSubData& m) {
  TIDEMARK_TRY(name, lifting.buffer(m.buffer));
  auto fill = fill_of(m.data);
  if (!fill) return lifting.refuse(fmt::format("a write into {} whose bytes no fill writes", name));
  lifting.steps.push_back(
      fmt::format("  - buffer_sub_data: {{buffer: {}, offset: {}, size: {}{}}}", name, m.offset, m.data.size(), *fill));
  return {};
}
Status lift(Lifting& lifting, const wire::Draw& m) {
  TIDEMARK_TRY(uniform, lifting.buffer(m.call.uniform));
  std::string vertices;
  if (m.call.vertices) {
    TIDEMARK_TRY(name, lifting.buffer(m.call.vertices));
    vertices = ", vertices: " + name;
  }
  auto band = band_of(m.call.rect, lifting.made_from.session);
  if (!band) return lifting.refuse("a draw of a rectangle that is not a band of the target");
  lifting.steps.push_back(fmt::format("  - draw: {{uniform: {}{}{}}}", uniform, vertices, *band));
  return {};
}
Status lift(Lifting& lifting, const wire::ClientWait& m) {
  auto fence = lifting.fences.find(m.fence);
  if (fence == lifting.fences.end()) return lifting.refuse(fmt::format("a wait for fence {}, never made", m.fence));
  lifting.wait_step = lifting.steps.size();
  lifting.steps.push_back(fmt::format("  - client_wait: {{fence: {}, flush: {}, timeout: {}", fence->second,
                                      m.flush ? "true" : "false", nanoseconds(m.timeout_ns)));
  return {};
}

// The replies that name what a later request refers to: the buffers in the order the scenario
// declares them, the fences in order, and the status a wait found.
Status Lifting::reply(const wire::FrameView& frame) {
  if (frame.op == wire::Opcode::BufferCreated) {
    TIDEMARK_TRY(created, wire::decode<wire::BufferCreated>(frame));
    if (buffers.size() >= made_from.buffers.size())
      return refuse(fmt::format("more buffers than {} declares", made_from.name));
    buffers[created.buffer] = made_from.buffers[buffers.size()];
  } else if (frame.op == wire::Opcode::FenceCreated) {
    TIDEMARK_TRY(created, wire::decode<wire::FenceCreated>(frame));
    std::string name = fmt::format("f{}", fences.size() + 1);
    fences[created.fence] = name;
    steps.push_back(fmt::format("  - fence: {}", name));
  } else if (frame.op == wire::Opcode::WaitResult && wait_step != kNoWait) {
    TIDEMARK_TRY(result, wire::decode<wire::WaitResult>(frame));
    steps[wait_step] += fmt::format(", expect: {}}}", to_string(result.status));
    wait_step = kNoWait;
  }
  return {};
}

}  // namespace

Result<std::string> lift_recording(const std::filesystem::path& file, const scenario::Scenario& made_from,
                                   const std::string& text) {
  TIDEMARK_TRY(reader, wire::RecordingReader::open(file));
  Lifting lifting{.file = file, .made_from = made_from, .reader = reader};
  wire::RecordView record{};
  for (;;) {
    TIDEMARK_TRY(more, reader.next(record));
    if (!more) break;
    if (record.direction == wire::Direction::Reply)
      TIDEMARK_CHECK(lifting.reply(record.frame));
    else
      TIDEMARK_CHECK(lift_request(lifting, record.frame));
  }
  auto& steps = lifting.steps;
  if (lifting.wait_step != Lifting::kNoWait) steps[lifting.wait_step] += "}";
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
