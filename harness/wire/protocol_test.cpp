#include "wire/codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>

#include "session/session.h"
#include "wire/frame_io.h"
#include "wire/messages.h"
#include "wire/protocol_layout.h"
#include "wire/server.h"

namespace tidemark::wire {
namespace {

// --- Generated values for every field type a message can hold ---------------------------

class Generator {
 public:
  explicit Generator(uint32_t seed) : random_(seed) {}

  void fill(bool& value) { value = pick(0, 1) == 1; }
  void fill(uint32_t& value) { value = static_cast<uint32_t>(random_()); }
  void fill(int32_t& value) { value = static_cast<int32_t>(random_()); }
  void fill(uint64_t& value) { value = (uint64_t{random_()} << 32) | random_(); }
  void fill(int64_t& value) { value = static_cast<int64_t>((uint64_t{random_()} << 32) | random_()); }
  void fill(std::string& value) {
    value.resize(static_cast<size_t>(pick(0, 40)));
    for (char& c : value) c = static_cast<char>(pick(0, 255));
  }
  void fill(std::vector<uint8_t>& value) {
    value.resize(static_cast<size_t>(pick(0, 300)));
    for (uint8_t& byte : value) byte = static_cast<uint8_t>(pick(0, 255));
  }
  void fill(Bytes& value) {
    fill(storage_.emplace_back());
    value = storage_.back();
  }
  void fill(KnobMap& value) {
    value.clear();
    for (int i = pick(0, 5); i > 0; --i) fill_pair(value);
  }
  void fill(NamedValues& value) {
    value.resize(static_cast<size_t>(pick(0, 20)));
    for (auto& [name, number] : value) {
      fill(name);
      fill(number);
    }
  }
  void fill(std::vector<std::string>& value) {
    value.resize(static_cast<size_t>(pick(0, 6)));
    for (auto& text : value) fill(text);
  }
  void fill(WaitStatus& value) { value = static_cast<WaitStatus>(pick(0, 2)); }
  void fill(WalkUpdates& value) {
    value.resize(static_cast<size_t>(pick(0, 5)));
    for (auto& [at, event] : value) {
      fill(at);
      fill(event.gpu_id);
      fill(event.pid);
      fill(event.size);
    }
  }
  void fill(Error& value) {
    value.kind = static_cast<ErrorKind>(pick(0, 3));
    fill(value.message);
  }
  template <class Enum>
    requires std::is_enum_v<Enum>
  void fill(Enum& value) {
    constexpr int kCount = std::is_same_v<Enum, kernel::CommandKind>      ? std::size(kernel::kCommandKindNames)
                           : std::is_same_v<Enum, kernel::KgslNode>       ? std::size(kernel::kKgslNodeNames)
                           : std::is_same_v<Enum, kernel::PowerPolicy>    ? std::size(kernel::kPowerPolicyNames)
                           : std::is_same_v<Enum, kernel::Queue>          ? std::size(kernel::kQueueNames)
                           : std::is_same_v<Enum, tracer::MemorySource>   ? std::size(tracer::kMemorySourceNames)
                           : std::is_same_v<Enum, tracer::ValueDirection> ? 3
                           : std::is_same_v<Enum, Completion>             ? std::size(kCompletionNames)
                                                                          : std::size(kernel::kDoorbellFaultNames);
    value = static_cast<Enum>(pick(0, kCount - 1));
  }
  void fill(double& value) { value = static_cast<double>(static_cast<int32_t>(random_())) / 8; }
  template <class T>
  void fill(std::optional<T>& value) {
    if (pick(0, 1) == 0) {
      value.reset();
      return;
    }
    T inner{};
    fill(inner);
    value = std::move(inner);
  }
  template <class... T>
  void fill(std::variant<T...>& value) {
    fill_alternative<0>(value, static_cast<size_t>(pick(0, sizeof...(T) - 1)));
  }
  template <size_t I, class... T>
  void fill_alternative(std::variant<T...>& value, size_t index) {
    if constexpr (I < sizeof...(T)) {
      if (index != I) return fill_alternative<I + 1>(value, index);
      std::variant_alternative_t<I, std::variant<T...>> inner{};
      fill(inner);
      value = std::move(inner);
    }
  }
  void fill(std::monostate&) {}
  template <FieldStruct T>
  void fill(T& value) {
    std::apply([&](auto&... field) { (fill(field), ...); }, T::fields(value));
  }
  template <class T>
  void fill(std::vector<T>& values) {
    values.resize(static_cast<size_t>(pick(0, 4)));
    for (auto& value : values) fill(value);
  }

  template <class M>
  M message() {
    M m;
    std::apply([&](auto&... field) { (fill(field), ...); }, M::fields(m));
    fix(m);
    return m;
  }

 private:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }
  void fill_pair(KnobMap& map) {
    std::string name;
    fill(name);
    fill(map[name]);
  }
  // What a layout cannot say (each message's check()) holds for generated values too.
  template <class M>
  void fix(M&) {}
  void fix(Hello& m) {
    m.config.width = pick(1, kMaxTargetSide);
    m.config.height = pick(1, kMaxTargetSide);
    m.config.model.kmd.ring_dwords = static_cast<uint32_t>(pick(kernel::kMinRingDwords, 1 << 16));
    auto& table = m.config.model.kgsl.freq_table_hz;
    table.insert(table.begin(), static_cast<uint64_t>(pick(1, 1'000'000'000)));
  }
  void fix(KmdSubmit& m) {
    m.op.commands.resize(static_cast<size_t>(pick(1, 5)));
    for (auto& command : m.op.commands) fill(command);
  }
  void fix(KernelAllocate& m) { m.type = static_cast<MemoryType>(pick(0, 8)); }
  void fix(KernelNode& m) { m.type = static_cast<MemoryType>(pick(0, 8)); }
  void fix(Pixels& m) {
    m.width = pick(0, 9);
    m.height = pick(0, 9);
    m.bytes.assign(static_cast<size_t>(m.width * m.height * 4), 0x5a);
  }

  std::mt19937 random_;
  std::deque<std::vector<uint8_t>> storage_;  // what Bytes fields view
};

bool same(const auto& a, const auto& b) { return a == b; }
bool same(Bytes a, Bytes b) { return std::ranges::equal(a, b); }
bool same(const Error& a, const Error& b) { return a.kind == b.kind && a.message == b.message; }

template <class M>
bool same_message(const M& a, const M& b) {
  return std::apply(
      [&](const auto&... left) {
        return std::apply([&](const auto&... right) { return (same(left, right) && ...); }, M::fields(b));
      },
      M::fields(a));
}

// Check that a message survives encoding, the byte stream and decoding, field for field.
template <class M>
void expect_round_trips(Generator& generator) {
  for (int variant = 0; variant < 25; ++variant) {
    M sent = generator.message<M>();
    MemorySource stream;
    stream.append(encode(make_frame(static_cast<uint32_t>(variant), sent)));
    auto frame = read_frame(stream);
    ASSERT_TRUE(frame) << to_string(M::kOpcode) << ": " << frame.error().message;
    EXPECT_EQ(frame->op, M::kOpcode);
    EXPECT_EQ(frame->sequence, static_cast<uint32_t>(variant));
    auto received = decode<M>(*frame);
    ASSERT_TRUE(received) << to_string(M::kOpcode) << ": " << received.error().message;
    EXPECT_TRUE(same_message(sent, *received)) << to_string(M::kOpcode) << " variant " << variant;
  }
}

// Check that every cut of a message's payload is refused, and so is one byte too many.
template <class M>
void expect_every_cut_refused(Generator& generator) {
  auto payload = encode_payload(generator.message<M>());
  for (size_t length = 0; length < payload.size(); ++length)
    EXPECT_FALSE(decode<M>(std::span<const uint8_t>(payload.data(), length)))
        << to_string(M::kOpcode) << " cut to " << length << " of " << payload.size() << " bytes";
  payload.push_back(0);
  auto long_by_one = decode<M>(std::span<const uint8_t>(payload));
  ASSERT_FALSE(long_by_one) << to_string(M::kOpcode);
  EXPECT_EQ(long_by_one.error().message, "protocol: 1 unread payload bytes");
}

// Check that every message of the schema round-trips with generated values.
TEST(Protocol, EveryMessageRoundTripsWithGeneratedValues) {
  Generator generator(20261130);
#define TIDEMARK_ROUND_TRIP(name, code, text) expect_round_trips<name>(generator);
  TIDEMARK_WIRE_MESSAGES(TIDEMARK_ROUND_TRIP)
#undef TIDEMARK_ROUND_TRIP
}

// Check that no cut or padded payload of any message decodes.
TEST(Protocol, EveryCutOrPaddedPayloadIsRefused) {
  Generator generator(7);
#define TIDEMARK_CUTS(name, code, text) expect_every_cut_refused<name>(generator);
  TIDEMARK_WIRE_MESSAGES(TIDEMARK_CUTS)
#undef TIDEMARK_CUTS
}

// Check that the opcodes a header accepts are exactly the schema's messages, each with a
// codec that reads its own encoding: an opcode cannot exist without one.
TEST(Protocol, EveryOpcodeHasACodecAndNothingElseIsAnOpcode) {
  Generator generator(3);
  std::map<uint16_t, std::vector<uint8_t>> encodings;
#define TIDEMARK_ENCODING(name, code, text) encodings[code] = encode_payload(generator.message<name>());
  TIDEMARK_WIRE_MESSAGES(TIDEMARK_ENCODING)
#undef TIDEMARK_ENCODING
  for (uint32_t value = 0; value <= 0xffff; ++value) {
    auto op = static_cast<Opcode>(value);
    auto known = encodings.find(static_cast<uint16_t>(value));
    ASSERT_EQ(is_known(op), known != encodings.end()) << "opcode " << value;
    if (known == encodings.end()) continue;
    auto checked = check_payload(Frame{op, 1, known->second});
    EXPECT_TRUE(checked) << to_string(op) << ": " << checked.error().message;
    EXPECT_EQ(is_request(op), value < 100) << to_string(op);
  }
}

// Check which requests are pipelined: the ones the client API calls without a value.
TEST(Protocol, OnlyCallsWithoutAValueArePipelined) {
  std::vector<std::string> pipelined;
#define TIDEMARK_PIPELINED(name, code, text) \
  if (is_request(Opcode::name) && !has_reply(Opcode::name)) pipelined.push_back(text);
  TIDEMARK_WIRE_MESSAGES(TIDEMARK_PIPELINED)
#undef TIDEMARK_PIPELINED
  EXPECT_EQ(pipelined,
            (std::vector<std::string>{
                "buffer_data",   "buffer_sub_data", "draw",       "flush",         "finish",         "present",
                "gpu_mem_total", "gpu_alloc",       "gpu_free",   "gpumem_attach", "gpumem_walk",    "gpumem_sample",
                "kmd_submit",    "kmd_advance",     "kmd_wait",   "kmd_frame",     "kmd_signal",     "kmd_fault",
                "kmd_diagnose",  "kgsl_sample",     "kgsl_power", "kgsl_read",     "trace_counters", "trace_sample"}));
}

std::array<uint8_t, kHeaderBytes> header_of(const Frame& frame) {
  auto bytes = encode(frame);
  std::array<uint8_t, kHeaderBytes> header;
  std::copy_n(bytes.begin(), kHeaderBytes, header.begin());
  return header;
}

// Check that a frame's header round-trips and the payload follows it unchanged.
TEST(Protocol, FrameHeaderRoundTrips) {
  Frame frame{Opcode::BufferData, 77, {1, 2, 3}};
  auto bytes = encode(frame);
  ASSERT_EQ(bytes.size(), kHeaderBytes + 3);
  auto header = decode_header(header_of(frame));
  ASSERT_TRUE(header) << header.error().message;
  EXPECT_EQ(header->op, Opcode::BufferData);
  EXPECT_EQ(header->sequence, 77u);
  EXPECT_EQ(header->length, 3u);
  EXPECT_EQ(bytes[0], 'T');  // the magic reads "TDMK" in a hex dump
  EXPECT_EQ(bytes[3], 'K');
}

// Check that each way a header can be wrong is a protocol error naming what was wrong.
TEST(Protocol, BadHeadersAreRefused) {
  auto header = header_of(Frame{Opcode::Flush, 1, {}});
  auto bad_magic = header;
  bad_magic[0] ^= 0xff;
  EXPECT_NE(decode_header(bad_magic).error().message.find("bad magic"), std::string::npos);

  auto bad_version = header;
  bad_version[4] = 9;
  EXPECT_EQ(decode_header(bad_version).error().message,
            "protocol: version 9, this side speaks " + std::to_string(kProtocolVersion));

  auto bad_opcode = header;
  bad_opcode[6] = 0xee;
  EXPECT_EQ(decode_header(bad_opcode).error().message, "protocol: unknown opcode 238");

  auto too_long = header;
  too_long[11] = 0x7f;  // ~2 GiB
  EXPECT_NE(decode_header(too_long).error().message.find("at most 268435456"), std::string::npos);
  auto past_hello_limit = header;
  past_hello_limit[9] = 0x20;  // 8 KiB
  EXPECT_EQ(decode_header(past_hello_limit, kMaxHelloPayloadBytes).error().message,
            "protocol: flush payload of 8192 bytes, at most 4096");
}

// Check that a header claiming a large payload costs memory only for the bytes that came.
TEST(FrameIo, APayloadGrowsWithTheBytesThatArriveNotWithTheClaim) {
  auto bytes = encode(Frame{Opcode::BufferData, 1, std::vector<uint8_t>(3 << 20, 7)});
  bytes.resize(kHeaderBytes + 1000);  // claims 3 MiB, 1000 bytes arrive
  MemorySource stream;
  stream.append(bytes);
  auto frame = read_frame(stream);
  ASSERT_FALSE(frame);
  EXPECT_EQ(frame.error().failure, ReadFailure::Closed);
  EXPECT_EQ(frame.error().message, "truncated buffer_data frame: 1000 of 3145728 bytes");
}

// Check that a frame that has begun but does not finish by its deadline times out, and a
// stream that ends inside a header is a truncation, not a clean end.
TEST(FrameIo, AFrameThatStallsMidwayTimesOutAndACutHeaderIsNamed) {
  auto pair = socket_pair();
  ASSERT_TRUE(pair);
  auto bytes = encode(make_frame(1, Hello{.token = "t", .config = {.width = 8, .height = 8}}));
  ASSERT_TRUE(write_all(pair->first.get(), std::span(bytes).first(5)));
  FdSource source(pair->second.get());
  auto frame = read_frame(source, {.deadline = Clock::now() + std::chrono::milliseconds(50)});
  ASSERT_FALSE(frame);
  EXPECT_EQ(frame.error().failure, ReadFailure::Timeout);

  pair->first.reset();
  MemorySource cut;
  cut.append(std::span(bytes).first(5));
  auto truncated = read_frame(cut);
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().failure, ReadFailure::Closed);
  EXPECT_EQ(truncated.error().message, "truncated frame header: 5 of 16 bytes");
}

// Check that the wire's layout is the one its version was released with: a message or field
// added, dropped, reordered or retyped without a new kProtocolVersion fails here.
TEST(Protocol, TheLayoutChangesOnlyWithTheVersion) {
  EXPECT_EQ(protocol_layout_hash(), kProtocolLayoutHash)
      << "the wire's layout changed: bump kProtocolVersion (now " << kProtocolVersion
      << ") and set kProtocolLayoutHash to 0x" << std::hex << protocol_layout_hash() << ". The layout:\n"
      << protocol_layout();
}

// Check that the fingerprint sees a change inside a nested struct, not only in a message's
// own fields: the session config's model section is part of the Hello's layout.
TEST(Protocol, TheLayoutReachesIntoNestedStructs) {
  std::string hello;
  describe_layout<Hello>(hello);
  std::string model;
  describe_layout<api::ModelConfig>(model);
  EXPECT_NE(hello.find(model), std::string::npos) << hello;
  EXPECT_EQ(hello.rfind("{s,{s,i32,i32,map<s,i64>,s,b,{u32,u32,b,", 0), 0u) << hello;
}

TEST(Protocol, HostileSizesAreRefused) {
  auto huge_target = encode_payload(Hello{.token = "", .config = {.width = 100000, .height = 8}});
  EXPECT_NE(decode<Hello>(std::span<const uint8_t>(huge_target)).error().message.find("target 100000x8"),
            std::string::npos);
  auto long_string = Writer().u32(kMaxStringBytes + 1).take();
  long_string.resize(long_string.size() + kMaxStringBytes + 1);
  Reader reader(long_string);
  EXPECT_NE(reader.string().error().message.find("at most 4096"), std::string::npos);
  auto bad_flag = encode_payload(ClientWait{.fence = 1, .flush = true, .timeout_ns = 0});
  bad_flag[4] = 2;
  EXPECT_EQ(decode<ClientWait>(std::span<const uint8_t>(bad_flag)).error().message,
            "protocol: flag 2, expected 0 or 1");
}

Frame hello_frame(std::string token, KnobMap knobs = {}) {
  return make_frame(1,
                    Hello{.token = std::move(token), .config = {.width = 8, .height = 8, .knobs = std::move(knobs)}});
}

std::string refusal(const std::optional<Frame>& reply) {
  if (!reply || reply->op != Opcode::ProtocolError) return "(not a protocol error)";
  return decode<ProtocolError>(*reply).value().message;
}

// Check that a session refuses work before the hello and a wrong token, and closes.
TEST(ServerSession, RefusesWorkBeforeHelloAndAWrongToken) {
  ServerSession early(ServerOptions{"right", nullptr});
  EXPECT_EQ(refusal(early.handle(make_frame(1, Flush{}))), "flush before hello");
  EXPECT_FALSE(early.open());

  ServerSession wrong(ServerOptions{"right", nullptr});
  EXPECT_EQ(refusal(wrong.handle(hello_frame("wrong"))), "session token refused");
  EXPECT_FALSE(wrong.open());
}

// Check that a client cannot make the server treat a reply opcode as a request.
TEST(ServerSession, RefusesRepliesAsRequests) {
  ServerSession session(ServerOptions{"", nullptr});
  EXPECT_EQ(refusal(session.handle(Frame{Opcode::Welcome, 1, {}})), "welcome is a reply, not a request");
}

// Check that an out-of-range knob in the handshake is refused by name.
TEST(ServerSession, RefusesAnOutOfRangeKnob) {
  const api::BackendRegistry no_backends;
  ServerSession server(ServerOptions{.open_session = session::session_factory(no_backends)});
  EXPECT_EQ(refusal(server.handle(hello_frame("", {{"wire_deferred_mb", 70000}}))),
            "handshake: expected wire_deferred_mb in 0..65536, found 70000");
}

}  // namespace
}  // namespace tidemark::wire
