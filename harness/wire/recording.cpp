#include "wire/recording.h"

#include <fmt/format.h>

#include <array>
#include <cstring>

namespace tidemark::wire {

namespace {

constexpr std::array<char, 8> kRecordingMagic = {'T', 'D', 'M', 'K', 'R', 'E', 'C', '\0'};

std::vector<uint8_t> encode_header(const RecordingHeader& header) {
  Writer writer;
  writer.string(header.scenario).i32(header.width).i32(header.height);
  write_knobs(writer, header.knobs);
  writer.string(header.mutant);
  return writer.take();
}

Result<RecordingHeader> decode_header_payload(std::span<const uint8_t> payload) {
  Reader reader(payload);
  RecordingHeader header;
  TIDEMARK_TRY(scenario, reader.string());
  TIDEMARK_TRY(width, reader.i32());
  TIDEMARK_TRY(height, reader.i32());
  TIDEMARK_TRY(knobs, read_knobs(reader));
  TIDEMARK_TRY(mutant, reader.string());
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  header.scenario = std::move(scenario);
  header.width = width;
  header.height = height;
  header.knobs = std::move(knobs);
  header.mutant = std::move(mutant);
  return header;
}

void put_u32(std::ostream& out, uint32_t value) {
  char bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  out.write(bytes, 4);
}

}  // namespace

Result<RecordingWriter> RecordingWriter::create(const std::filesystem::path& file, const RecordingHeader& header) {
  RecordingWriter writer;
  writer.path_ = file;
  writer.out_ = std::make_unique<std::ofstream>(file, std::ios::binary | std::ios::trunc);
  if (!*writer.out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", file.string()));
  auto payload = encode_header(header);
  writer.out_->write(kRecordingMagic.data(), kRecordingMagic.size());
  put_u32(*writer.out_, kRecordingVersion);
  put_u32(*writer.out_, static_cast<uint32_t>(payload.size()));
  writer.out_->write(reinterpret_cast<const char*>(payload.data()), static_cast<std::streamsize>(payload.size()));
  if (!*writer.out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", file.string()));
  return writer;
}

Status RecordingWriter::write(Direction direction, const Frame& frame) {
  auto bytes = encode(frame);
  out_->put(static_cast<char>(direction));
  out_->write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!*out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", path_.string()));
  return {};
}

Status RecordingWriter::close() {
  out_->close();
  if (!*out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", path_.string()));
  return {};
}

Result<RecordingReader> RecordingReader::open(const std::filesystem::path& file) {
  auto in = std::make_unique<std::ifstream>(file, std::ios::binary);
  if (!*in) return fail(ErrorKind::Io, fmt::format("cannot read {}: {}", file.string(), std::strerror(errno)));
  return open(std::move(in), file.string());
}

Result<RecordingReader> RecordingReader::open(std::unique_ptr<std::istream> in, std::string name) {
  RecordingReader reader;
  reader.in_ = std::move(in);
  reader.name_ = std::move(name);
  std::array<char, 16> start{};
  reader.in_->read(start.data(), start.size());
  if (reader.in_->gcount() != static_cast<std::streamsize>(start.size()) ||
      std::memcmp(start.data(), kRecordingMagic.data(), kRecordingMagic.size()) != 0)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a Tidemark recording (magic TDMKREC), found something else",
                                                 reader.name_));
  auto u32_at = [&](size_t at) {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= uint32_t{static_cast<uint8_t>(start[at + static_cast<size_t>(i)])} << (8 * i);
    return value;
  };
  uint32_t version = u32_at(8);
  if (version != kRecordingVersion)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected recording format version {}, found {}", reader.name_,
                                                 kRecordingVersion, version));
  uint32_t length = u32_at(12);
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
  return reader;
}

Result<std::optional<Record>> RecordingReader::next() {
  uint64_t record_at = offset_;
  auto broken = [&](std::string what) -> std::unexpected<Error> {
    return fail(ErrorKind::BadInput,
                fmt::format("{}: record #{} at byte {}: {}", name_, index_ + 1, record_at, what));
  };
  int direction = in_->get();
  if (direction == std::char_traits<char>::eof()) return std::optional<Record>();
  if (direction != '>' && direction != '<')
    return broken(fmt::format("expected a direction ('>' or '<'), found byte {}", direction));
  std::array<uint8_t, kHeaderBytes> header_bytes;
  in_->read(reinterpret_cast<char*>(header_bytes.data()), header_bytes.size());
  if (in_->gcount() != static_cast<std::streamsize>(header_bytes.size()))
    return broken(fmt::format("truncated frame header: {} of {} bytes", in_->gcount(), kHeaderBytes));
  auto header = decode_header(header_bytes);
  if (!header) return broken(header.error().message);
  Frame frame{header->op, header->sequence, {}};
  // Grow as bytes arrive, so a corrupt length cannot allocate far past the file's end.
  constexpr size_t kChunk = 1 << 20;
  while (frame.payload.size() < header->length) {
    size_t want = std::min<size_t>(kChunk, header->length - frame.payload.size());
    size_t have = frame.payload.size();
    frame.payload.resize(have + want);
    in_->read(reinterpret_cast<char*>(frame.payload.data() + have), static_cast<std::streamsize>(want));
    if (in_->gcount() != static_cast<std::streamsize>(want))
      return broken(fmt::format("truncated {} frame: {} of {} payload bytes", to_string(header->op),
                                have + static_cast<size_t>(in_->gcount()), header->length));
  }
  ++index_;
  offset_ += 1 + kHeaderBytes + header->length;
  return std::optional<Record>(Record{static_cast<Direction>(direction), std::move(frame)});
}

}  // namespace tidemark::wire
