#include "wire/recording.h"

#include "wire/frame_io.h"

#include <xxhash.h>

#include <fmt/format.h>

#include <array>
#include <cstring>

namespace tidemark::wire {

namespace {

constexpr char kTrailerMark = 'E';
constexpr std::array<char, 8> kRecordingMagic = {'T', 'D', 'M', 'K', 'R', 'E', 'C', '\0'};

std::vector<uint8_t> encode_header(const RecordingHeader& header) {
  Writer writer;
  writer.string(header.scenario).i32(header.width).i32(header.height);
  put(writer, header.knobs);
  writer.string(header.mutant);
  return writer.take();
}

Result<RecordingHeader> decode_header_payload(std::span<const uint8_t> payload) {
  Reader reader(payload);
  RecordingHeader header;
  TIDEMARK_TRY(scenario, reader.string());
  TIDEMARK_TRY(width, reader.i32());
  TIDEMARK_TRY(height, reader.i32());
  KnobMap knobs;
  if (auto read = get(reader, knobs); !read) return std::unexpected(read.error());
  TIDEMARK_TRY(mutant, reader.string());
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  header.scenario = std::move(scenario);
  header.width = width;
  header.height = height;
  header.knobs = std::move(knobs);
  header.mutant = std::move(mutant);
  return header;
}

void write_bytes(std::ostream& out, std::span<const uint8_t> bytes) {
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

struct StreamHash::State {
  XXH3_state_t* state = XXH3_createState();
  ~State() { XXH3_freeState(state); }
};

StreamHash::StreamHash() : state_(std::make_unique<State>()) { XXH3_64bits_reset(state_->state); }
StreamHash::~StreamHash() = default;
StreamHash::StreamHash(StreamHash&& other) noexcept = default;
StreamHash& StreamHash::operator=(StreamHash&& other) noexcept = default;
void StreamHash::add(std::span<const uint8_t> bytes) { XXH3_64bits_update(state_->state, bytes.data(), bytes.size()); }
uint64_t StreamHash::value() const { return XXH3_64bits_digest(state_->state); }

Result<RecordingWriter> RecordingWriter::create(const std::filesystem::path& file, const RecordingHeader& header) {
  RecordingWriter writer;
  writer.path_ = file;
  writer.out_ = std::make_unique<std::ofstream>(file, std::ios::binary | std::ios::trunc);
  if (!*writer.out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", file.string()));
  auto payload = encode_header(header);
  writer.out_->write(kRecordingMagic.data(), kRecordingMagic.size());
  write_bytes(*writer.out_, Writer().u32(kRecordingVersion).u32(static_cast<uint32_t>(payload.size())).take());
  write_bytes(*writer.out_, payload);
  writer.digest_.add(payload);
  if (!*writer.out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", file.string()));
  return writer;
}

Status RecordingWriter::write(Direction direction, const Frame& frame) {
  auto bytes = encode(frame);
  auto direction_byte = static_cast<uint8_t>(direction);
  out_->put(static_cast<char>(direction));
  write_bytes(*out_, bytes);
  digest_.add(std::span<const uint8_t>(&direction_byte, 1));
  digest_.add(bytes);
  ++records_;
  if (!*out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", path_.string()));
  return {};
}

Status RecordingWriter::close() {
  if (closed_) return {};
  closed_ = true;
  out_->put(kTrailerMark);
  write_bytes(*out_, Writer().u64(records_).u64(digest_.value()).take());
  out_->close();
  if (!*out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", path_.string()));
  return {};
}

Result<RecordingReader> RecordingReader::open(const std::filesystem::path& file) {
  auto open_stream = [&]() -> Result<RecordingReader> {
    std::error_code error;
    if (!std::filesystem::is_regular_file(file, error))
      return fail(ErrorKind::BadInput, fmt::format("{}: expected a recording file, found {}", file.string(),
                                                   std::filesystem::exists(file, error) ? "something else" : "nothing"));
    auto in = std::make_unique<std::ifstream>(file, std::ios::binary);
    if (!*in) return fail(ErrorKind::Io, fmt::format("cannot read {}: {}", file.string(), std::strerror(errno)));
    return open(std::move(in), file.string());
  };
  // A whole pass first, up to the trailer: a cut or corrupted recording is refused before
  // any of it is replayed, so nothing is half done.
  TIDEMARK_TRY(check, open_stream());
  for (;;) {
    TIDEMARK_TRY(record, check.next());
    if (!record) break;
  }
  return open_stream();
}

Result<RecordingReader> RecordingReader::open(std::unique_ptr<std::istream> in, std::string name) {
  RecordingReader reader;
  reader.in_ = std::move(in);
  reader.name_ = std::move(name);
  std::array<uint8_t, 16> start{};
  reader.in_->read(reinterpret_cast<char*>(start.data()), start.size());
  if (reader.in_->gcount() != static_cast<std::streamsize>(start.size()) ||
      std::memcmp(start.data(), kRecordingMagic.data(), kRecordingMagic.size()) != 0)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a Tidemark recording (magic TDMKREC), found something else",
                                                 reader.name_));
  Reader fields{std::span<const uint8_t>(start).subspan(kRecordingMagic.size())};
  uint32_t version = *fields.u32();  // 16 bytes were read: both fields are there
  if (version != kRecordingVersion)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected recording format version {}, found {}", reader.name_,
                                                 kRecordingVersion, version));
  uint32_t length = *fields.u32();
  if (length > kMaxRecordingHeaderBytes)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a header of at most {} bytes, found {}", reader.name_,
                                                 kMaxRecordingHeaderBytes, length));
  std::vector<uint8_t> payload(length);
  reader.in_->read(reinterpret_cast<char*>(payload.data()), length);
  if (reader.in_->gcount() != static_cast<std::streamsize>(length))
    return fail(ErrorKind::BadInput, fmt::format("{}: truncated header", reader.name_));
  auto header = decode_header_payload(payload);
  if (!header) return fail(ErrorKind::BadInput, fmt::format("{}: header: {}", reader.name_, header.error().message));
  reader.header_ = std::move(*header);
  reader.offset_ = start.size() + length;
  reader.digest_.add(payload);
  return reader;
}

Result<std::optional<Record>> RecordingReader::next() {
  uint64_t record_at = offset_;
  auto broken = [&](std::string what) -> std::unexpected<Error> {
    return fail(ErrorKind::BadInput,
                fmt::format("{}: record #{} at byte {}: {}", name_, index_ + 1, record_at, what));
  };
  int direction = in_->get();
  if (direction == std::char_traits<char>::eof())
    return broken(fmt::format("expected a record or the trailer, found the end of the file (cut after {} records)",
                              index_));
  if (direction == kTrailerMark) return trailer();
  if (direction != '>' && direction != '<')
    return broken(fmt::format("expected a direction ('>', '<') or the trailer ('E'), found byte {}", direction));
  StreamSource source(*in_);
  auto frame = read_frame(source);
  if (!frame) {
    if (frame.error().message == "end of file") return broken("a direction byte with no frame after it");
    return broken(frame.error().message);
  }
  ++index_;
  offset_ += 1 + kHeaderBytes + frame->payload.size();
  auto direction_byte = static_cast<uint8_t>(direction);
  digest_.add(std::span<const uint8_t>(&direction_byte, 1));
  digest_.add(encode(*frame));
  return std::optional<Record>(Record{static_cast<Direction>(direction), std::move(*frame)});
}

Result<std::optional<Record>> RecordingReader::trailer() {
  auto broken = [&](std::string what) -> std::unexpected<Error> {
    return fail(ErrorKind::BadInput, fmt::format("{}: trailer at byte {}: {}", name_, offset_, what));
  };
  std::array<uint8_t, 16> bytes{};
  in_->read(reinterpret_cast<char*>(bytes.data()), bytes.size());
  if (in_->gcount() != static_cast<std::streamsize>(bytes.size())) return broken("cut short");
  Reader fields{std::span<const uint8_t>(bytes)};
  uint64_t count = *fields.u64();  // 16 bytes were read: both fields are there
  uint64_t digest = *fields.u64();
  if (count != index_) return broken(fmt::format("expected {} records, found {} before it", count, index_));
  if (digest != digest_.value())
    return broken(fmt::format("the records' digest {:016x} is not the one recorded ({:016x}): parts of two "
                              "recordings, or bytes changed",
                              digest_.value(), digest));
  if (in_->peek() != std::char_traits<char>::eof()) return broken("bytes after the trailer");
  return std::optional<Record>();
}

}  // namespace tidemark::wire
