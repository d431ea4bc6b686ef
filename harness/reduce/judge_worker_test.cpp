#include "reduce/judge_worker.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace tidemark::reduce {
namespace {

using namespace std::chrono_literals;

// The copy's judge: an answer, except for the texts that crash it or never end.
std::string judge(const std::string& text) {
  if (text == "crash") std::abort();
  if (text == "hang")
    for (;;) ::pause();  // a run stuck in a wait nothing will end
  return "judged " + text;
}

// Check that a copy answers each text it is sent, in turn, for as long as it lives.
TEST(JudgeWorker, AnswersEachTextInTurn) {
  auto worker = JudgeWorker::start(judge);
  ASSERT_TRUE(worker);
  std::string why;
  for (const std::string& text : {std::string("a"), std::string(), std::string(100000, 'x')}) {
    ASSERT_TRUE(worker->send(text));
    auto reply = worker->receive(10s, why);
    ASSERT_TRUE(reply) << why;
    EXPECT_EQ(*reply, "judged " + text);
  }
}

// Check that a copy that crashes on a text is reaped and named by its signal, and that one that
// gives no verdict is killed once its deadline passes, not waited for: both say what happened.
TEST(JudgeWorker, ACrashIsNamedAndAHungJudgeIsKilledAtItsDeadline) {
  auto crashing = JudgeWorker::start(judge);
  ASSERT_TRUE(crashing && crashing->send("crash"));
  std::string why;
  EXPECT_FALSE(crashing->receive(10s, why));
  EXPECT_EQ(why, "the candidate's run was killed by signal 6");

  auto hung = JudgeWorker::start(judge);
  ASSERT_TRUE(hung && hung->send("hang"));
  const auto began = std::chrono::steady_clock::now();
  EXPECT_FALSE(hung->receive(300ms, why));
  const auto waited = std::chrono::steady_clock::now() - began;
  EXPECT_EQ(why, "the candidate's judge gave no verdict within 300 ms and was killed");
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 10s);         // a generous bound: the point is that it returns
  EXPECT_FALSE(hung->send("a"));  // the killed copy takes nothing more; the reducer starts another
}

}  // namespace
}  // namespace tidemark::reduce
