#include "core/progress.h"

#include <gtest/gtest.h>

namespace tidemark {
namespace {

using namespace std::chrono_literals;

struct FakeTerminal {
  std::string bytes;
  std::chrono::steady_clock::time_point now{};
  Progress make(size_t total, size_t width = 80) {
    return Progress(
        "parity", total, Progress::Terminal{[this](std::string_view b) { bytes += b; }, width}, [this] { return now; },
        false);
  }
};

// Check that the status says done/total, the time so far, the estimate and the item.
TEST(Progress, TheStatusSaysDoneTotalTimeEstimateAndItem) {
  FakeTerminal terminal;
  Progress progress = terminal.make(4);
  progress.start("reclaim/a (spawn)");
  EXPECT_EQ(progress.status(), "[0/4] 0 s  parity: reclaim/a (spawn)");
  terminal.now += 10s;
  progress.finish_item();
  progress.start("reclaim/b (tcp)");
  EXPECT_EQ(progress.status(), "[1/4] 10 s, ~30 s left  parity: reclaim/b (tcp)");
  terminal.now += 190s;
  progress.finish_item();
  EXPECT_EQ(progress.status(), "[2/4] 3 min 20 s, ~3 min 20 s left  parity: reclaim/b (tcp)");
}

// Check that a line of output clears the status first and redraws it after, so the two never mix.
TEST(Progress, ALinePrintsAboveTheStatusLine) {
  FakeTerminal terminal;
  {
    Progress progress = terminal.make(2);
    progress.start("x");
    terminal.bytes.clear();
    progress.print("SAME kmd/x");
    EXPECT_EQ(terminal.bytes, "\r\x1b[KSAME kmd/x\n\r\x1b[K[0/2] 0 s  parity: x");
    terminal.bytes.clear();
  }
  EXPECT_EQ(terminal.bytes, "\r\x1b[K");  // gone when the command ends
}

// Check that the status is cut to the terminal's width (a wrapped line cannot be redrawn).
TEST(Progress, TheStatusFitsTheTerminal) {
  FakeTerminal terminal;
  Progress progress = terminal.make(9, 20);
  progress.start("a-very-long-scenario-name-indeed");
  EXPECT_EQ(progress.status().size(), 19u);
}

// Check that off a terminal nothing is drawn and lines print as they are.
TEST(Progress, OffATerminalOnlyTheLinesPrint) {
  testing::internal::CaptureStdout();
  {
    Progress progress = Progress::for_stdout("run", 3, Verbosity::Normal);  // stdout is captured: no terminal
    progress.start("a");
    progress.print("GREEN a");
    progress.finish_item();
    EXPECT_EQ(progress.status(), "");
  }
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "GREEN a\n");
}

TEST(Progress, DurationsReadAsPeopleSayThem) {
  EXPECT_EQ(format_duration(41s), "41 s");
  EXPECT_EQ(format_duration(185s), "3 min 05 s");
  EXPECT_EQ(format_duration(3720s), "1 h 02 min");
}

}  // namespace
}  // namespace tidemark
