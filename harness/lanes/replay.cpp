#include "lanes/replay.h"

#include <fmt/format.h>

#include <chrono>

#include "core/digest.h"
#include "lanes/channels.h"
#include "wire/codec.h"
#include "wire/messages.h"
#include "wire/recording.h"
#include "wire/reply_digest.h"

namespace tidemark::lanes {

using namespace wire;

namespace {

// What differs between a recorded and a replayed reply, or nullopt when they agree.
std::optional<std::string> difference(FrameView recorded, const Frame& replayed) {
  if (recorded.op != replayed.op)
    return fmt::format("recorded {}, replayed {}", to_string(recorded.op), to_string(replayed.op));
  // The server pid differs by nature; the driver may by choice (a replay on another build), and
  // what it does differently shows in the replies that follow.
  if (recorded.op == Opcode::Welcome) {
    auto a = decode<Welcome>(recorded);
    auto b = decode<Welcome>(replayed);
    if (!a || !b) return std::string("an unreadable welcome");
    if (a->knobs != b->knobs) return std::string("the server applied different knobs");
    if (a->capabilities != b->capabilities) return std::string("different capabilities");
    return std::nullopt;
  }
  if (std::ranges::equal(recorded.payload, replayed.payload) && recorded.sequence == replayed.sequence)
    return std::nullopt;
  if (recorded.sequence != replayed.sequence)
    return fmt::format("recorded {} #{}, replayed #{}", to_string(recorded.op), recorded.sequence, replayed.sequence);
  if (recorded.op == Opcode::GaugeValues) {
    auto a = decode<GaugeValues>(recorded);
    auto b = decode<GaugeValues>(replayed);
    if (a && b)
      for (size_t i = 0; i < std::min(a->values.size(), b->values.size()); ++i)
        if (a->values[i] != b->values[i])
          return fmt::format("recorded {}={}, replayed {}={}", a->values[i].first, a->values[i].second,
                             b->values[i].first, b->values[i].second);
  }
  if (recorded.op == Opcode::Pixels) {
    auto a = pixels_hash(recorded);
    auto b = pixels_hash(replayed);
    if (a && b) return fmt::format("recorded pixel hash {}, replayed {}", *a, *b);
  }
  if (recorded.op == Opcode::WaitResult) {
    auto a = decode<WaitResult>(recorded);
    auto b = decode<WaitResult>(replayed);
    if (a && b) return fmt::format("recorded wait status {}, replayed {}", to_string(a->status), to_string(b->status));
  }
  if (recorded.op == Opcode::Failure) {
    auto a = decode<Failure>(recorded);
    auto b = decode<Failure>(replayed);
    if (a && b) return fmt::format("recorded failure '{}', replayed '{}'", a->error.message, b->error.message);
  }
  return fmt::format("{} payloads differ ({} vs {} bytes)", to_string(recorded.op), recorded.payload.size(),
                     replayed.payload.size());
}

}  // namespace

// One loop over the records, requests and replies interleaved as recorded: long, but its state
// (the awaited reply, the first divergence, the hashes) is shared by both halves.
Result<ReplayReport> replay(const std::filesystem::path& file, const LaneOptions& lane, bool compare,
                            std::string_view mutant) {
  // The recording is checked while its hello starts the device: both take about as long.
  TIDEMARK_TRY(reader, RecordingReader::open(file, RecordingReader::Checking::AlongsideFirstRecord));
  ReplayReport report;
  report.scenario = reader.header().scenario;
  TIDEMARK_TRY(opened, open_channel(lane, nullptr));
  Channel& channel = *opened.channel;
  auto broken = [&](uint64_t index, std::string what) {
    return fail(ErrorKind::BadInput, fmt::format("{}: record #{}: {}", file.string(), index, what));
  };

  std::optional<std::pair<uint32_t, std::string>> awaited;  // a reply-bearing request: sequence, name
  Opcode awaited_request = Opcode::Ok;  // and its opcode: a gauge reply is digested under its source
  RunDigestInputs digested;
  bool said_goodbye = false;
  uint64_t commands = 0;  // requests of the client API: not the handshake, goodbye or drains
  auto started = std::chrono::steady_clock::now();
  RecordView record{};  // payloads are sent from the reader's buffer, never copied
  Frame hello_frame;    // the one request this lane rewrites
  for (;;) {
    TIDEMARK_TRY(more, reader.next(record));
    if (!more) break;
    uint64_t index = reader.records_read();
    FrameView& frame = record.frame;
    if (record.direction == Direction::Request) {
      if (awaited) return broken(index, fmt::format("a request where the reply to {} belongs", awaited->second));
      if (!is_request(frame.op)) return broken(index, fmt::format("{} is not a request", to_string(frame.op)));
      if (frame.op == Opcode::Hello) {  // this lane's session token, not the recorded one
        TIDEMARK_TRY(hello, decode<Hello>(frame));
        hello.token = opened.token;
        if (!mutant.empty()) hello.config.mutant = mutant;
        hello_frame = make_frame(frame.sequence, hello);
        frame = hello_frame;
        channel.set_deadline(std::chrono::steady_clock::now() + lane.handshake_timeout,
                             fmt::format("the handshake within {} ms", lane.handshake_timeout.count()));
      }
      // A trace is compared and digested by its hash: asking for the hash spares the lane megabytes.
      const FrameView to_send =
          frame.op == Opcode::ReadTrace ? FrameView(Opcode::ReadTraceHash, frame.sequence, {}) : frame;
      if (auto sent = channel.send(to_send); !sent)
        return fail(sent.error().kind, fmt::format("{}: record #{} ({}): {}", file.string(), index, to_string(frame.op),
                                                   sent.error().message));
      if (has_reply(frame.op)) {
        awaited.emplace(frame.sequence, fmt::format("record #{} ({})", index, to_string(frame.op)));
        awaited_request = frame.op;
      }
      said_goodbye = said_goodbye || frame.op == Opcode::Goodbye;
      report.respecifies += frame.op == Opcode::BufferData ? 1 : 0;
      commands += frame.op != Opcode::Hello && frame.op != Opcode::Goodbye && frame.op != Opcode::Sync ? 1 : 0;
      ++report.requests;
      continue;
    }
    if (!awaited) return broken(index, "a reply with no request before it");
    auto replayed = channel.receive();
    if (!replayed)
      return fail(replayed.error().kind, fmt::format("{}: record #{} (reply to {}): {}", file.string(), index,
                                                     awaited->second, replayed.error().message));
    if (replayed->op == Opcode::Welcome) {
      channel.set_deadline(std::nullopt, {});
      started = std::chrono::steady_clock::now();  // throughput excludes the device start-up
    }
    if (frame.op == Opcode::TraceBytes && replayed->op == Opcode::TraceHash) {
      auto recorded = decode<TraceBytes>(frame);
      auto read = decode<TraceHash>(*replayed);
      if (!recorded || !read) return broken(index, "an unreadable trace reply");
      if (compare) {
        // Taken by the checking pass as it read the file: every readable trace reply of a file has one.
        auto taken = reader.trace_hash_of(index);
        if (!taken) return broken(index, "an unreadable trace reply");
        const std::string& was = *taken;
        if (was != read->hash || frame.sequence != replayed->sequence) {
          report.divergence = fmt::format("record #{} (reply to {}): recorded trace hash {} #{}, replayed {} #{}",
                                          index, awaited->second, was, frame.sequence, read->hash, replayed->sequence);
          break;
        }
      }
      add_to_run_digest(digested, awaited_request, *replayed);
      if (replayed->sequence == awaited->first) awaited.reset();
      continue;
    }
    if (compare) {
      if (auto differs = difference(frame, *replayed)) {
        report.divergence = fmt::format("record #{} (reply to {}): {}", index, awaited->second, *differs);
        break;
      }
    }
    add_to_run_digest(digested, awaited_request, *replayed);
    if (replayed->sequence == awaited->first) awaited.reset();
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report.records = reader.records_read();
  if (!report.divergence && awaited)
    return fail(ErrorKind::BadInput, fmt::format("{}: ends before the reply to {}", file.string(), awaited->second));
  if (!report.divergence && commands == 0)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a recording of commands, found none", file.string()));
  if (digested.complete()) report.digest = digested.digest();
  if (!said_goodbye && !report.divergence) {
    if (channel.send(make_frame(0, Goodbye{}))) (void)channel.receive();
  }
  if (opened.server) opened.server->wait_for(std::chrono::milliseconds(2000));
  return report;
}

}  // namespace tidemark::lanes
