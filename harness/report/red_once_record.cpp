#include "report/red_once_record.h"

#include "report/described.h"

namespace tidemark::report {

namespace {

constexpr DocumentKind kRedOnceDocument{"tidemark-red-once", 1, "a red-once report (red-once.json)"};

}  // namespace

template <>
struct JsonDescription<RedOnceRecord> {
  static constexpr auto fields() {
    using T = RedOnceRecord;
    return std::tuple{
        always("scenario", &T::scenario), always("file", &T::file),   always("scenario_hash", &T::scenario_hash),
        always("lanes", &T::lanes),       always("lines", &T::lines), always("problems", &T::problems)};
  }
};
template <>
struct JsonDescription<RedOnceDocument> {
  static constexpr auto fields() { return std::tuple{always("scenarios", &RedOnceDocument::scenarios)}; }
};

Status write_red_once_document(const std::filesystem::path& file, const RedOnceDocument& document) {
  return write_described_document(file, document, kRedOnceDocument);
}

Result<RedOnceDocument> read_red_once_document(const std::filesystem::path& file) {
  return read_described_document<RedOnceDocument>(file, kRedOnceDocument);
}

}  // namespace tidemark::report
