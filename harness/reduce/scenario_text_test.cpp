#include "reduce/scenario_text.h"

#include <gtest/gtest.h>

namespace tidemark::reduce {
namespace {

constexpr const char* kFile = R"(# A leading comment
name: a-sample
group: reclaim
buffers: [color, noise]
workload:
  - buffer_data: {buffer: color, size: 64KiB}
  # the loop's comment
  - repeat: 300
    as: i
    steps:
      - buffer_data: {buffer: noise, size: 1MiB}
      - draw: {uniform: noise}
  - fence: f
  - client_wait: {fence: f, timeout: 2s, expect: condition_satisfied}
  - draw: {uniform: color}
expect:
  gauges:
    - wdefn == 1
    - dsetsalloc == 2
  pixels:
    - probe: {x: 8, y: 8, rgba: [60, 200, 90, 255]}
controls:
  - mutant: memo.no_destroy_epoch
    fails: ["pixels[0]"]
)";

ScenarioText sample() {
  auto text = ScenarioText::parse(kFile);
  EXPECT_TRUE(text) << text.error().message;
  return std::move(*text);
}

// Check that every step is found with its lines, a repeat's steps under it, and the numbers
// that may shrink (the repeat count and the literal sizes).
TEST(ScenarioText, FindsTheStepsAndTheirNumbers) {
  auto text = sample();
  const auto& steps = text.steps();
  ASSERT_EQ(steps.size(), 7u);
  EXPECT_EQ(steps[1].key, "repeat");
  EXPECT_EQ(steps[1].children, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(steps[2].parent, std::optional<size_t>(1));
  for (const auto& step : steps) EXPECT_TRUE(step.block) << step.key;
  // The repeat's block runs from its comment to the fence.
  auto block = *steps[1].block;
  EXPECT_EQ(text.text().substr(block.begin, block.end - block.begin),
            "  # the loop's comment\n  - repeat: 300\n    as: i\n    steps:\n"
            "      - buffer_data: {buffer: noise, size: 1MiB}\n      - draw: {uniform: noise}\n");
  ASSERT_EQ(text.numbers().size(), 3u);
  EXPECT_EQ(text.numbers()[0].value, 64 * 1024);
  EXPECT_EQ(text.numbers()[1].kind, NumberSite::Kind::RepeatCount);
  EXPECT_EQ(text.numbers()[1].value, 300);
  EXPECT_EQ(text.numbers()[2].value, 1 << 20);
}

// Check that a candidate cuts steps with their comments (a repeat with its steps), rewrites
// numbers in the file's own units, and leaves every other byte as it was.
TEST(ScenarioText, RendersCutsAndNumbersLeavingTheRest) {
  auto text = sample();
  Edits edits;
  edits.cut_steps = {1, 3};  // the repeat, and a step inside it: already gone with it
  edits.numbers[0] = 2048;
  std::string out = text.render(edits);
  EXPECT_EQ(out.find("repeat"), std::string::npos);
  EXPECT_EQ(out.find("the loop's comment"), std::string::npos);
  EXPECT_NE(out.find("  - buffer_data: {buffer: color, size: 2KiB}\n  - fence: f\n"), std::string::npos) << out;
  EXPECT_EQ(out.substr(0, 19), "# A leading comment");
  Edits none;
  EXPECT_EQ(text.render(none), kFile);
  EXPECT_EQ(ScenarioText::format_number(300), "300");
  EXPECT_EQ(ScenarioText::format_number(3 << 20), "3MiB");
}

// Check that keeping one check cuts the others, whole sections included, and that the
// controls and a wait's expected status can be cut in place.
TEST(ScenarioText, KeepsOnlyTheNamedCheck) {
  auto text = sample();
  Edits edits = text.checks_except("gauge", 1, "");
  edits.cut.push_back(*text.top_level("controls"));
  for (const auto& span : text.wait_expectations()) edits.cut.push_back(span);
  std::string out = text.render(edits);
  EXPECT_NE(out.find("expect:\n  gauges:\n    - dsetsalloc == 2\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("wdefn"), std::string::npos);
  EXPECT_EQ(out.find("probe"), std::string::npos);
  EXPECT_EQ(out.find("controls"), std::string::npos);
  EXPECT_NE(out.find("  - client_wait: {fence: f, timeout: 2s}\n"), std::string::npos) << out;
  // A flow list of gauges keeps its one item in a flow list.
  auto flow = ScenarioText::parse("name: x\nworkload:\n  - present\nexpect:\n  gauges: [a == 1, b == 2, c == 3]\n");
  ASSERT_TRUE(flow);
  EXPECT_EQ(flow->render(flow->checks_except("gauge", 1, "")),
            "name: x\nworkload:\n  - present\nexpect:\n  gauges: [b == 2]\n");
  // Waits named: nothing of expect: is left.
  EXPECT_EQ(text.render(text.checks_except("waits", 0, "")).find("\nexpect:"), std::string::npos);
}

// Check the values the reducer rewrites: a flow list of buffers and the name.
TEST(ScenarioText, FindsTopLevelValues) {
  auto text = sample();
  auto buffers = text.top_level_value("buffers");
  ASSERT_TRUE(buffers);
  EXPECT_EQ(text.text().substr(buffers->begin, buffers->end - buffers->begin), "[color, noise]");
  auto name = text.top_level_value("name");
  ASSERT_TRUE(name);
  EXPECT_EQ(text.text().substr(name->begin, name->end - name->begin), "a-sample");
}

}  // namespace
}  // namespace tidemark::reduce
