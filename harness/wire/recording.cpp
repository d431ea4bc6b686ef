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

Result<RecordingHeader> decode_header_payload(std::span<const uint8_t> payload) {
  Reader reader(payload);
  RecordingHeader header;
  TIDEMARK_TRY(scenario, reader.string());
  TIDEMARK_TRY(width, reader.i32());
  TIDEMARK_TRY(height, reader.i32());
  KnobMap knobs;
  if (auto read = get(reader, knobs); !read) return std::unexpected(read.error());
  TIDEMARK_TRY(mutant, reader.string());
  TIDEMARK_TRY(made_by, reader.string());
  header.made_by = std::move(made_by);
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
  TIDEMARK_TRY(opened, open_file_to_write(writer.temporary_, WriteMode::Replace));
  writer.out_ = output_stream(std::move(opened));
  auto payload = encode_header(header);
  writer.out_->write(kRecordingMagic.data(), kRecordingMagic.size());
  write_bytes(*writer.out_, Writer().u32(kRecordingVersion).u32(static_cast<uint32_t>(payload.size())).take());
  write_bytes(*writer.out_, payload);
  writer.digest_.add(payload);
  if (!*writer.out_) return std::unexpected(write_error(file, errno));
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
  if (!*out_) return std::unexpected(write_error(path_, errno));
  return {};
}

Status RecordingWriter::close() {
  if (closed_) return {};
  closed_ = true;
  out_->put(kTrailerMark);
  write_bytes(*out_, Writer().u64(records_).u64(digest_.value()).take());
  out_->flush();
  const int flush_error = errno;
  const bool written = static_cast<bool>(*out_);
  out_.reset();  // closes the file
  std::error_code error;
  if (written) std::filesystem::rename(temporary_, path_, error);
  if (!written || error) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    return std::unexpected(write_error(path_, error ? error.value() : flush_error));
  }
  return {};
}

RecordingWriter::~RecordingWriter() {
  if (!out_ || closed_) return;  // moved from, or in place
  out_.reset();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

Result<RecordingReader> RecordingReader::open(const std::filesystem::path& file, Checking checking) {
  TIDEMARK_TRY(opened, SequentialFile::open(file, "recording"));
  // The whole pass is a second reader of the same open file (a path replaced meanwhile is not
  // read): each record is only checked and hashed; this one then hands the records out
  // without hashing them again.
  TIDEMARK_TRY(again, opened.again());
  RecordingReader first;
  first.file_.emplace(std::move(opened));
  first.name_ = file.string();
  TIDEMARK_TRY(reader, start(std::move(first)));
  RecordingReader second;
  second.file_.emplace(std::move(again));
  second.name_ = file.string();
  TIDEMARK_TRY(pass, start(std::move(second)));
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
  RecordingReader reader;
  reader.whole_.assign(std::istreambuf_iterator<char>(*in), std::istreambuf_iterator<char>());
  if (in->bad()) return fail(ErrorKind::Io, fmt::format("cannot read {}", name));
  reader.name_ = std::move(name);
  return start(std::move(reader));
}

Result<RecordingReader> RecordingReader::start(RecordingReader reader) {
  constexpr size_t kStart = 16;  // magic, version, header length
  TIDEMARK_TRY(start, reader.bytes_at(0, kStart));
  if (start.size() < kStart || std::memcmp(start.data(), kRecordingMagic.data(), kRecordingMagic.size()) != 0)
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected a Tidemark recording (magic TDMKREC), found something else", reader.name_));
  reader.hashed_to_ = kStart;  // the digest starts at the header's payload
  Reader fields{start.subspan(kRecordingMagic.size(), 8)};
  uint32_t version = *fields.u32();  // 16 bytes are there: both fields are
  if (version != kRecordingVersion)
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected recording format version {} (wire protocol {}), found {}{}", reader.name_,
                            kRecordingVersion, kProtocolVersion, version,
                            version < kRecordingVersion ? ", made by an older Tidemark: record it again" : ""));
  uint32_t length = *fields.u32();
  if (length > kMaxRecordingHeaderBytes)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a header of at most {} bytes, found {}", reader.name_,
                                                 kMaxRecordingHeaderBytes, length));
  if (reader.size() - kStart < length)
    return fail(ErrorKind::BadInput, fmt::format("{}: truncated header", reader.name_));
  TIDEMARK_TRY(payload, reader.bytes_at(kStart, length));
  auto header = decode_header_payload(payload);
  if (!header) return fail(ErrorKind::BadInput, fmt::format("{}: header: {}", reader.name_, header.error().message));
  reader.header_ = std::move(*header);
  reader.offset_ = kStart + length;
  return reader;
}

Result<std::span<const uint8_t>> RecordingReader::bytes_at(uint64_t at, uint64_t length) {
  if (!file_) {
    const auto whole = std::span(reinterpret_cast<const uint8_t*>(whole_.data()), whole_.size());
    at = std::min<uint64_t>(at, whole.size());
    return whole.subspan(at, std::min<uint64_t>(length, whole.size() - at));
  }
  if (!verified_ && !file_->holds(at, length)) TIDEMARK_CHECK(hash_up_to(at));
  return file_->read(at, length);
}

// What the writer hashed piece by piece (the header's payload, then each record's direction and
// encoded frame) lies in one run: it is hashed in long pieces (what the file's buffer holds, or
// a whole stream), not record by record, which cost the streaming state a copy of every small
// record into its own buffer. The pieces are hashed before they leave the buffer: from a record's
// start, every byte back to hashed_to_ is still in it.
Status RecordingReader::hash_up_to(uint64_t offset) {
  if (file_ && !file_->holds(hashed_to_, offset - hashed_to_))
    return fail(ErrorKind::Fatal,
                fmt::format("{}: bytes {}..{} left the buffer before they were hashed", name_, hashed_to_, offset));
  TIDEMARK_TRY(run, bytes_at(hashed_to_, offset - hashed_to_));
  digest_.add(run);
  hashed_to_ = offset;
  return {};
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
  const uint64_t left = size() - offset_;
  if (left == 0)
    return broken(
        fmt::format("expected a record or the trailer, found the end of the file (cut after {} records)", index_));
  TIDEMARK_TRY(head, bytes_at(record_at, 1 + kHeaderBytes));
  const uint8_t direction = head[0];
  if (direction == kTrailerMark) {
    TIDEMARK_CHECK(trailer());
    return std::optional<RecordView>();
  }
  if (direction != '>' && direction != '<')
    return broken(fmt::format("expected a direction ('>', '<') or the trailer ('E'), found byte {}", direction));
  if (left == 1) return broken("a direction byte with no frame after it");
  if (left - 1 < kHeaderBytes)
    return broken(fmt::format("truncated frame header: {} of {} bytes", left - 1, kHeaderBytes));
  auto header = decode_header(head.subspan(1).first<kHeaderBytes>());
  if (!header) return broken(header.error().message);
  const uint64_t have = left - 1 - kHeaderBytes;
  if (have < header->length)
    return broken(fmt::format("truncated {} frame: {} of {} bytes", to_string(header->op), have, header->length));
  const uint64_t record_bytes = 1 + kHeaderBytes + header->length;
  TIDEMARK_TRY(record, bytes_at(record_at, record_bytes));
  offset_ += record_bytes;
  ++index_;
  const FrameView frame(header->op, header->sequence, record.subspan(1 + kHeaderBytes));
  if (!verified_ && file_ && frame.op == Opcode::TraceBytes && direction == '<')
    if (auto trace = decode<TraceBytes>(frame))  // an unreadable one is the replay's to name
      trace_hashes_.emplace_back(index_, trace_hash(std::string_view(reinterpret_cast<const char*>(trace->bytes.data()),
                                                                     trace->bytes.size())));
  return std::optional<RecordView>(RecordView{static_cast<Direction>(direction), frame});
}

std::optional<std::string> RecordingReader::trace_hash_of(uint64_t record_index) const {
  auto found = std::lower_bound(trace_hashes_.begin(), trace_hashes_.end(), record_index,
                                [](const auto& entry, uint64_t index) { return entry.first < index; });
  if (found == trace_hashes_.end() || found->first != record_index) return std::nullopt;
  return found->second;
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
  if (size() - offset_ < kTrailerBytes) return broken("cut short");
  TIDEMARK_TRY(trailer, bytes_at(offset_, kTrailerBytes));
  Reader fields{trailer.subspan(1)};
  uint64_t count = *fields.u64();  // 16 bytes are there: both fields are
  uint64_t digest = *fields.u64();
  if (count != index_) return broken(fmt::format("expected {} records, found {} before it", count, index_));
  if (!verified_) TIDEMARK_CHECK(hash_up_to(offset_));
  const uint64_t actual = verified_ ? digest : digest_.value();
  if (actual != digest)
    return broken(
        fmt::format("the records' digest {:016x} is not the one recorded ({:016x}): parts of two "
                    "recordings, or bytes changed",
                    actual, digest));
  if (size() - offset_ > kTrailerBytes) return broken("bytes after the trailer");
  return {};
}

}  // namespace tidemark::wire
