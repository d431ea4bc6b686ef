#include "wire/replay.h"

#include <fmt/format.h>

#include <chrono>

#include "core/digest.h"
#include "wire/channel.h"
#include "wire/recording.h"

namespace tidemark::wire {

namespace {

Result<std::string> read_pixel_hash(const Frame& reply) {
  TIDEMARK_TRY(pixels, decode_pixels(reply.payload));
  return pixel_hash(pixels.width, pixels.height, pixels.bytes);
}

// What differs between a recorded and a replayed reply, or nullopt when they agree.
std::optional<std::string> difference(const Frame& recorded, const Frame& replayed) {
  if (recorded.op != replayed.op)
    return fmt::format("recorded {}, replayed {}", to_string(recorded.op), to_string(replayed.op));
  if (recorded.op == Opcode::Welcome) {  // the server pid differs by nature
    auto a = decode_welcome(recorded.payload);
    auto b = decode_welcome(replayed.payload);
    if (!a || !b) return std::string("an unreadable welcome");
    if (a->knobs != b->knobs) return std::string("the server applied different knobs");
    if (a->capabilities != b->capabilities) return std::string("different capabilities");
    return std::nullopt;
  }
  if (recorded.payload == replayed.payload) return std::nullopt;
  if (recorded.op == Opcode::GaugeValues) {
    auto a = decode_gauge_values(recorded.payload);
    auto b = decode_gauge_values(replayed.payload);
    if (a && b)
      for (size_t i = 0; i < std::min(a->size(), b->size()); ++i)
        if ((*a)[i] != (*b)[i])
          return fmt::format("recorded {}={}, replayed {}={}", (*a)[i].first, (*a)[i].second, (*b)[i].first,
                             (*b)[i].second);
  }
  if (recorded.op == Opcode::Pixels) {
    auto a = read_pixel_hash(recorded);
    auto b = read_pixel_hash(replayed);
    if (a && b) return fmt::format("recorded pixel hash {}, replayed {}", *a, *b);
  }
  if (recorded.op == Opcode::WaitResult && !recorded.payload.empty() && !replayed.payload.empty())
    return fmt::format("recorded wait status {}, replayed {}",
                       backend::to_string(static_cast<backend::WaitStatus>(recorded.payload[0])),
                       backend::to_string(static_cast<backend::WaitStatus>(replayed.payload[0])));
  if (recorded.op == Opcode::Failure) {
    auto a = decode_failure(recorded.payload);
    auto b = decode_failure(replayed.payload);
    if (a && b) return fmt::format("recorded failure '{}', replayed '{}'", a->message, b->message);
  }
  return fmt::format("{} payloads differ ({} vs {} bytes)", to_string(recorded.op), recorded.payload.size(),
                     replayed.payload.size());
}

}  // namespace

Result<ReplayReport> replay(const std::filesystem::path& file, const LaneOptions& lane, bool compare) {
  TIDEMARK_TRY(reader, RecordingReader::open(file));
  ReplayReport report;
  report.scenario = reader.header().scenario;
  TIDEMARK_TRY(opened, open_channel(lane, nullptr));
  Channel& channel = *opened.channel;

  std::optional<Frame> replayed;  // the reply to the last request, until its record is read
  std::string last_request;
  NamedValues gauges;
  std::string pixels;
  bool said_goodbye = false;
  auto started = std::chrono::steady_clock::now();
  for (;;) {
    TIDEMARK_TRY(record, reader.next());
    if (!record) break;
    uint64_t index = reader.records_read();
    Frame& frame = record->frame;
    if (record->direction == Direction::Request) {
      if (replayed)
        return fail(ErrorKind::BadInput, fmt::format("{}: record #{}: a request where the reply to {} belongs",
                                                     file.string(), index, last_request));
      if (!is_request(frame.op))
        return fail(ErrorKind::BadInput, fmt::format("{}: record #{}: {} is not a request", file.string(), index,
                                                     to_string(frame.op)));
      bool hello = frame.op == Opcode::Hello;
      if (hello) {  // this lane's session token, not the recorded one
        TIDEMARK_TRY(decoded, decode_hello(frame.payload));
        decoded.token = opened.token;
        if (!lane.mutant.empty()) decoded.mutant = lane.mutant;
        frame.payload = encode_hello(decoded);
        channel.set_deadline(std::chrono::steady_clock::now() + lane.handshake_timeout,
                             fmt::format("the handshake within {} ms", lane.handshake_timeout.count()));
      }
      auto reply = channel.call(frame);
      if (!reply)
        return fail(reply.error().kind, fmt::format("{}: record #{} ({}): {}", file.string(), index,
                                                    to_string(frame.op), reply.error().message));
      if (hello) {
        channel.set_deadline(std::nullopt, {});
        started = std::chrono::steady_clock::now();  // throughput excludes the device start-up
      }
      said_goodbye = said_goodbye || frame.op == Opcode::Goodbye;
      last_request = fmt::format("record #{} ({})", index, to_string(frame.op));
      replayed = std::move(*reply);
      ++report.requests;
      continue;
    }
    if (!replayed)
      return fail(ErrorKind::BadInput,
                  fmt::format("{}: record #{}: a reply with no request before it", file.string(), index));
    if (compare) {
      if (auto differs = difference(frame, *replayed)) {
        report.divergence = fmt::format("record #{} (reply to {}): {}", index, last_request, *differs);
        break;
      }
    }
    if (replayed->op == Opcode::GaugeValues) {
      if (auto read = decode_gauge_values(replayed->payload)) gauges = std::move(*read);
    }
    if (replayed->op == Opcode::Pixels) {
      if (auto hash = read_pixel_hash(*replayed)) pixels = std::move(*hash);
    }
    replayed.reset();
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report.records = reader.records_read();
  if (!gauges.empty() && !pixels.empty()) report.digest = run_digest(gauges, pixels);
  if (!said_goodbye) (void)channel.call(Frame{Opcode::Goodbye, 0, {}});
  if (opened.server) opened.server->wait_for(std::chrono::milliseconds(2000));
  return report;
}

}  // namespace tidemark::wire
