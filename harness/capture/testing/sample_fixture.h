// A capture fixture's text the capture unit tests share: an apitrace capture (app.trace) of two
// checks, one proven by a layer fault and one a fault that makes the replay fail.
#pragma once

namespace tidemark::capture::testing {

inline constexpr const char* kSampleFixture = R"(name: the-replay-holds-few-buffers
group: captures
capture: app.trace
expect: [vkbufspk <= 16]
whole: [vksubmits > 0]
controls:
  - fault: hold_frees
    fails: [vkbufspk <= 16]
  - fault: fail_allocation=3
    fails: [replay]
)";

// What a loader reads of app.trace: its magic ("at"), no more.
inline constexpr const char* kSampleCapture = "at: the loader reads no more than the snappy magic";

}  // namespace tidemark::capture::testing
