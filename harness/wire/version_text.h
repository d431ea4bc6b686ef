// What `tidemark --version` and `tidemark-server --version` print: the release and the two
// formats that decide whether a client, a server and a recording fit together.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "core/version.h"
#include "wire/codec.h"
#include "wire/recording.h"

namespace tidemark::wire {

inline std::string version_text(std::string_view program) {
  return fmt::format("{} {} (wire protocol {}, recording format {})", program, tidemark_version(), kProtocolVersion,
                     kRecordingVersion);
}

}  // namespace tidemark::wire
