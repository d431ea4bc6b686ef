#include "capture/trace_calls.h"

#include "capture/capture_reduce.h"

#include <gtest/gtest.h>

namespace tidemark::capture {
namespace {

std::vector<TraceCall> calls(std::initializer_list<const char*> functions) {
  std::vector<TraceCall> out;
  uint32_t number = 0;
  for (const char* f : functions) out.push_back({number++, f});
  return out;
}

TEST(TraceCalls, ParsesOneCallPerLineAndSkipsWhatIsNotACall) {
  const auto parsed = parse_dump(
      "// process.name = \"x\"\n"
      "0 eglInitialize(0x1, NULL, NULL) = EGL_TRUE\n"
      "2 glShaderSource(1, 1, &\"void main() {}\", NULL)\n"
      "1 glLooksLikeACall(1)\n"  // a number that does not grow: a string's text
      "3 memcpy(0x1, blob(16), 16) // fake\n"
      "4 glFinish()");
  ASSERT_EQ(parsed.size(), 4u);
  EXPECT_EQ(parsed[0].number, 0u);
  EXPECT_EQ(parsed[1].function, "glShaderSource");
  EXPECT_EQ(parsed[2].function, "memcpy");
  EXPECT_EQ(parsed[3].number, 4u);
}

TEST(TraceCalls, SetupStaysDataDrawsAndWaitsMayGo) {
  EXPECT_TRUE(removable_call("glBufferData"));
  EXPECT_TRUE(removable_call("glDrawElementsInstanced"));
  EXPECT_TRUE(removable_call("glClientWaitSync"));
  EXPECT_TRUE(removable_call("eglSwapBuffers"));
  EXPECT_FALSE(removable_call("glGenBuffers"));
  EXPECT_FALSE(removable_call("glBindBuffer"));
  EXPECT_FALSE(removable_call("glClearColor"));  // state, not a clear
  EXPECT_FALSE(removable_call("glFenceSync"));   // creates what a kept wait may name
  EXPECT_FALSE(removable_call("glTexImage2D"));  // a texture's storage: a kept upload needs it
}

TEST(TraceCalls, AMappingIsOneUnitWithItsWrites) {
  const Units units = split_units(calls(
      {"glGenBuffers", "glMapBufferRange", "memcpy", "glFlushMappedBufferRange", "glUnmapBuffer", "glDrawArrays"}));
  EXPECT_EQ(units.setup, (std::vector<uint32_t>{0}));
  ASSERT_EQ(units.removable.size(), 2u);
  EXPECT_EQ(units.removable[0], (std::vector<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(units.removable[1], (std::vector<uint32_t>{5}));
}

TEST(TraceCalls, AMappingWithSetupInsideStaysWhole) {
  // A persistent mapping, or one with state set inside it: map, writes and unmap are all kept.
  const Units units =
      split_units(calls({"glMapBufferRange", "memcpy", "glBindTexture", "glUnmapBuffer", "glDrawArrays"}));
  EXPECT_EQ(units.setup, (std::vector<uint32_t>{0, 1, 2, 3}));
  ASSERT_EQ(units.removable.size(), 1u);
}

TEST(TraceCalls, FramesEndAtASwap) {
  const Units units = split_units(
      calls({"glGenBuffers", "glBufferData", "glDrawArrays", "eglSwapBuffers", "glBufferData", "eglSwapBuffers"}));
  ASSERT_EQ(units.frames.size(), 2u);
  EXPECT_EQ(units.frames[0], (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(units.frames[1], (std::vector<size_t>{3, 4}));
  EXPECT_EQ(calls_of(units, {1, 3}), (std::vector<uint32_t>{0, 2, 4}));
}

TEST(TraceCalls, CallSetsAreRanges) {
  EXPECT_EQ(call_set({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(call_set({4}), "4");
  EXPECT_EQ(call_set({}), "");
}

TEST(TraceCalls, WhatAReductionKeptIsCountedByFunction) {
  EXPECT_EQ(kept_summary({"glBufferData", "glDrawArrays", "glBufferData", "glFinish", "glBufferData"}),
            "3 glBufferData, glDrawArrays, glFinish");
  EXPECT_EQ(kept_summary({}), "");
}

}  // namespace
}  // namespace tidemark::capture
