#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "runner/pipeline/schedule.h"
#include "core/testing/scratch.h"
#include "runner/pipeline/selection.h"
#include "runner/pipeline/testing/fake_subject.h"

namespace tidemark::runner {
namespace {

namespace fs = std::filesystem;

std::string patterns_file(const std::string& name, const std::string& text) {
  static const test_support::ScratchDir scratch("schedule");
  const fs::path file = scratch / name;
  std::ofstream(file) << text;
  return file.string();
}

// A subject that fails its first `reds` runs and then holds (a driver that fails cold): in this
// process, no lane, no folder.
std::unique_ptr<testing::FakeSubject> cold(const std::string& name, int reds) {
  return std::make_unique<testing::FakeSubject>(SubjectInfo{.id = "cold/" + name,
                                                            .kind = "scenario",
                                                            .group = "cold",
                                                            .file = "cold.yaml",
                                                            .test_family = "Cold",
                                                            .test_stem = name,
                                                            .in_lanes = false,
                                                            .backends = {"vulkan"},
                                                            .checks = {{"gauge[0]", {}}}},
                                                reds);
}

Subjects cold_subjects() {
  Subjects subjects;
  subjects.push_back(cold("once", 1));
  subjects.push_back(cold("always", 100));
  subjects.push_back(cold("fine", 0));
  return subjects;
}

// Each subject's run with `options`, prepared as a command prepares them before anything runs.
std::vector<PreparedRun> prepared(const Subjects& subjects, const RunOptions& options) {
  std::vector<PreparedRun> runs;
  for (const auto& subject : subjects) runs.push_back(*prepare_run(*subject, options));
  return runs;
}

int runs_of(const Subjects& subjects, size_t k) { return dynamic_cast<const testing::FakeSubject&>(*subjects[k]).runs; }

// Check that a seed's order is a permutation of the subjects, the same each time, another for another seed.
TEST(Shuffle, ASeedGivesOnePermutationAndAnotherSeedAnother) {
  const std::vector<size_t> first = shuffled_order(40, 7);
  EXPECT_EQ(first, shuffled_order(40, 7));
  EXPECT_NE(first, shuffled_order(40, 8));
  std::vector<size_t> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(sorted[k], k);
  EXPECT_NE(first, sorted);
}

// Check that the order is pinned: a seed written in a report reproduces it with any standard library.
TEST(Shuffle, TheOrderOfASeedIsTheSameEverywhere) {
  EXPECT_EQ(shuffled_order(6, 1), (std::vector<size_t>{0, 1, 3, 2, 4, 5}));
}

// Check that a --skip line skips the tests it finds, naming its place, and comments and blank lines are no patterns.
TEST(TestFilter, ASkipLineSkipsWhatItMatchesAndSaysWhere) {
  const std::string file = patterns_file("skips.txt", "# flaky on llvmpipe\n\n  Kmd\\.a-full-ring  \nPortable.*@gl$\n");
  auto filter = load_test_filter({file}, {});
  ASSERT_TRUE(filter) << filter.error().message;
  ASSERT_EQ(filter->skips.patterns().size(), 2u);
  EXPECT_EQ(filter->skip_reason("Magma.Monolith.Kmd.a-full-ring-makes-the-submitter-wait-for-the-head"),
            "--skip " + file + ":3:3: `Kmd\\.a-full-ring`");
  EXPECT_TRUE(filter->skip_reason("Magma.Spawn.Portable.each-band@gl"));
  EXPECT_FALSE(filter->skip_reason("Magma.Spawn.Portable.each-band@gl-llvmpipe"));
  EXPECT_FALSE(filter->skip_reason("Magma.Monolith.Kmd.fences-never-go-back"));
}

// Check that with --include files a test runs only when a line matches it, and a skip still wins.
TEST(TestFilter, IncludeLinesRunOnlyWhatTheyMatchAndASkipStillWins) {
  const std::string include = patterns_file("include.txt", "\\.Kmd\\.\n\\.Counters\\.\n");
  const std::string skip = patterns_file("skip-fences.txt", "fences\n");
  auto filter = load_test_filter({skip}, {include});
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_FALSE(filter->skip_reason("Magma.Monolith.Kmd.a-full-ring"));
  EXPECT_FALSE(filter->skip_reason("Magma.Split.Counters.two-gpus"));
  EXPECT_EQ(filter->skip_reason("Magma.Monolith.Gpumem.an-empty-map"), "matches no --include line (" + include + ")");
  EXPECT_TRUE(filter->skip_reason("Magma.Monolith.Kmd.fences-never-go-back")->starts_with("--skip " + skip + ":1:1"));
}

// Check that a line that is no pattern is bad input at its line and column.
TEST(TestFilter, ALineThatIsNoRegexIsBadInputAtItsPlace) {
  const std::string file = patterns_file("bad.txt", "Kmd\n# fine\n  Portable.(each\n");
  auto filter = load_test_filter({file}, {});
  ASSERT_FALSE(filter);
  EXPECT_EQ(filter.error().kind, ErrorKind::BadInput);
  EXPECT_TRUE(filter.error().message.starts_with(file + ":3:3: expected a test name pattern (an RE2 regular "
                                                        "expression), found 'Portable.(each'"))
      << filter.error().message;
}

// Check that the lines std::regex took 40-60 s over (backtracking) or crashed on (30 000 groups
// deep: SIGSEGV) end at once: the one answered, the other bad input at its line.
TEST(TestFilter, HostileLinesEndAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  auto filter = load_test_filter({patterns_file("backtracks.txt", "^(.|.)*Z$\n")}, {});
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_FALSE(filter->skip_reason(std::string(35, 'x')));
  const std::string deep = patterns_file("deep.txt", "# deep\n" + std::string(30000, '(') + std::string(30000, ')'));
  auto refused = load_test_filter({}, {deep});
  ASSERT_FALSE(refused);
  EXPECT_TRUE(refused.error().message.starts_with(deep + ":2:1: expected a test name pattern (an RE2 regular "
                                                         "expression) of at most"))
      << refused.error().message;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

// Check that a patterns file that is not there is an error naming it.
TEST(TestFilter, AMissingFileIsAnErrorNamingIt) {
  auto filter = load_test_filter({}, {"/nonexistent/include.txt"});
  ASSERT_FALSE(filter);
  EXPECT_NE(filter.error().message.find("/nonexistent/include.txt"), std::string::npos) << filter.error().message;
}

// Check that under --retry a run red then green is flaky with both tries, one red on every try stays
// red with all three, a green one runs once; each finishes once, after its last try; and that
// --max-fails counts a subject once, however many tries it took.
TEST(Schedule, ARetriedRunRedThenGreenIsFlakyAndOneRedOnEveryTryStaysRed) {
  const Subjects subjects = cold_subjects();
  RunOptions options;
  options.retry = 2;
  std::vector<size_t> finished;
  auto runs = prepared(subjects, options);
  auto records = run_scheduled(runs, Schedule{},
                               {.running = {}, .finished = [&](size_t k, const auto&) { finished.push_back(k); }});
  ASSERT_TRUE(records) << records.error().message;
  using report::Attempt, report::Verdict;
  EXPECT_EQ((*records)[0].verdict, Verdict::Flaky);
  EXPECT_EQ((*records)[0].attempts, (std::vector<Attempt>{{Verdict::Red, "d-red"}, {Verdict::Green, "d-green"}}));
  EXPECT_EQ((*records)[1].verdict, Verdict::Red);
  EXPECT_EQ((*records)[1].attempts.size(), 3u);
  EXPECT_NE((*records)[1].why.find("failed on every try"), std::string::npos) << (*records)[1].why;
  EXPECT_EQ((*records)[2].verdict, Verdict::Green);
  EXPECT_TRUE((*records)[2].attempts.empty());
  EXPECT_EQ(finished, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(runs_of(subjects, 0) + runs_of(subjects, 1) + runs_of(subjects, 2), 2 + 3 + 1);

  const Subjects again = cold_subjects();
  auto again_runs = prepared(again, options);
  auto stopped = run_scheduled(again_runs, Schedule{.max_fails = 3}, {});
  ASSERT_TRUE(stopped) << stopped.error().message;
  EXPECT_EQ((*stopped)[2].verdict, Verdict::Green);  // two failed subjects, not four failed tries
}

// Check that a journaled record (run --resume) stands in for its subject: it does not run, and
// only the others finish.
TEST(Schedule, AJournaledRecordStandsInForItsSubject) {
  const Subjects subjects = cold_subjects();
  const std::map<std::string, report::RunRecord> journaled{
      {"cold/always", {.test = "Cold.always", .verdict = report::Verdict::Red, .why = "journaled"}}};
  std::vector<size_t> finished;
  auto runs = prepared(subjects, RunOptions{});
  auto records = run_scheduled(runs, Schedule{.done = &journaled},
                               {.running = {}, .finished = [&](size_t k, const auto&) { finished.push_back(k); }});
  ASSERT_TRUE(records) << records.error().message;
  EXPECT_EQ((*records)[1].why, "journaled");
  EXPECT_EQ(runs_of(subjects, 1), 0);
  EXPECT_EQ(finished, (std::vector<size_t>{0, 2}));
  EXPECT_EQ((*records)[0].verdict, report::Verdict::Red);
}

// Check that --max-fails counts a resumed run's journaled failures: with one journaled red and
// --max-fails 1, no other subject starts (a whole run would have started none after that red).
TEST(Schedule, MaxFailsCountsTheFailuresAResumedRunsJournalHolds) {
  const Subjects subjects = cold_subjects();
  const std::map<std::string, report::RunRecord> journaled{
      {"cold/always", {.test = "Cold.always", .verdict = report::Verdict::Red, .why = "journaled"}}};
  auto runs = prepared(subjects, RunOptions{});
  auto records = run_scheduled(runs, Schedule{.max_fails = 1, .done = &journaled}, {});
  ASSERT_TRUE(records) << records.error().message;
  EXPECT_EQ((*records)[0].verdict, report::Verdict::NotRun);
  EXPECT_EQ((*records)[2].verdict, report::Verdict::NotRun);
  EXPECT_NE((*records)[2].why.find("(1 failed runs before it"), std::string::npos) << (*records)[2].why;
  EXPECT_EQ(runs_of(subjects, 0) + runs_of(subjects, 2), 0);
}

}  // namespace
}  // namespace tidemark::runner
