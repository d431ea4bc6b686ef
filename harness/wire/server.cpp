#include "wire/server.h"

#include <unistd.h>

#include <fmt/format.h>

#include "core/knobs.h"
#include "core/mutants.h"
#include "wire/posix.h"

namespace tidemark::wire {

namespace {

Frame reply(const Frame& request, Opcode op, std::vector<uint8_t> payload = {}) {
  return Frame{op, request.sequence, std::move(payload)};
}

// Decodes a request's fields; every decoder reads the whole payload or fails.
template <class Decode>
auto read_payload(const Frame& request, Decode decode) -> decltype(decode(std::declval<Reader&>())) {
  Reader reader(request.payload);
  auto value = decode(reader);
  if (!value) return value;
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  return value;
}

Status expect_empty(const Frame& request) {
  if (request.payload.empty()) return {};
  return fail(ErrorKind::Fatal, fmt::format("protocol: {} carries {} unexpected payload bytes", to_string(request.op),
                                            request.payload.size()));
}

}  // namespace

ServerSession::ServerSession(ServerOptions options) : options_(std::move(options)) {}
ServerSession::~ServerSession() = default;

Frame ServerSession::protocol_error(const Frame& request, const std::string& message) {
  open_ = false;
  if (options_.log) options_.log("protocol error: " + message);
  return reply(request, Opcode::ProtocolError, Writer().string(message.substr(0, kMaxStringBytes)).take());
}

Frame ServerSession::handle(const Frame& request) {
  if (!open_) return protocol_error(request, "the session is closed");
  if (!is_request(request.op))
    return protocol_error(request, fmt::format("{} is a reply, not a request", to_string(request.op)));
  if (request.op == Opcode::Hello) return hello(request);
  if (!backend_) return protocol_error(request, fmt::format("{} before hello", to_string(request.op)));
  auto result = dispatch(request);
  if (result) return std::move(*result);
  if (result.error().message.starts_with("protocol: ")) return protocol_error(request, result.error().message);
  return reply(request, Opcode::Failure, encode_failure(result.error()));
}

Frame ServerSession::hello(const Frame& request) {
  if (backend_) return protocol_error(request, "a second hello");
  auto hello = decode_hello(request.payload);
  if (!hello) return protocol_error(request, hello.error().message);
  if (!options_.token.empty() && hello->token != options_.token)
    return protocol_error(request, "session token refused");
  auto knobs = resolve_knobs({&hello->knobs}, "handshake");
  if (!knobs) return protocol_error(request, knobs.error().message);
  auto mutant = find_mutant(hello->mutant);
  if (!mutant) return protocol_error(request, fmt::format("mutant '{}' is not in this server's catalogue", hello->mutant));

  backend::Config config;
  config.width = hello->width;
  config.height = hello->height;
  config.knobs = backend::knobs_from(*knobs);
  config.validation = hello->validation;
  config.mutant = *mutant;
  config.log = options_.log;
  auto backend = backend::Backend::create(config);
  if (!backend) {
    open_ = false;
    return reply(request, Opcode::Failure, encode_failure(backend.error()));
  }
  backend_ = std::move(*backend);
  if (options_.log)
    options_.log(fmt::format("session: wire_deferred_mb={} retire_lag={} mutant='{}'",
                             knobs->at("wire_deferred_mb"), knobs->at("retire_lag"), hello->mutant));
  Welcome welcome{::getpid(), *knobs, {"reclaim-by-proof", "descriptor-memo-epoch", "validation"}};
  return reply(request, Opcode::Welcome, encode_welcome(welcome));
}

Result<Frame> ServerSession::dispatch(const Frame& request) {
  backend::Backend& api = *backend_;
  auto ok = [&](Status status) -> Result<Frame> {
    if (!status) return std::unexpected(status.error());
    return reply(request, Opcode::Ok);
  };
  switch (request.op) {
    case Opcode::CreateBuffer: {
      if (auto ok = expect_empty(request); !ok) return std::unexpected(ok.error());
      TIDEMARK_TRY(buffer, api.create_buffer());
      return reply(request, Opcode::BufferCreated, Writer().u32(buffer).take());
    }
    case Opcode::BufferData: {
      Reader reader(request.payload);
      TIDEMARK_TRY(buffer, reader.u32());
      TIDEMARK_TRY(data, reader.bytes());
      if (auto done = reader.finish(); !done) return std::unexpected(done.error());
      return ok(api.buffer_data(buffer, data));
    }
    case Opcode::BufferSubData: {
      Reader reader(request.payload);
      TIDEMARK_TRY(buffer, reader.u32());
      TIDEMARK_TRY(offset, reader.u64());
      TIDEMARK_TRY(data, reader.bytes());
      if (auto done = reader.finish(); !done) return std::unexpected(done.error());
      return ok(api.buffer_sub_data(buffer, offset, data));
    }
    case Opcode::Draw: {
      TIDEMARK_TRY(call, read_payload(request, [](Reader& reader) -> Result<backend::DrawCall> {
                     backend::DrawCall call;
                     TIDEMARK_TRY(uniform, reader.u32());
                     TIDEMARK_TRY(vertices, reader.u32());
                     TIDEMARK_TRY(x0, reader.i32());
                     TIDEMARK_TRY(y0, reader.i32());
                     TIDEMARK_TRY(x1, reader.i32());
                     TIDEMARK_TRY(y1, reader.i32());
                     call.uniform = uniform;
                     call.vertices = vertices;
                     call.rect = {x0, y0, x1, y1};
                     return call;
                   }));
      return ok(api.draw(call));
    }
    case Opcode::FenceSync: {
      if (auto ok = expect_empty(request); !ok) return std::unexpected(ok.error());
      TIDEMARK_TRY(fence, api.fence_sync());
      return reply(request, Opcode::FenceCreated, Writer().u32(fence).take());
    }
    case Opcode::ClientWait: {
      Reader reader(request.payload);
      TIDEMARK_TRY(fence, reader.u32());
      TIDEMARK_TRY(flush, reader.u8());
      TIDEMARK_TRY(timeout, reader.u64());
      if (auto done = reader.finish(); !done) return std::unexpected(done.error());
      TIDEMARK_TRY(status, api.client_wait(fence, flush != 0, timeout));
      return reply(request, Opcode::WaitResult, Writer().u8(static_cast<uint8_t>(status)).take());
    }
    case Opcode::Flush:
    case Opcode::Finish:
    case Opcode::Present: {
      if (auto ok = expect_empty(request); !ok) return std::unexpected(ok.error());
      if (request.op == Opcode::Flush) return ok(api.flush());
      if (request.op == Opcode::Finish) return ok(api.finish());
      return ok(api.present());
    }
    case Opcode::ReadPixels: {
      if (auto ok = expect_empty(request); !ok) return std::unexpected(ok.error());
      TIDEMARK_TRY(image, api.read_pixels());
      return reply(request, Opcode::Pixels, encode_pixels(image.width, image.height, image.pixels));
    }
    case Opcode::ReadGauges: {
      if (auto ok = expect_empty(request); !ok) return std::unexpected(ok.error());
      TIDEMARK_TRY(gauges, api.gauges());
      return reply(request, Opcode::GaugeValues, encode_gauge_values(backend::named(gauges)));
    }
    case Opcode::ReadValidation: {
      if (auto ok = expect_empty(request); !ok) return std::unexpected(ok.error());
      TIDEMARK_TRY(messages, api.validation_messages());
      Writer writer;
      size_t count = std::min<size_t>(messages.size(), kMaxListEntries);
      writer.u32(static_cast<uint32_t>(count));
      for (size_t i = 0; i < count; ++i) writer.string(messages[i].substr(0, kMaxStringBytes));
      return reply(request, Opcode::ValidationMessages, writer.take());
    }
    case Opcode::Goodbye:
      open_ = false;
      return reply(request, Opcode::Ok);
    default:
      return fail(ErrorKind::Fatal, fmt::format("protocol: unexpected {}", to_string(request.op)));
  }
}

std::string serve_connection(int fd, const ServerOptions& options) {
  auto refuse = [&](uint32_t sequence, const std::string& why) {
    (void)write_all(fd, encode(Frame{Opcode::ProtocolError, sequence, Writer().string(why).take()}));
    if (options.log) options.log("protocol error: " + why);
    return why;
  };
  ServerSession session(options);
  bool greeted = false;
  uint64_t frames = 0;
  while (session.open()) {
    std::array<uint8_t, kHeaderBytes> header_bytes;
    std::optional<Clock::time_point> deadline;
    if (!greeted) deadline = Clock::now() + kHelloTimeout;
    if (auto got = read_exact(fd, header_bytes, deadline); !got) {
      if (got.error().failure == ReadFailure::Timeout) return refuse(0, "no hello in time");
      return fmt::format("client left after {} frames ({})", frames, got.error().message);
    }
    auto header = decode_header(header_bytes);
    if (!header) return refuse(0, header.error().message);
    Frame request{header->op, header->sequence, std::vector<uint8_t>(header->length)};
    if (auto got = read_exact(fd, request.payload, Clock::now() + kFrameTimeout); !got) {
      std::string why = fmt::format("truncated {} frame: {}", to_string(header->op), got.error().message);
      return got.error().failure == ReadFailure::Closed ? why : refuse(header->sequence, why);
    }
    ++frames;
    Frame response = session.handle(request);
    greeted = greeted || response.op == Opcode::Welcome;
    if (auto sent = write_all(fd, encode(response)); !sent) return "client left: " + sent.error().message;
  }
  return fmt::format("session closed after {} frames", frames);
}

}  // namespace tidemark::wire
