#include "bisect/bisect.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bisect/search.h"

namespace tidemark::bisect {
namespace {

report::RunRecord record_with(int64_t vkbufspk, std::string digest, report::Verdict verdict = report::Verdict::Green) {
  report::RunRecord record;
  record.verdict = verdict;
  record.digest = std::move(digest);
  record.observed_gauges = report::GaugeValues{{"vkbufspk", vkbufspk}};
  return record;
}

TEST(BisectPredicate, AGaugeWorseThanAValueByATolerance) {
  auto predicate = parse_predicate("", "vkbufspk", "4107+5%", "", false);
  ASSERT_TRUE(predicate) << predicate.error().message;
  EXPECT_EQ(predicate->text(), "vkbufspk worse than 4107+5%");
  // 4107 * 1.05 = 4312.35: 4312 is within, 4313 worse.
  EXPECT_EQ(judge_records({record_with(4312, "a")}, *predicate, nullptr).judged.judgement, Judgement::Good);
  auto bad = judge_records({record_with(6014, "a")}, *predicate, nullptr);
  EXPECT_EQ(bad.judged.judgement, Judgement::Bad);
  EXPECT_EQ(bad.judged.why, "vkbufspk 6014 against 4107 (+46%)");
}

TEST(BisectPredicate, AGaugeAgainstTheGoodEnd) {
  auto predicate = parse_predicate("", "vkbufspk", "good+2", "", false);
  ASSERT_TRUE(predicate);
  const auto good_end = record_with(100, "g");
  EXPECT_EQ(judge_records({good_end}, *predicate, nullptr).judged.judgement, Judgement::Good);
  EXPECT_EQ(judge_records({record_with(102, "a")}, *predicate, &good_end).judged.judgement, Judgement::Good);
  EXPECT_EQ(judge_records({record_with(103, "a")}, *predicate, &good_end).judged.judgement, Judgement::Bad);
}

TEST(BisectPredicate, RepeatsThatDisagreeAreNondeterministic) {
  const Predicate red;
  auto runs = judge_records({record_with(1, "a"), record_with(1, "b"), record_with(1, "a")}, red, nullptr);
  EXPECT_EQ(runs.judged.judgement, Judgement::Nondeterministic);
  EXPECT_EQ(runs.judged.why, "2 digests over 3 runs: a, b");
  EXPECT_EQ(runs.digests.size(), 3u);
}

TEST(BisectPredicate, VerdictsDigestsAndRunsThatCouldNotStart) {
  auto crash = parse_predicate("", "", "", "crash", false);
  ASSERT_TRUE(crash);
  EXPECT_EQ(judge_records({record_with(1, "a", report::Verdict::Crash)}, *crash, nullptr).judged.judgement,
            Judgement::Bad);
  EXPECT_EQ(judge_records({record_with(1, "a", report::Verdict::Red)}, *crash, nullptr).judged.judgement,
            Judgement::Good);
  auto digest = parse_predicate("", "", "", "", true);
  ASSERT_TRUE(digest);
  const auto good_end = record_with(1, "g");
  EXPECT_EQ(judge_records({record_with(1, "h")}, *digest, &good_end).judged.judgement, Judgement::Bad);
  EXPECT_EQ(judge_records({record_with(1, "g")}, *digest, &good_end).judged.judgement, Judgement::Good);
  EXPECT_EQ(judge_records({record_with(1, "", report::Verdict::CouldNotRun)}, *digest, &good_end).judged.judgement,
            Judgement::Skip);
  EXPECT_EQ(judge_records({}, *digest, &good_end).judged.judgement, Judgement::Skip);
}

TEST(BisectPredicate, BadPredicatesNameTheirOption) {
  EXPECT_EQ(parse_predicate("gauge[0]", "vkbufspk", "1", "", false).error().message,
            "expected one of --check, --gauge, --verdict and --digest, found several");
  EXPECT_EQ(parse_predicate("", "vkbufspk", "", "", false).error().message,
            "--gauge and --worse-than: expected both or neither");
  EXPECT_EQ(parse_predicate("", "vkbufspk", "lots", "", false).error().message,
            "--worse-than: expected VALUE[+N|+N%] (4107+5%, good+2) with VALUE an integer from "
            "-9223372036854775808 to 9223372036854775807, found 'lots'");
  // Once taken as INT64_MAX (strtoll clamps): a bound nothing is worse than.
  EXPECT_FALSE(parse_predicate("", "vkbufspk", "99999999999999999999", "", false));
  EXPECT_FALSE(parse_predicate("", "vkbufspk", "99999999999999999999+5%", "", false));
  EXPECT_EQ(parse_predicate("", "", "", "green", false).error().message,
            "--verdict: expected red, crash, timeout or device-lost, found 'green'");
  EXPECT_FALSE(parse_predicate("", "nosuchgauge", "1", "", false));
}

TEST(BisectDocumentCodec, RoundTripsAndRefusesAnUnknownField) {
  BisectDocument document;
  document.subject = "portable/x";
  document.column = "gl";
  document.predicate = "any check red";
  document.source = "git";
  document.candidates = {{.label = "a", .revision = "aa", .subject = "first", .author = "A <a@x>"},
                         {.label = "b", .drivers_file = "/c/b/prefix/driver.yaml", .build = "drv", .revision = "bb"},
                         {.label = "c", .revision = "cc"}};
  document.tried = {{.position = 0, .judgement = "good", .digests = {"d1"}, .gauges = {{"vkbufspk", 3}}},
                    {.position = 2, .judgement = "bad", .why = "red"},
                    {.position = 1, .judgement = "skip", .why = "does not build", .built_now = true}};
  document.last_good = 0;
  document.first_bad = 2;
  document.undecided = {1};
  document.bound = 3;
  document.judgements = 2;
  document.skips = 1;
  document.reduce_offer = "tidemark reduce c.capture.yaml --check 'gauge[2]' --bug-build c --fix-build a";
  auto json = to_json(document);
  auto read = bisect_from_json(json, "bisect.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(to_json(*read), json);
  json["tried"][0]["colour"] = "red";
  EXPECT_EQ(bisect_from_json(json, "bisect.json").error().message,
            "bisect.json: tried[0].colour: expected none of this version's fields, found an unknown one");
  json = to_json(document);
  json["first_bad"] = 3;
  EXPECT_FALSE(bisect_from_json(json, "bisect.json"));
  json = to_json(document);
  json["tried"][1]["judgement"] = "maybe";
  EXPECT_FALSE(bisect_from_json(json, "bisect.json"));
  const std::string html = bisect_html(document);
  EXPECT_NE(html.find("First bad: one of 2 candidates up to c"), std::string::npos);
  EXPECT_NE(html.find("class=\"candidate skip\""), std::string::npos);
}

}  // namespace
}  // namespace tidemark::bisect
