// compare's document: what a cell holds reaches compare.json and compare.html, a backend that
// cannot judge a scenario says why, and nothing a name carries breaks the page.
#include "report/compare.h"

#include <gtest/gtest.h>

namespace tidemark::report {
namespace {

Comparison two_backends() {
  CompareRow row{"reclaim/bands<1>", "", {}};
  row.cells.push_back({.backend = "vulkan",
                       .verdict = Verdict::Green,
                       .pixel_hash = "ab12",
                       .digest = "d1",
                       .gauges = {{"wlivepk", 3}, {"submits", 2}}});
  row.cells.push_back({.backend = "gl",
                       .verdict = Verdict::Red,
                       .pixel_hash = "cd34",
                       .digest = "d2",
                       .gauges = {{"wlivepk", 9}},
                       .failed = {"gauge[0]: wlivepk = 9 (<= 4)"}});
  CompareRow other{"kmd/x", "", {{.backend = "gl", .verdict = Verdict::NotJudged, .why = "gives no kernel gauges"}}};
  return {{row, other}};
}

TEST(Comparison, EveryCellReachesTheJsonAsItsBackendsEntry) {
  nlohmann::json json = to_json(two_backends());
  ASSERT_EQ(json["rows"].size(), 2u);
  const auto& row = json["rows"][0];
  EXPECT_EQ(row["scenario"], "reclaim/bands<1>");
  EXPECT_EQ(row["backends"]["vulkan"]["gauges"]["wlivepk"], 3);
  EXPECT_EQ(row["backends"]["gl"]["failed"][0], "gauge[0]: wlivepk = 9 (<= 4)");
  EXPECT_EQ(row["backends"]["gl"]["digest"], "d2");
  EXPECT_EQ(json["rows"][1]["backends"]["gl"],
            (nlohmann::json{{"verdict", "not-judged"}, {"why", "gives no kernel gauges"}}));
}

TEST(Comparison, TheTableHasAColumnPerBackendAndAnEmptyCellWhereOneDidNotRun) {
  std::string html = comparison_html(two_backends());
  EXPECT_NE(html.find("<th>vulkan</th><th>gl</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("reclaim/bands&lt;1&gt;"), std::string::npos);  // escaped
  EXPECT_NE(html.find("<td class=\"cell red\" data-column=\"gl\">red<br>pixels cd34<br>wlivepk 9<br>failed gauge[0]: "
                      "wlivepk = 9 (&lt;= "
                      "4)</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(
      html.find(
          "<td></td><td class=\"cell not-judged\" data-column=\"gl\">not-judged<br><span class=\"why\">gives no kernel "
          "gauges</span></td>"),
      std::string::npos)
      << html;
  // The header counts every cell, and the page says what a column ran on and what a move means.
  EXPECT_NE(html.find("<h1 id=\"verdict\" class=\"red\">2 failing of 3 cells</h1>"), std::string::npos) << html;
  EXPECT_NE(html.find("2 subjects on 2 columns: 1 green, 1 red, 1 not-judged"), std::string::npos) << html;
  EXPECT_NE(html.find("<dt class=\"worse\">worse</dt>"), std::string::npos) << html;
}

TEST(Comparison, ACellLinksToItsRunsFolderAndAColumnNamesWhatItRanOn) {
  Comparison comparison = two_backends();
  comparison.rows[0].cells[1].dir = "/reports/compare/monolith/reclaim/bands@gl";
  comparison.rows[0].cells[1].driver = "mesa-25.0.7: OpenGL ES 3.2 Mesa 25.0.7";
  const std::string html = comparison_html(comparison, "/reports/compare");
  EXPECT_NE(html.find("<a href=\"monolith/reclaim/bands@gl\">red</a>"), std::string::npos) << html;
  EXPECT_NE(
      html.find(
          "<tr class=\"column\" data-column=\"gl\"><td>gl</td><td>mesa-25.0.7: OpenGL ES 3.2 Mesa 25.0.7</td></tr>"),
      std::string::npos)
      << html;
}

TEST(Comparison, EachCellIsHeldToTheFirstThatRanWhichWayEachGaugeWent) {
  CompareRow row{"portable/x", "", {}};
  row.cells.push_back({.backend = "gl@old", .verdict = Verdict::NotJudged, .why = "could not run"});
  row.cells.push_back({.backend = "gl@a",
                       .verdict = Verdict::Green,
                       .pixel_hash = "p1",
                       .digest = "d1",
                       .gauges = {{"wlivepk", 13}, {"dsets", 3300}, {"submits", 6}, {"devbytespk", 8}}});
  row.cells.push_back({.backend = "gl@b",
                       .verdict = Verdict::Green,
                       .pixel_hash = "p2",
                       .digest = "d2",
                       .gauges = {{"wlivepk", 17}, {"dsets", 0}, {"submits", 3}, {"devbytespk", 8}}});
  mark_differences(row);
  EXPECT_EQ(row.reference, "gl@a");
  EXPECT_TRUE(row.cells[1].moves.empty());
  EXPECT_FALSE(row.cells[2].same_pixels);
  EXPECT_EQ(row.cells[2].moves, (std::vector<GaugeMove>{{"wlivepk", 13, 17, Movement::Worse},
                                                        {"dsets", 3300, 0, Movement::Improved},
                                                        {"submits", 6, 3, Movement::Changed}}));
  const nlohmann::json json = to_json(Comparison{{row}});
  EXPECT_EQ(json["rows"][0]["reference"], "gl@a");
  EXPECT_EQ(json["rows"][0]["backends"]["gl@b"]["differences"]["wlivepk"],
            (nlohmann::json{{"reference", 13}, {"value", 17}, {"movement", "worse"}}));
  EXPECT_FALSE(json["rows"][0]["backends"]["gl@a"].contains("differences"));
  const std::string html = comparison_html(Comparison{{row}});
  EXPECT_NE(html.find("<span class=\"worse\" title=\"gl@a 13\">wlivepk 17 (worse +31%)</span>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("pixels p2 (differ)"), std::string::npos) << html;
}

// Check that a run cut short (a timeout) is never the one the others are held to, whatever digest
// its record holds: a run that did not finish has nothing to agree on.
TEST(Comparison, ARunCutShortIsNeverTheReference) {
  CompareRow row{"portable/x", "", {}};
  row.cells.push_back({.backend = "gl@hangs",
                       .verdict = Verdict::Timeout,
                       .pixel_hash = "p0",
                       .digest = "d0",
                       .gauges = {{"wlivepk", 1}}});
  row.cells.push_back(
      {.backend = "gl@a", .verdict = Verdict::Green, .pixel_hash = "p1", .digest = "d1", .gauges = {{"wlivepk", 13}}});
  row.cells.push_back(
      {.backend = "gl@b", .verdict = Verdict::Green, .pixel_hash = "p1", .digest = "d1", .gauges = {{"wlivepk", 13}}});
  mark_differences(row);
  EXPECT_EQ(row.reference, "gl@a");
  EXPECT_TRUE(row.cells[0].moves.empty());
  EXPECT_TRUE(row.cells[2].same_pixels);
  EXPECT_TRUE(row.cells[2].moves.empty());
}

}  // namespace
}  // namespace tidemark::report
