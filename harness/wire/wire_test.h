// A Dawn-style fixture for wire tests: the real client -> the split lane's byte channel ->
// the real server session, over the fake backend (which logs every call it receives) beside
// the real model host. Tests of
// the client-to-server mapping, one call at a time, with no GPU and no timing: the pipe is
// drained only where the client API says so (a call with a value, or drain()).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backend_fake/fake_backend.h"
#include "session/session.h"
#include "wire/channel.h"
#include "wire/client.h"
#include "wire/server.h"

namespace tidemark::wire {

// A server whose registry has the fake backend alone, for tests that make their own session.
// Not movable: the registry's factory logs into `log`.
struct FakeServer {
  fake::FakeBackendLog log;
  api::BackendRegistry backends = fake::fake_backends(log);
  ServerOptions options() {
    ServerOptions options;
    options.open_session = session::session_factory(backends);
    return options;
  }
};

class WireTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // Frames the channel has carried each way since the handshake.
  uint64_t requests_sent() const { return channel_->sent - 1; }
  uint64_t replies_received() const { return channel_->received - 1; }

  FakeServer server_;
  fake::FakeBackendLog& log_ = server_.log;
  std::unique_ptr<Channel> channel_;
  std::unique_ptr<WireClient> client_;
  Hello hello_{.token = "",
               .config = {.backend = "fake", .width = 16, .height = 4, .knobs = {{"wire_deferred_mb", 8}}}};
};

}  // namespace tidemark::wire
