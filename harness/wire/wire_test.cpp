#include "wire/wire_test.h"

namespace tidemark::wire {

void WireTest::SetUp() {
  channel_ = in_process_channel(server_.options());
  client_ = std::make_unique<WireClient>(*channel_);
  auto welcome = client_->hello(hello_);
  ASSERT_TRUE(welcome) << welcome.error().message;
  ASSERT_TRUE(log_.created);
}

}  // namespace tidemark::wire
