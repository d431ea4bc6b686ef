// Private to the lanes: the wire channel a lane reaches its server by, ready for the Hello.
#pragma once

#include <memory>
#include <string>

#include "lanes/lanes.h"
#include "wire/channel.h"
#include "wire/posix.h"

namespace tidemark::lanes {

// `server` is the server process when this client owns one; `token` is what the Hello must carry.
struct OpenedChannel {
  std::unique_ptr<ChildProcess> server;  // before the channel: the channel points at it
  std::unique_ptr<wire::Channel> channel;
  std::string token;
};

// Monolith gets a server session in this process, called directly (no bytes); split the
// same through the byte codec; spawn and tcp a socket to a server process.
Result<OpenedChannel> open_channel(const LaneOptions& options, Log log);

}  // namespace tidemark::lanes
