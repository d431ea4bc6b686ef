#include "report/journal.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/files.h"
#include "core/testing/scratch.h"

namespace tidemark::report {
namespace {

namespace fs = std::filesystem;

class JournalFile : public ::testing::Test {
 protected:
  fs::path file() const { return journal_file(dir_); }
  std::string text() const {
    std::ifstream in(file());
    return {std::istreambuf_iterator<char>(in), {}};
  }
  static RunRecord record(std::string subject, std::string digest, Verdict verdict = Verdict::Green) {
    return {.test = "Magma.Monolith.G." + subject,
            .subject = "g/" + subject,
            .column = {"vulkan", {}},
            .verdict = verdict,
            .digest = std::move(digest)};
  }
  const JournalHeader header_{.arguments = {"scenarios/g", "--repeat", "2"},
                              .cwd = "/somewhere",
                              .series = "run lane=monolith repeat=2",
                              .build = "",
                              .subjects = {{"g/a", "h1"}, {"g/b", "h2"}, {"g/c", "h3"}}};
  const test_support::ScratchDir scratch_{"journal"};
  const fs::path dir_ = scratch_.path();
};

// Check that a journal reads back its header and each record under its subject, in any order.
TEST_F(JournalFile, ReadsBackItsHeaderAndEachRecordBySubjectWhateverTheOrderTheyFinished) {
  auto writer = JournalWriter::create(file(), header_);
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE(writer->add("g/c", record("c", "dc")));
  ASSERT_TRUE(writer->add("g/a", record("a", "da", Verdict::Red)));
  auto journal = read_journal(file());
  ASSERT_TRUE(journal) << journal.error().message;
  EXPECT_EQ(journal->header, header_);
  ASSERT_EQ(journal->records.size(), 2u);
  EXPECT_EQ(journal->records.at("g/a"), record("a", "da", Verdict::Red));
  EXPECT_EQ(journal->records.at("g/c"), record("c", "dc"));
}

// Check that a last line torn by a machine going down is dropped (its subject runs again), and
// that going on with the journal cuts it off so the next record starts a line of its own.
TEST_F(JournalFile, DropsATornLastLineAndGoesOnFromTheLastWholeOne) {
  {
    auto writer = JournalWriter::create(file(), header_);
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->add("g/a", record("a", "da")));
  }
  const std::string whole = text();
  ASSERT_TRUE(write_file_atomically(file(), whole + R"({"id":"g/b","record":{"test":)"));
  auto torn = read_journal(file());
  ASSERT_TRUE(torn) << torn.error().message;
  EXPECT_EQ(torn->records.size(), 1u);
  auto writer = JournalWriter::resume(file());
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE(writer->add("g/b", record("b", "db")));
  auto journal = read_journal(file());
  ASSERT_TRUE(journal) << journal.error().message;
  EXPECT_EQ(journal->records.size(), 2u);
  EXPECT_EQ(journal->records.at("g/b").digest, "db");
}

// Check that a malformed line before the last is an error naming its line, never a record lost in silence.
TEST_F(JournalFile, RefusesAMalformedLineBeforeTheLastNamingIt) {
  {
    auto writer = JournalWriter::create(file(), header_);
    ASSERT_TRUE(writer);
  }
  ASSERT_TRUE(write_file_atomically(file(), text() + "{\"id\":\"g/a\"}\n" + "{}\n"));
  auto journal = read_journal(file());
  ASSERT_FALSE(journal);
  EXPECT_NE(journal.error().message.find(file().string() + ":2: expected 'record'"), std::string::npos)
      << journal.error().message;
}

// Check that a later record of a subject (a run resumed after its line was written) replaces the earlier.
TEST_F(JournalFile, KeepsTheLaterOfTwoRecordsOfOneSubject) {
  auto writer = JournalWriter::create(file(), header_);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->add("g/a", record("a", "first", Verdict::Red)));
  ASSERT_TRUE(writer->add("g/a", record("a", "second")));
  auto journal = read_journal(file());
  ASSERT_TRUE(journal);
  EXPECT_EQ(journal->records.at("g/a").digest, "second");
}

}  // namespace
}  // namespace tidemark::report
