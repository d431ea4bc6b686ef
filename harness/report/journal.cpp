#include "report/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/files.h"
#include "report/described.h"
#include "report/json_fields.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

constexpr DocumentKind kJournalKind{.format = "tidemark-journal", .version = 1, .description = "a run's journal"};

std::unexpected<Error> io_error(const fs::path& file, std::string_view doing) {
  const int code = errno;
  Error error = write_error(file, code);  // a full disk is the machine's, as for any write
  if (error.kind == ErrorKind::Environment) return std::unexpected(std::move(error));
  return fail(ErrorKind::Io, fmt::format("{}: cannot {}: {}", file.string(), doing, std::strerror(code)));
}

}  // namespace

template <>
struct JsonDescription<JournalSubject> {
  static constexpr auto fields() {
    return std::tuple{always("id", &JournalSubject::id), always("hash", &JournalSubject::hash)};
  }
};
template <>
struct JsonDescription<JournalHeader> {
  static constexpr auto fields() {
    using T = JournalHeader;
    return std::tuple{always("arguments", &T::arguments), always("cwd", &T::cwd), always("series", &T::series),
                      always("build", &T::build), always("subjects", &T::subjects)};
  }
};

namespace {

nlohmann::json header_json(const JournalHeader& header) { return with_kind(described_json(header), kJournalKind); }

Result<JournalHeader> read_header(const std::string& line, const std::string& where) {
  TIDEMARK_TRY(parsed, parse_json(line, where, "a journal's header"));
  TIDEMARK_TRY(json, without_kind(std::move(parsed), where, kJournalKind));
  JsonFields fields(json, where);
  JournalHeader header;
  read_described(fields, header);
  TIDEMARK_CHECK(fields.finish());
  return header;
}

// The length of `text` up to its last newline: what a torn last line leaves whole.
size_t whole_lines(std::string_view text) {
  const size_t last = text.rfind('\n');
  return last == std::string_view::npos ? 0 : last + 1;
}

}  // namespace

fs::path journal_file(const fs::path& report_dir) { return report_dir / "journal.jsonl"; }

Result<Journal> parse_journal(std::string_view text, const std::string& where) {
  text = text.substr(0, whole_lines(text));  // a torn last line: its subject runs again
  Journal journal;
  size_t number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    const std::string line(text.substr(start, end - start));
    start = end + 1;
    const std::string at = fmt::format("{}:{}", where, ++number);
    if (number == 1) {
      TIDEMARK_TRY(header, read_header(line, at));
      journal.header = std::move(header);
      continue;
    }
    TIDEMARK_TRY(json, parse_json(line, at, "a journal's record line"));
    JsonFields fields(json, at);
    const std::string id = fields.take<std::string>("id");
    fields.skip("record");
    TIDEMARK_CHECK(fields.finish());
    if (!json.contains("record"))
      return fail(ErrorKind::BadInput, fmt::format("{}: expected 'record', a run record, found none", at));
    TIDEMARK_TRY(record, run_record_from_json(json["record"], at, "record"));
    journal.records.insert_or_assign(id, std::move(record));
  }
  if (number == 0)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a journal's header, found no line", where));
  return journal;
}

Result<Journal> read_journal(const fs::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "journal"));
  return parse_journal(text, file.string());
}

Status check_same_run(const JournalHeader& recorded, const JournalHeader& now, const std::string& where) {
  auto differ = [&](std::string_view what, const std::string& journal, const std::string& run) {
    return fail(ErrorKind::BadInput, fmt::format("{}:1: expected the run it journals, found other {}: '{}' in the "
                                                 "journal, '{}' now",
                                                 where, what, journal, run));
  };
  auto words = [](const std::vector<std::string>& list) { return fmt::format("{}", fmt::join(list, " ")); };
  if (recorded.arguments != now.arguments) return differ("arguments", words(recorded.arguments), words(now.arguments));
  if (recorded.cwd != now.cwd) return differ("working folder", recorded.cwd, now.cwd);
  if (recorded.series != now.series) return differ("options", recorded.series, now.series);
  if (recorded.build != now.build) return differ("driver build", recorded.build, now.build);
  for (size_t k = 0; k < std::max(recorded.subjects.size(), now.subjects.size()); ++k) {
    const JournalSubject none{"none", ""};
    const JournalSubject& before = k < recorded.subjects.size() ? recorded.subjects[k] : none;
    const JournalSubject& after = k < now.subjects.size() ? now.subjects[k] : none;
    if (before.id != after.id) return differ(fmt::format("scenarios (the {}th)", k + 1), before.id, after.id);
    if (before.hash != after.hash)
      return differ(fmt::format("content of {} (changed since)", before.id), before.hash, after.hash);
  }
  return {};
}

Result<JournalWriter> JournalWriter::create(const fs::path& file, const JournalHeader& header) {
  TIDEMARK_TRY(fd, open_file_to_write(file, WriteMode::Replace));
  JournalWriter writer(file, std::move(fd));
  TIDEMARK_CHECK(writer.append_line(header_json(header).dump()));
  // The folder's entry for the file, so that a machine that goes down keeps the journal at all.
  UniqueFd dir(
      ::open(file.parent_path().empty() ? "." : file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir || ::fsync(dir.get()) != 0) return io_error(file.parent_path(), "sync the report folder");
  return writer;
}

Result<JournalWriter> JournalWriter::resume(const fs::path& file) {
  TIDEMARK_TRY(fd, open_file_to_write(file, WriteMode::Extend));  // before it is read: never a link's target
  TIDEMARK_TRY(text, read_given_file(file, "journal"));
  if (const size_t whole = whole_lines(text); whole != text.size())
    if (::ftruncate(fd.get(), static_cast<off_t>(whole)) != 0) return io_error(file, "cut the journal's torn line");
  return JournalWriter(file, std::move(fd));
}

Status JournalWriter::add(const std::string& id, const RunRecord& record) {
  return append_line(nlohmann::json{{"id", id}, {"record", to_json(record)}}.dump());
}

Status JournalWriter::append_line(const std::string& line) {
  const std::string whole = line + '\n';
  // One write: O_APPEND puts it at the end whole (a short write is refused below, never continued,
  // so that no reader ever sees two halves of a line written apart).
  const ssize_t written = ::write(fd_.get(), whole.data(), whole.size());
  if (written != static_cast<ssize_t>(whole.size()))
    return std::unexpected(write_error(file_, written < 0 ? errno : ENOSPC));
  if (::fdatasync(fd_.get()) != 0) return io_error(file_, "sync the journal");
  return {};
}

}  // namespace tidemark::report
