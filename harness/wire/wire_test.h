// A Dawn-style fixture for wire tests: the real client -> the split lane's byte channel ->
// the real server session, over a fake backend that logs every call it receives. Tests of
// the client-to-server mapping, one call at a time, with no GPU and no timing: the pipe is
// drained only where the client API says so (a call with a value, or drain()).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "wire/fake_backend.h"
#include "wire/channel.h"
#include "wire/client.h"

namespace tidemark::wire {

class WireTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // Frames the channel has carried each way since the handshake.
  uint64_t requests_sent() const { return channel_->sent - 1; }
  uint64_t replies_received() const { return channel_->received - 1; }

  FakeBackendLog log_;
  std::unique_ptr<Channel> channel_;
  std::unique_ptr<WireClient> client_;
  Hello hello_{.token = "", .knobs = {{"wire_deferred_mb", 8}}, .mutant = "", .width = 16, .height = 4};
};

}  // namespace tidemark::wire
