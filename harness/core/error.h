// Errors are values inside the library; the CLI maps ErrorKind to an exit code.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <utility>

namespace tidemark {

enum class ErrorKind {
  BadInput,     // a scenario, knob or command line the user must fix (exit 2)
  Environment,  // the machine lacks something: no lavapipe, no validation layer (exit 3)
  Fatal,        // the code under test failed: device lost, a sync that cannot complete (exit 4)
  Io,           // a file could not be read or written (exit 4)
};

struct Error {
  ErrorKind kind = ErrorKind::Fatal;
  std::string message;
  // A pipelined backend reports a call's failure from a later call: this many calls were
  // made after the one that failed (0: the latest call failed).
  uint32_t calls_after = 0;
};

template <class T>
using Result = std::expected<T, Error>;

using Status = std::expected<void, Error>;

inline std::unexpected<Error> fail(ErrorKind kind, std::string message) {
  return std::unexpected(Error{kind, std::move(message)});
}

// Propagates the error of a Result-returning expression, else binds its value to `name`.
#define TIDEMARK_TRY(name, expression)                                          \
  auto name##_result = (expression);                                            \
  if (!name##_result) return std::unexpected(std::move(name##_result.error())); \
  auto& name = *name##_result

// Propagates the error of a Status-returning expression.
#define TIDEMARK_CHECK(expression)                                 \
  do {                                                             \
    if (auto tidemark_status_ = (expression); !tidemark_status_)   \
      return std::unexpected(std::move(tidemark_status_.error())); \
  } while (0)

// Where a value came from in a scenario file; line and column are 1-based.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

std::string format_location(const SourceLocation& where);

}  // namespace tidemark
