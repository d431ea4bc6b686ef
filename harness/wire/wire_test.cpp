#include "wire/wire_test.h"

namespace tidemark::wire {

void WireTest::SetUp() {
  channel_ = in_process_channel(fake_backend_options(log_));
  client_ = std::make_unique<WireClient>(*channel_);
  auto welcome = client_->hello(hello_);
  ASSERT_TRUE(welcome) << welcome.error().message;
  ASSERT_TRUE(log_.created);
}

}  // namespace tidemark::wire
