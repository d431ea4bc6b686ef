#include "wire/recording.h"

#include "core/files.h"
#include "wire/frame_io.h"
#include "wire/messages.h"


#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>

#include <unistd.h>

#include "core/version.h"

namespace tidemark::wire {

namespace {

constexpr char kTrailerMark = 'E';
constexpr std::array<char, 8> kRecordingMagic = {'T', 'D', 'M', 'K', 'R', 'E', 'C', '\0'};

std::vector<uint8_t> encode_header(const RecordingHeader& header) {
  Writer writer;
  writer.string(header.scenario).i32(header.width).i32(header.height);
  put(writer, header.knobs);
  writer.string(header.mutant);
  writer.string(tidemark_version());
  return writer.take();
}

// Version 3's header ends at the mutant; version 4's names the Tidemark that recorded it.
Result<RecordingHeader> decode_header_payload(std::span<const uint8_t> payload, uint32_t version) {
  Reader reader(payload);
  RecordingHeader header;
  TIDEMARK_TRY(scenario, reader.string());
  TIDEMARK_TRY(width, reader.i32());
  TIDEMARK_TRY(height, reader.i32());
  KnobMap knobs;
  if (auto read = get(reader, knobs); !read) return std::unexpected(read.error());
  TIDEMARK_TRY(mutant, reader.string());
  if (version >= 4) {
    TIDEMARK_TRY(made_by, reader.string());
    header.made_by = std::move(made_by);
  }
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

Result<RecordingWriter> RecordingWriter::create(const std::filesystem::path& file, const RecordingHeader& header) {
  RecordingWriter writer;
  writer.path_ = file;
  writer.temporary_ = file;
  writer.temporary_ += fmt::format(".tmp-{}", ::getpid());
  writer.out_ = std::make_unique<std::ofstream>(writer.temporary_, std::ios::binary | std::ios::trunc);
  if (!*writer.out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", file.string()));
  auto payload = encode_header(header);
  writer.out_->write(kRecordingMagic.data(), kRecordingMagic.size());
  write_bytes(*writer.out_, Writer().u32(kRecordingVersion).u32(static_cast<uint32_t>(payload.size())).take());
  write_bytes(*writer.out_, payload);
  writer.digest_.add(payload);
  if (!*writer.out_) return fail(ErrorKind::Io, fmt::format("cannot write {}", file.string()));
  return writer;
}

Status RecordingWriter::write(Direction direction, FrameView frame) {
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
  std::error_code error;
  if (*out_) std::filesystem::rename(temporary_, path_, error);
  if (!*out_ || error) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    return fail(ErrorKind::Io, fmt::format("cannot write {}{}", path_.string(), error ? ": " + error.message() : ""));
  }
  return {};
}

RecordingWriter::~RecordingWriter() {
  if (!out_ || closed_) return;  // moved from, or in place
  out_->close();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

Result<RecordingReader> RecordingReader::open(const std::filesystem::path& file, Checking checking) {
  TIDEMARK_TRY(mapped, MappedFile::map(file, "recording"));
  auto owner = std::make_shared<MappedFile>(std::move(mapped));
  const std::span<const uint8_t> bytes = owner->bytes();
  TIDEMARK_TRY(reader, over(owner, bytes, file.string()));
  reader.mapped_ = owner.get();
  // The whole pass is a second reader over the same bytes: nothing is copied, each record is
  // only checked and hashed; this one then hands the records out without hashing them again.
  TIDEMARK_TRY(pass, over(owner, bytes, file.string()));
  pass.mapped_ = owner.get();
  reader.verified_ = true;
  auto check = [](RecordingReader pass) -> Result<TraceHashes> {
    TIDEMARK_CHECK(pass.read_through());
    return std::move(pass.trace_hashes_);
  };
  if (checking == Checking::BeforeFirstRecord) {
    TIDEMARK_TRY(hashes, check(std::move(pass)));
    reader.trace_hashes_ = std::move(hashes);
  } else {
    reader.pass_ = std::async(std::launch::async, check, std::move(pass));
  }
  return std::move(reader);
}

Status RecordingReader::read_through() {
  for (;;) {
    TIDEMARK_TRY(view, next_view());
    if (!view) return {};
  }
}

Result<RecordingReader> RecordingReader::open(std::unique_ptr<std::istream> in, std::string name) {
  auto bytes = std::make_shared<std::string>((std::istreambuf_iterator<char>(*in)), std::istreambuf_iterator<char>());
  if (in->bad()) return fail(ErrorKind::Io, fmt::format("cannot read {}", name));
  std::span<const uint8_t> view(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  return over(std::move(bytes), view, std::move(name));
}

Result<RecordingReader> RecordingReader::over(std::shared_ptr<const void> owner, std::span<const uint8_t> bytes,
                                              std::string name) {
  RecordingReader reader;
  reader.owner_ = std::move(owner);
  reader.bytes_ = bytes;
  reader.name_ = std::move(name);
  constexpr size_t kStart = 16;  // magic, version, header length
  if (bytes.size() < kStart || std::memcmp(bytes.data(), kRecordingMagic.data(), kRecordingMagic.size()) != 0)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a Tidemark recording (magic TDMKREC), found something else",
                                                 reader.name_));
  Reader fields{bytes.subspan(kRecordingMagic.size(), 8)};
  uint32_t version = *fields.u32();  // 16 bytes are there: both fields are
  if (version != kRecordingVersion && version != 3)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected recording format version 3 or {}, found {}", reader.name_,
                                                 kRecordingVersion, version));
  uint32_t length = *fields.u32();
  if (length > kMaxRecordingHeaderBytes)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a header of at most {} bytes, found {}", reader.name_,
                                                 kMaxRecordingHeaderBytes, length));
  if (bytes.size() - kStart < length) return fail(ErrorKind::BadInput, fmt::format("{}: truncated header", reader.name_));
  auto payload = bytes.subspan(kStart, length);
  auto header = decode_header_payload(payload, version);
  if (!header) return fail(ErrorKind::BadInput, fmt::format("{}: header: {}", reader.name_, header.error().message));
  reader.header_ = std::move(*header);
  reader.offset_ = reader.records_at_ = kStart + length;
  reader.hashed_to_ = kStart;
  return reader;
}

Result<std::optional<RecordView>> RecordingReader::next_view() {
  if (index_ >= 1 && pass_.valid()) {
    TIDEMARK_TRY(hashes, pass_.get());
    trace_hashes_ = std::move(hashes);
  }
  const uint64_t record_at = offset_;
  auto broken = [&](std::string what) -> std::unexpected<Error> {
    return fail(ErrorKind::BadInput, fmt::format("{}: record #{} at byte {}: {}", name_, index_ + 1, record_at, what));
  };
  const size_t left = bytes_.size() - offset_;
  if (left == 0)
    return broken(fmt::format("expected a record or the trailer, found the end of the file (cut after {} records)",
                              index_));
  const uint8_t direction = bytes_[offset_];
  if (direction == kTrailerMark) {
    TIDEMARK_CHECK(trailer());
    return std::optional<RecordView>();
  }
  if (direction != '>' && direction != '<')
    return broken(fmt::format("expected a direction ('>', '<') or the trailer ('E'), found byte {}", direction));
  if (left == 1) return broken("a direction byte with no frame after it");
  if (left - 1 < kHeaderBytes) return broken(fmt::format("truncated frame header: {} of {} bytes", left - 1, kHeaderBytes));
  auto header = decode_header(bytes_.subspan(offset_ + 1).first<kHeaderBytes>());
  if (!header) return broken(header.error().message);
  const size_t have = left - 1 - kHeaderBytes;
  if (have < header->length)
    return broken(fmt::format("truncated {} frame: {} of {} bytes", to_string(header->op), have, header->length));
  const size_t record_bytes = 1 + kHeaderBytes + header->length;
  offset_ += record_bytes;
  if (!verified_ && offset_ - hashed_to_ >= kHashChunk) hash_up_to(offset_);
  read_up_to(offset_);
  ++index_;
  const FrameView frame(header->op, header->sequence, bytes_.subspan(record_at + 1 + kHeaderBytes, header->length));
  if (!verified_ && mapped_ && frame.op == Opcode::TraceBytes && direction == '<')
    if (auto trace = decode<TraceBytes>(frame))  // an unreadable one is the replay's to name
      trace_hashes_.emplace_back(index_, hash_letting_go(trace->bytes));
  return std::optional<RecordView>(RecordView{static_cast<Direction>(direction), frame});
}

// What the writer hashed piece by piece (the header's payload, then each record's direction and
// encoded frame) lies in one run: it is hashed in long pieces, not record by record, which
// cost the streaming state a copy of every small record into its own buffer.
void RecordingReader::hash_up_to(uint64_t offset) {
  digest_.add(bytes_.subspan(hashed_to_, offset - hashed_to_));
  hashed_to_ = offset;
}

// A mapped file is read in windows: the next 2 MiB are mapped in one call when the reader is
// half-way through the window before (a fault every 16 pages, and the madvise calls that gave
// pages back every 256 KiB, were a tenth of a 100 000-respecify replay), and every 1 MiB read
// the pages behind are given back: the payload the last view points into is always after them.
void RecordingReader::read_up_to(uint64_t offset) {
  if (!mapped_) return;
  constexpr uint64_t kMapAhead = uint64_t{2} << 20;
  constexpr uint64_t kReleaseEvery = uint64_t{1} << 20;
  if (offset + kMapAhead / 2 > mapped_ahead_) {
    const uint64_t from = std::max(mapped_ahead_, offset);
    mapped_ahead_ = std::min<uint64_t>(from + kMapAhead, bytes_.size());
    mapped_->will_read(from, mapped_ahead_);
  }
  if (offset - released_ < 2 * kReleaseEvery) return;
  mapped_->done_between(released_, offset - kReleaseEvery);
  released_ = offset - kReleaseEvery;
}

// A trace is megabytes: hashed in pieces whose pages are given back as they are read.
std::string RecordingReader::hash_letting_go(std::span<const uint8_t> bytes) const {
  constexpr size_t kPiece = size_t{1} << 20;
  StreamHash hash;
  for (size_t at = 0; at < bytes.size(); at += kPiece) {
    auto piece = bytes.subspan(at, std::min(kPiece, bytes.size() - at));
    hash.add(piece);
    let_go(piece);
  }
  return hash.hex();
}

std::optional<std::string> RecordingReader::trace_hash_of(uint64_t record_index) const {
  auto found = std::lower_bound(trace_hashes_.begin(), trace_hashes_.end(), record_index,
                                [](const auto& entry, uint64_t index) { return entry.first < index; });
  if (found == trace_hashes_.end() || found->first != record_index) return std::nullopt;
  return found->second;
}

void RecordingReader::let_go(std::span<const uint8_t> bytes) const {
  if (!mapped_ || bytes.empty()) return;
  const auto from = static_cast<size_t>(bytes.data() - bytes_.data());
  mapped_->done_between(from, from + bytes.size());
}

Result<bool> RecordingReader::next(RecordView& record) {
  TIDEMARK_TRY(view, next_view());
  if (!view) return false;
  record = *view;
  return true;
}

Result<bool> RecordingReader::next(Record& record) {
  RecordView view{};
  TIDEMARK_TRY(more, next(view));
  if (!more) return false;
  record.direction = view.direction;
  record.frame.op = view.frame.op;
  record.frame.sequence = view.frame.sequence;
  record.frame.payload.assign(view.frame.payload.begin(), view.frame.payload.end());
  return true;
}

Result<std::optional<Record>> RecordingReader::next() {
  Record record{};
  TIDEMARK_TRY(more, next(record));
  if (!more) return std::optional<Record>();
  return std::optional<Record>(std::move(record));
}

Status RecordingReader::trailer() {
  auto broken = [&](std::string what) -> std::unexpected<Error> {
    return fail(ErrorKind::BadInput, fmt::format("{}: trailer at byte {}: {}", name_, offset_, what));
  };
  constexpr size_t kTrailerBytes = 1 + 16;
  if (bytes_.size() - offset_ < kTrailerBytes) return broken("cut short");
  Reader fields{bytes_.subspan(offset_ + 1, 16)};
  uint64_t count = *fields.u64();  // 16 bytes are there: both fields are
  uint64_t digest = *fields.u64();
  if (count != index_) return broken(fmt::format("expected {} records, found {} before it", count, index_));
  if (!verified_) hash_up_to(offset_);
  const uint64_t actual = verified_ ? digest : digest_.value();
  if (actual != digest)
    return broken(fmt::format("the records' digest {:016x} is not the one recorded ({:016x}): parts of two "
                              "recordings, or bytes changed",
                              actual, digest));
  if (bytes_.size() - offset_ > kTrailerBytes) return broken("bytes after the trailer");
  return {};
}

}  // namespace tidemark::wire
