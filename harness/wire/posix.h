// Sockets, and reads and writes within a deadline, for the lanes (file descriptors and child
// processes: core/process.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/process.h"

namespace tidemark::wire {

using Clock = std::chrono::steady_clock;

// Why a read came back short: the peer closed, the deadline passed, an I/O error, or (for
// frames) bytes that are not a frame.
enum class ReadFailure { Closed, Timeout, Io, Malformed };
struct ReadError {
  ReadFailure failure;
  std::string message;
};

// Writes every byte, or fails: Io for an OS error, Fatal when the deadline passed first (a
// peer that stopped reading).
Status write_all(int fd, std::span<const uint8_t> bytes, std::optional<Clock::time_point> deadline = std::nullopt);
// Reads at least one byte and at most bytes.size(); without a deadline it waits as long as
// it takes.
std::expected<size_t, ReadError> read_some(int fd, std::span<uint8_t> bytes, std::optional<Clock::time_point> deadline);

Result<std::pair<UniqueFd, UniqueFd>> socket_pair();

// Loopback only: anything else is refused.
Result<UniqueFd> tcp_listen(const std::string& host, uint16_t port);
Result<uint16_t> local_port(int fd);
Result<UniqueFd> tcp_accept(int listen_fd);
Result<UniqueFd> tcp_connect(const std::string& host, uint16_t port);
// "127.0.0.1:4000" -> host, port.
Result<std::pair<std::string, uint16_t>> parse_endpoint(const std::string& text);
// A tcp session token: the first line of `token_file`, else TIDEMARK_TOKEN — never a command
// line argument. `needed_by` names the option in the error ("--connect", "--listen").
Result<std::string> read_session_token(const std::string& token_file, std::string_view needed_by);

}  // namespace tidemark::wire
