#include "core/error.h"

#include <fmt/format.h>

namespace tidemark {

std::string format_location(const SourceLocation& where) {
  return fmt::format("{}:{}:{}", where.file, where.line, where.column);
}

}  // namespace tidemark
