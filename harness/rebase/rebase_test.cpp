// rebase refuses what it must not bring anything up to, and rewrites only what moved.
#include "rebase/rebase.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/digest.h"
#include "core/testing/scratch.h"
#include "report/red_once_record.h"
#include "report/summary.h"

namespace tidemark::rebase {
namespace {

namespace fs = std::filesystem;

struct Folder {
  const test_support::ScratchDir scratch{"rebase"};
  const fs::path root = scratch.path();
  Folder() { fs::create_directories(root / "report" / "run"); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(root / name, std::ios::binary) << text;
    return root / name;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(root / name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

constexpr const char* kScenario = "name: two\ngroup: portable\n";  // only its bytes matter here

// A report of one known failure of `gl` on portable/two that measured devbytespk = `measured`.
void report(const Folder& folder, report::Verdict verdict, int64_t measured, bool hash = true) {
  const fs::path scenario = folder.write("two.yaml", kScenario);
  folder.write("report/run/result.json", "{}");
  report::RunRecord record;
  record.test = "Magma.Monolith.Portable.two@gl";
  record.subject = "portable/two@gl";
  record.file = scenario.string();
  record.scenario_hash = hash ? trace_hash(kScenario) : "";
  record.dir = (folder.root / "report" / "run").string();
  record.column = {"gl", {}};
  record.driver = "mesa-25.0.7: OpenGL ES 3.2 Mesa 25.0.7";
  record.verdict = verdict;
  record.gauges = {{"devbytespk", measured}};
  ASSERT_TRUE(
      report::write_summary(folder.root / "report", {.command = "run", .series = "run lane=monolith"}, {record}));
}

constexpr const char* kExpectations =
    "# known failures\n"
    "gl              portable/two  gauge[0]  devbytespk=218103808  # any build\n"
    "gl@mesa-25.0.7  portable/two  gauge[0]  devbytespk=213909504 wlivepk=3  # the newer build\n";

TEST(Rebase, TheLineTheKnownFailureMatchedTakesItsMeasuredValueAndNoOtherLineMoves) {
  Folder folder;
  report(folder, report::Verdict::ExpectedRed, 209715200);
  const fs::path expectations = folder.write("expectations.txt", kExpectations);
  auto dry = rebase(folder.root / "report", {.expectations = expectations, .dry_run = true});
  ASSERT_TRUE(dry) << dry.error().message;
  ASSERT_EQ(dry->size(), 1u);
  EXPECT_EQ(folder.read("expectations.txt"), kExpectations) << "a dry run wrote";
  auto done = rebase(folder.root / "report", {.expectations = expectations});
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(folder.read("expectations.txt"),
            "# known failures\n"
            "gl              portable/two  gauge[0]  devbytespk=218103808  # any build\n"
            "gl@mesa-25.0.7  portable/two  gauge[0]  devbytespk=209715200 wlivepk=3  # the newer build\n");
  EXPECT_EQ((*done)[0].diff.size(), 2u);
}

TEST(Rebase, AnUnexpectedRedIsRefusedAndNothingIsWritten) {
  Folder folder;
  report(folder, report::Verdict::Red, 1);
  const fs::path expectations = folder.write("expectations.txt", kExpectations);
  auto refused = rebase(folder.root / "report", {.expectations = expectations});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("Magma.Monolith.Portable.two@gl is RED"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(folder.read("expectations.txt"), kExpectations);
}

TEST(Rebase, AScenarioThatChangedSinceTheReportIsRefused) {
  Folder folder;
  report(folder, report::Verdict::ExpectedRed, 1);
  folder.write("two.yaml", std::string(kScenario) + "# edited\n");
  auto refused = rebase(folder.root / "report", {.expectations = folder.write("expectations.txt", kExpectations)});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("changed since the report was made"), std::string::npos)
      << refused.error().message;
}

TEST(Rebase, AnIncompleteReportIsRefused) {
  Folder folder;
  report(folder, report::Verdict::ExpectedRed, 1);
  fs::remove(folder.root / "report" / "run" / "result.json");
  auto refused = rebase(folder.root / "report", {.expectations = folder.write("expectations.txt", kExpectations)});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("has no result.json: the report is incomplete"), std::string::npos)
      << refused.error().message;
  auto no_hash = [&] {
    report(folder, report::Verdict::ExpectedRed, 1, /*hash=*/false);
    return rebase(folder.root / "report", {.expectations = folder.root / "expectations.txt"});
  }();
  ASSERT_FALSE(no_hash);
  EXPECT_NE(no_hash.error().message.find("no hash of its scenario file"), std::string::npos);
  auto empty = rebase(folder.root, {.expectations = folder.root / "expectations.txt"});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("expected a report folder with summary.json"), std::string::npos);
}

TEST(Rebase, TheBaselineBecomesTheReportsRunsAndTheDiffNamesWhatMoved) {
  Folder folder;
  report(folder, report::Verdict::ExpectedRed, 100);
  auto first = rebase(folder.root / "report", {.baseline = folder.root / "baseline"});
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->at(0).diff, std::vector<std::string>{"+ a new baseline of 1 runs"});
  report(folder, report::Verdict::ExpectedRed, 150);
  auto second = rebase(folder.root / "report", {.baseline = folder.root / "baseline"});
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->at(0).diff,
            std::vector<std::string>{"~ Magma.Monolith.Portable.two@gl: devbytespk 100 -> 150 (+50%)"});
  auto baseline = report::read_summary(folder.root / "baseline" / "summary.json");
  ASSERT_TRUE(baseline) << baseline.error().message;
  EXPECT_EQ(baseline->results.at(0).gauges.at("devbytespk"), 150);
}

// The names in `folder` and below, sorted: what a refused rebase must leave as it was.
std::vector<std::string> names_under(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) names.push_back(entry.path().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Check that the files of one rebase are one batch: a baseline that cannot be written (its
// folder is under a plain file) leaves the expectations as they were, and no temporary behind.
TEST(Rebase, ABaselineThatCannotBeWrittenLeavesTheExpectationsAsTheyWere) {
  Folder folder;
  report(folder, report::Verdict::ExpectedRed, 209715200);
  const fs::path expectations = folder.write("expectations.txt", kExpectations);
  folder.write("a-file", "not a folder");
  const std::vector<std::string> before = names_under(folder.root);
  auto failed =
      rebase(folder.root / "report", {.baseline = folder.root / "a-file" / "baseline", .expectations = expectations});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::BadInput);  // a file where a folder is asked for
  EXPECT_EQ(folder.read("expectations.txt"), kExpectations);
  EXPECT_EQ(names_under(folder.root), before);
}

// Check that a rebase never writes among the report's own files: its folder as the baseline
// (spelt another way, or through a link), or an expectations file inside it, is refused.
TEST(Rebase, AnOutputAmongTheReportsOwnFilesIsRefused) {
  Folder folder;
  report(folder, report::Verdict::ExpectedRed, 100);
  const std::string summary = folder.read("report/summary.json");
  fs::create_directory_symlink(folder.root / "report", folder.root / "linked-report");
  for (const fs::path& baseline :
       {folder.root / "report", folder.root / "report" / "run" / ".." / "", folder.root / "linked-report"}) {
    auto refused = rebase(folder.root / "report", {.baseline = baseline});
    ASSERT_FALSE(refused) << baseline;
    EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
    EXPECT_NE(refused.error().message.find("expected a file outside the report being read"), std::string::npos)
        << refused.error().message;
  }
  EXPECT_EQ(folder.read("report/summary.json"), summary);
  const fs::path inside = folder.write("report/expectations.txt", kExpectations);
  EXPECT_FALSE(rebase(folder.root / "report", {.expectations = inside}));
  EXPECT_EQ(folder.read("report/expectations.txt"), kExpectations);
}

// Check that a symlinked expectations file is refused, dry run or not: renaming over it would
// replace the link with a plain file, and writing through it would write where nobody named.
TEST(Rebase, ASymlinkedExpectationsFileIsRefusedAndBothStayAsTheyWere) {
  Folder folder;
  report(folder, report::Verdict::ExpectedRed, 209715200);
  const fs::path target = folder.write("shared-expectations.txt", kExpectations);
  fs::create_symlink(target, folder.root / "expectations.txt");
  for (bool dry_run : {true, false}) {
    auto refused =
        rebase(folder.root / "report", {.expectations = folder.root / "expectations.txt", .dry_run = dry_run});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
    EXPECT_NE(refused.error().message.find("found a symbolic link (to " + target.string() + ")"), std::string::npos)
        << refused.error().message;
  }
  EXPECT_TRUE(fs::is_symlink(folder.root / "expectations.txt"));
  EXPECT_EQ(folder.read("shared-expectations.txt"), kExpectations);
}

// Check that a red-once line holding a line break is refused, not written as ledger rows of its own.
TEST(Rebase, ALedgerLineHoldingALineBreakIsRefused) {
  Folder folder;
  const fs::path scenario = folder.write("two.yaml", kScenario);
  ASSERT_TRUE(report::write_red_once_document(
      folder.root / "report" / "red-once.json",
      {.scenarios = {{.scenario = "portable/two",
                      .file = scenario.string(),
                      .scenario_hash = trace_hash(kScenario),
                      .lanes = {"monolith"},
                      .lines = {"portable/two | c | monolith | gauge[0] | red 1 | green 0\nforged | row"},
                      .problems = {}}}}));
  const std::string ledger = "# ledger\n";
  folder.write("ledger.txt", ledger);
  auto refused = rebase(folder.root / "report", {.ledger = folder.root / "ledger.txt"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "rebase " + (folder.root / "report").string() +
                                         ": red-once.json: portable/two: expected ledger lines of one line each, "
                                         "found one holding a line break (\"portable/two | c | monolith | gauge[0] | "
                                         "red 1 | green 0\\nforged | row\"): it would be rows of its own; nothing "
                                         "was changed");
  EXPECT_EQ(folder.read("ledger.txt"), ledger);
}

}  // namespace
}  // namespace tidemark::rebase
