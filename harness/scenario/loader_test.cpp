#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "scenario/scenario.h"
#include "scenario/steps.h"

#include "core/testing/scratch.h"

namespace tidemark::scenario {
namespace {

namespace fs = std::filesystem;

const fs::path kTestdata = TIDEMARK_SCENARIO_TESTDATA;

Lookup values(std::map<std::string, int64_t> names) {
  return [names = std::move(names)](std::string_view name) -> std::optional<int64_t> {
    auto it = names.find(std::string(name));
    if (it == names.end()) return std::nullopt;
    return it->second;
  };
}

int64_t evaluate(const IntField& field, std::map<std::string, int64_t> names = {}) {
  auto value = field.expr.evaluate(values(std::move(names)));
  EXPECT_TRUE(value) << field.expr.text() << ": " << value.error().message;
  return value.value_or(-999);
}

template <class Kind>
const Kind& as(const Step& step) {
  EXPECT_TRUE(std::holds_alternative<Kind>(*step.kind)) << step.label;
  return std::get<Kind>(*step.kind);
}

CheckId gauge(size_t k) { return {CheckKind::Gauge, k}; }
CheckId pixels(size_t k) { return {CheckKind::Pixels, k}; }

// The message of a load that must fail with BadInput.
std::string load_error(const fs::path& file) {
  auto loaded = load(file);
  if (loaded) return "(loaded without error)";
  EXPECT_EQ(loaded.error().kind, ErrorKind::BadInput) << loaded.error().message;
  return loaded.error().message;
}

// Scenarios written inline, each into its own fresh directory.
class InlineScenario : public testing::Test {
 protected:
  fs::path write(std::string_view name, std::string_view text) {
    fs::path file = dir_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file;
  }

  // Lines 1-4 are fixed, the workload starts on line 5 and `expect:` follows it.
  fs::path with_workload(std::string_view workload, std::string_view expect = "  gauges: [\"submits >= 1\"]\n") {
    return write("s.yaml", std::string("name: inline\n"
                                       "group: errors\n"
                                       "buffers: [color, verts]\n"
                                       "workload:\n") +
                               std::string(workload) + "expect:\n" + std::string(expect));
  }

  // The error for a workload; `at` is "line:column".
  std::string workload_error(std::string_view workload) { return load_error(with_workload(workload)); }
  std::string expect_error(std::string_view expect) { return load_error(with_workload("  - present:\n", expect)); }
  std::string at(std::string_view line_column) { return (dir_ / "s.yaml").string() + ":" + std::string(line_column); }

  const test_support::ScratchDir scratch_{"scenario"};
  const fs::path dir_ = scratch_.path();
};

// Check that a scenario using every field loads with each one populated.
TEST(Load, FullScenarioPopulatesEveryField) {
  auto loaded = load(kTestdata / "good" / "full.yaml");
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Scenario& scenario = *loaded;
  std::string file = (kTestdata / "good" / "full.yaml").string();

  EXPECT_EQ(scenario.file, kTestdata / "good" / "full.yaml");
  EXPECT_EQ(scenario.name, "respecify-and-draw-each-store-stays-within-the-deferred-budget");
  EXPECT_EQ(scenario.group, "reclaim");
  EXPECT_EQ(scenario.description,
            "Respecifies a store every frame and draws it; parked bytes stay under the deferred "
            "budget.\n");
  EXPECT_EQ(scenario.session.knobs, (std::map<std::string, int64_t>{{"retire_lag", 2}, {"wire_deferred_mb", 8}}));
  EXPECT_EQ(scenario.session.width, 192);
  EXPECT_EQ(scenario.session.height, 32);
  EXPECT_EQ(scenario.buffers, (std::vector<std::string>{"color", "verts"}));
  EXPECT_EQ(scenario.fences, (std::vector<std::string>{"f1", "f0"}));

  const auto& workload = scenario.workload;
  ASSERT_EQ(workload.size(), 8u);
  std::vector<std::string> labels;
  for (const auto& step : workload) labels.push_back(step.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"buffer_data", "repeat", "fence", "client_wait", "client_wait", "flush",
                                              "finish", "present"}));

  const auto& verts_data = as<BufferData>(workload[0]);
  EXPECT_EQ(workload[0].where.file, file);
  EXPECT_EQ(workload[0].where.line, 11);
  EXPECT_EQ(workload[0].where.column, 5);
  EXPECT_EQ(verts_data.buffer, "verts");
  EXPECT_EQ(evaluate(verts_data.size), 4096);
  EXPECT_EQ(verts_data.size.where.line, 11);
  EXPECT_EQ(verts_data.size.where.column, 40);
  EXPECT_EQ(verts_data.fill.kind, Fill::Kind::Rgba);
  EXPECT_EQ(verts_data.fill.rgba, (std::array<uint8_t, 4>{1, 2, 3, 4}));

  const auto& outer = as<Repeat>(workload[1]);
  EXPECT_EQ(workload[1].where.line, 12);
  EXPECT_EQ(workload[1].where.column, 5);
  EXPECT_EQ(evaluate(outer.count), 48);
  EXPECT_EQ(outer.variable, "i");
  ASSERT_EQ(outer.steps.size(), 6u);

  const auto& color_data = as<BufferData>(outer.steps[0]);
  EXPECT_EQ(evaluate(color_data.size), 1 << 20);
  EXPECT_EQ(color_data.fill.kind, Fill::Kind::Palette);
  ASSERT_TRUE(color_data.fill.palette_index);
  EXPECT_EQ(evaluate(*color_data.fill.palette_index, {{"i", 7}}), 7);

  const auto& sub_data = as<BufferSubData>(outer.steps[1]);
  EXPECT_EQ(sub_data.buffer, "verts");
  EXPECT_EQ(evaluate(sub_data.offset, {{"i", 3}}), 12);
  EXPECT_EQ(evaluate(sub_data.size), 4);
  EXPECT_EQ(sub_data.fill.kind, Fill::Kind::Zero);

  const auto& banded = as<Draw>(outer.steps[2]);
  EXPECT_EQ(banded.uniform, "color");
  EXPECT_EQ(banded.vertices, "verts");
  ASSERT_TRUE(banded.band);
  EXPECT_EQ(evaluate(banded.band->index, {{"i", 5}}), 5);
  EXPECT_EQ(evaluate(banded.band->of), 48);

  const auto& inner = as<Repeat>(outer.steps[3]);
  EXPECT_EQ(evaluate(inner.count), 2);
  EXPECT_EQ(inner.variable, "j");
  ASSERT_EQ(inner.steps.size(), 1u);
  const auto& nested_draw = as<Draw>(inner.steps[0]);
  EXPECT_FALSE(nested_draw.vertices);
  ASSERT_TRUE(nested_draw.band);
  EXPECT_EQ(evaluate(nested_draw.band->index, {{"i", 5}, {"j", 1}}), 2);
  EXPECT_EQ(nested_draw.band->index.where.line, 23);
  EXPECT_EQ(nested_draw.band->index.where.column, 29);

  EXPECT_EQ(as<FenceSync>(outer.steps[4]).name, "f1");
  const auto& inner_wait = as<ClientWait>(outer.steps[5]);
  EXPECT_EQ(inner_wait.fence, "f1");
  EXPECT_TRUE(inner_wait.flush);
  EXPECT_EQ(inner_wait.timeout_ns, 0u);
  EXPECT_EQ(inner_wait.expect, WaitStatus::TimeoutExpired);

  EXPECT_EQ(as<FenceSync>(workload[2]).name, "f0");
  const auto& seconds_wait = as<ClientWait>(workload[3]);
  EXPECT_FALSE(seconds_wait.flush);
  EXPECT_EQ(seconds_wait.timeout_ns, 2'000'000'000u);
  EXPECT_FALSE(seconds_wait.expect);
  const auto& millis_wait = as<ClientWait>(workload[4]);
  EXPECT_EQ(millis_wait.timeout_ns, 500'000'000u);
  EXPECT_EQ(millis_wait.expect, WaitStatus::ConditionSatisfied);
  as<Flush>(workload[5]);
  as<Finish>(workload[6]);
  as<Present>(workload[7]);

  ASSERT_EQ(scenario.expect.gauges.size(), 3u);
  EXPECT_EQ(scenario.expect.gauges[1].expr.text(), "wlivepk <= wbufs + 8 + 2");
  EXPECT_EQ(scenario.expect.gauges[1].where.line, 33);
  EXPECT_EQ(scenario.expect.gauges[1].where.column, 30);  // the opening quote
  auto bound = scenario.expect.gauges[0].expr.compare(values({{"wdefpk", 9 << 20}}));
  ASSERT_TRUE(bound);
  EXPECT_TRUE(bound->holds);

  ASSERT_EQ(scenario.expect.pixels.size(), 4u);
  const auto& palette_bands = std::get<BandsCheck>(scenario.expect.pixels[0]);
  EXPECT_EQ(palette_bands.count, 48);
  EXPECT_TRUE(palette_bands.palette);
  EXPECT_TRUE(palette_bands.colors.empty());
  EXPECT_EQ(palette_bands.tolerance, 1);
  EXPECT_EQ(palette_bands.where.line, 35);
  EXPECT_EQ(palette_bands.where.column, 7);
  const auto& colour_bands = std::get<BandsCheck>(scenario.expect.pixels[1]);
  EXPECT_FALSE(colour_bands.palette);
  EXPECT_EQ(colour_bands.colors, (std::vector<std::array<uint8_t, 4>>{{255, 0, 0, 255}, {0, 255, 0, 255}}));
  EXPECT_EQ(colour_bands.tolerance, 0);
  const auto& probe = std::get<ProbeCheck>(scenario.expect.pixels[2]);
  EXPECT_EQ(probe.x, 5);
  EXPECT_EQ(probe.y, 5);
  EXPECT_EQ(probe.rgba, (std::array<uint8_t, 4>{60, 200, 90, 255}));
  EXPECT_EQ(probe.tolerance, 1);
  const auto& golden = std::get<GoldenCheck>(scenario.expect.pixels[3]);
  EXPECT_EQ(golden.file, kTestdata / "good" / "golden.png");
  EXPECT_EQ(golden.tolerance, 2);
  EXPECT_EQ(golden.max_mismatch, 3);
}

// Check that optional sections take their documented defaults.
TEST(Load, MinimalScenarioTakesDefaults) {
  auto loaded = load(kTestdata / "good" / "minimal.yaml");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->description, "");
  EXPECT_TRUE(loaded->session.knobs.empty());
  EXPECT_EQ(loaded->session.width, 64);
  EXPECT_EQ(loaded->session.height, 64);
  EXPECT_TRUE(loaded->buffers.empty());
  EXPECT_TRUE(loaded->fences.empty());
  ASSERT_EQ(loaded->workload.size(), 1u);
  EXPECT_EQ(loaded->workload[0].label, "present");
  EXPECT_TRUE(loaded->expect.pixels.empty());
  EXPECT_TRUE(loaded->controls.empty());
}

// Check that controls written before `expect` resolve against its checks (a gauge check by
// its expression, spaces ignored), and carry their knobs and skipped lanes.
TEST(Load, ControlsNameChecksOfTheScenario) {
  auto loaded = load(kTestdata / "good" / "controls.yaml");
  ASSERT_TRUE(loaded) << loaded.error().message;
  std::string file = (kTestdata / "good" / "controls.yaml").string();
  const auto& controls = loaded->controls;
  ASSERT_EQ(controls.size(), 3u);

  EXPECT_EQ(controls[0].mutant, "reclaim.frame_bucket");
  EXPECT_TRUE(controls[0].knobs.empty());
  EXPECT_EQ(controls[0].fails, (std::vector<CheckId>{gauge(0)}));
  EXPECT_TRUE(controls[0].skip_lanes.empty());
  EXPECT_EQ(controls[0].where.file, file);
  EXPECT_EQ(controls[0].where.line, 11);
  EXPECT_EQ(controls[0].where.column, 5);

  EXPECT_EQ(controls[1].mutant, "");
  EXPECT_EQ(controls[1].knobs, (std::map<std::string, int64_t>{{"wire_deferred_mb", 0}}));
  EXPECT_EQ(controls[1].fails, (std::vector<CheckId>{gauge(1), pixels(1)}));
  EXPECT_TRUE(controls[1].skip_lanes.empty());
  EXPECT_EQ(controls[1].where.line, 13);
  EXPECT_EQ(controls[1].where.column, 5);

  EXPECT_EQ(controls[2].mutant, "wire.drop_knobs");
  EXPECT_EQ(controls[2].knobs, (std::map<std::string, int64_t>{{"retire_lag", 3}, {"wire_deferred_mb", 0}}));
  EXPECT_EQ(controls[2].fails, (std::vector<CheckId>{gauge(2)}));
  EXPECT_EQ(controls[2].skip_lanes, (std::map<std::string, std::string>{
                                        {"monolith", "no wire in monolith: there is no handshake to drop knobs from"},
                                        {"split", "the knobs cross the wire by reference"}}));
  EXPECT_EQ(controls[2].where.line, 17);
  EXPECT_EQ(controls[2].where.column, 5);

  // The checks themselves are untouched by the controls naming them.
  ASSERT_EQ(loaded->expect.gauges.size(), 3u);
  EXPECT_EQ(loaded->expect.gauges[0].expr.text(), "wlivepk <= 4 * wbufs");
  EXPECT_EQ(loaded->expect.pixels.size(), 2u);
}

// Check that the knob table carries the documented ranges and defaults.
TEST(Load, KnobTableCarriesRangesAndDefaults) {
  const auto& knobs = known_knobs();
  ASSERT_EQ(knobs.size(), 11u);
  EXPECT_EQ(knobs[0].name, "wire_deferred_mb");
  EXPECT_EQ(knobs[0].min, 0);
  EXPECT_EQ(knobs[0].max, 65536);
  EXPECT_EQ(knobs[0].default_value, 64);
  EXPECT_EQ(knobs[1].name, "retire_lag");
  EXPECT_EQ(knobs[1].max, 1000000);
  EXPECT_EQ(knobs[1].default_value, 0);
  EXPECT_EQ(knobs[3].name, "layer_exit_at_call");
  EXPECT_EQ(knobs[3].max, 1000000000);
  EXPECT_EQ(knobs[3].default_value, 0);
  EXPECT_EQ(knobs[5].name, "layer_device_lost_at");
  EXPECT_EQ(knobs[6].name, "layer_hang_at_call");
  EXPECT_EQ(knobs[7].name, "layer_drop_draw");
  EXPECT_EQ(knobs[7].default_value, 0);
  EXPECT_EQ(knobs[8].name, "layer_faults_first_device");
  EXPECT_EQ(knobs[8].max, 1);
  EXPECT_EQ(knobs[10].name, "gl_drop_draw");
  EXPECT_EQ(knobs[10].default_value, 0);
}

// ---- testdata/bad: one file per class of malformed scenario -----------------------------
// Each file states its expected message on its first line (`# error: LINE:COL: ...`) and
// what it checks on its second; the command line's bad-input tests read the same line.

std::vector<fs::path> bad_cases() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kTestdata / "bad"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());  // not the files they read
  std::sort(files.begin(), files.end());
  return files;
}

class BadScenario : public testing::TestWithParam<fs::path> {};

// Check that each bad file fails to load with exactly the message its first line states.
TEST_P(BadScenario, FailsWithTheMessageItsFirstLineStates) {
  const fs::path& file = GetParam();
  std::ifstream in(file);
  std::string first_line;
  std::getline(in, first_line);
  constexpr std::string_view kPrefix = "# error: ";
  ASSERT_TRUE(first_line.starts_with(kPrefix)) << file << " does not state its expected error";
  EXPECT_EQ(load_error(file), file.string() + ":" + first_line.substr(kPrefix.size()));
}

INSTANTIATE_TEST_SUITE_P(Testdata, BadScenario, testing::ValuesIn(bad_cases()),
                         [](const testing::TestParamInfo<fs::path>& info) { return info.param.stem().string(); });

// ---- finer cases, written inline ------------------------------------------------------

// Check that a missing file is bad input naming the path (README: a missing input is exit 2).
TEST_F(InlineScenario, AMissingFileIsBadInputNamingIt) {
  auto loaded = load(dir_ / "absent.yaml");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(loaded.error().message, (dir_ / "absent.yaml").string() + ": expected a scenario file, found nothing");
}

// Check that a file on which yaml-cpp 0.7's LoadAll never returns (it keeps taking empty
// documents after a syntax error it did not report; found by the loader's fuzz target) loads
// to an error at once. Before the fix this test hung until CTest's timeout.
TEST(LoaderRegression, AFileOnWhichLoadAllLoopsForEverIsAnError) {
  auto loaded = load(kTestdata / "fuzz" / "yaml-cpp-loadall-loops-for-ever.yaml");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().kind, ErrorKind::BadInput);
  EXPECT_NE(loaded.error().message.find("expected one YAML document"), std::string::npos) << loaded.error().message;
}

// Check that empty, non-map, multi-document and tab-indented files are rejected clearly.
TEST_F(InlineScenario, DocumentShapeErrorsAreReportedAtTheirLine) {
  EXPECT_EQ(load_error(write("empty.yaml", "# nothing\n")),
            (dir_ / "empty.yaml").string() +
                ":1:1: expected a scenario map (name, group, workload, expect, ...), found an "
                "empty document");
  EXPECT_EQ(load_error(write("list.yaml", "- name: x\n")),
            (dir_ / "list.yaml").string() +
                ":1:1: expected a map (name, group, description, knobs, target, kernel, kmd, kgsl, tracing, layer, "
                "backends, counters, buffers, workload, "
                "expect, controls, unproven, timeout, inactivity_timeout), "
                "found a list");
  EXPECT_EQ(load_error(write("two.yaml", "name: a\n---\nname: b\n")),
            (dir_ / "two.yaml").string() + ":3:1: expected one YAML document, found a second one");
  EXPECT_EQ(load_error(write("tab.yaml", "name: a\nknobs:\n\twire_deferred_mb: 8\n")),
            (dir_ / "tab.yaml").string() + ":3:1: expected spaces for indentation, found a tab");
  EXPECT_EQ(load_error(write("colon.yaml", "name: a: b\n")),
            (dir_ / "colon.yaml").string() +
                ":1:8: expected no ':' inside a plain value (quote the value or fix the "
                "indentation), found ':'");
}

// Check that name, workload and expect are required and must not be empty.
TEST_F(InlineScenario, RequiredTopLevelFieldsMustBePresent) {
  EXPECT_EQ(load_error(write("s.yaml", "group: g\nworkload: [present: ]\nexpect: {gauges: [\"presents == 1\"]}\n")),
            at("1:1: expected field 'name' in the scenario, found none"));
  EXPECT_EQ(load_error(write("s.yaml", "name: n\ngroup: g\nexpect: {gauges: [\"presents == 1\"]}\n")),
            at("1:1: expected field 'workload' in the scenario, found none"));
  EXPECT_EQ(load_error(write("s.yaml", "name: n\ngroup: g\nworkload:\n  - present:\n")),
            at("1:1: expected field 'expect' in the scenario, found none"));
  EXPECT_EQ(load_error(write("s.yaml", "name: n\ngroup: g\nworkload: []\nexpect: {}\n")),
            at("3:11: expected a non-empty list of steps in workload, found an empty list"));
  EXPECT_EQ(expect_error("  gauges: []\n"),
            at("7:3: expected at least one check (gauges, pixels, or a client_wait's expect), found none"));
  // A client_wait's expected status is a check of its own: it alone satisfies `expect`.
  auto waits_only = load(write("w.yaml",
                               "name: n\ngroup: g\nworkload:\n  - fence: f\n"
                               "  - client_wait: {fence: f, flush: true, timeout: 1s, expect: condition_satisfied}\n"
                               "expect: {}\n"));
  ASSERT_TRUE(waits_only) << waits_only.error().message;
  EXPECT_EQ(waits_only->checks(), (std::vector<CheckId>{{CheckKind::Waits, 0}}));
}

// Check that name and group must be kebab-case, pointing at the first bad character.
TEST_F(InlineScenario, NamesAreKebabCase) {
  EXPECT_EQ(load_error(write("s.yaml", "name: Draw_Once\ngroup: g\n")),
            at("1:7: expected a kebab-case name ([a-z0-9-]+), found 'Draw_Once'"));
  EXPECT_EQ(load_error(write("s.yaml", "name: draw\ngroup: re_claim\n")),
            at("2:10: expected a kebab-case name ([a-z0-9-]+), found 're_claim'"));
  EXPECT_EQ(load_error(write("s.yaml", "name: [a]\n")),
            at("1:7: expected a kebab-case name ([a-z0-9-]+), found a list"));
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\ndescription: {a: 1}\n")),
            at("3:14: expected a description, found a map"));
}

// Check that a scenario's own time limits are whole seconds from 1 to a day, and left out mean the defaults.
TEST_F(InlineScenario, TimeLimitsAreWholeSecondsWithinADay) {
  const std::string body = "workload:\n  - present:\nexpect:\n  gauges: [\"submits >= 1\"]\n";
  auto loaded = load(write("s.yaml", "name: a\ngroup: g\ntimeout: 120\ninactivity_timeout: 5\n" + body));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->time_bounds, (TimeBoundsOverride{.wall = 120.0, .inactivity = 5.0}));
  auto plain = load(write("s.yaml", "name: a\ngroup: g\n" + body));
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->time_bounds, TimeBoundsOverride{});
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\ntimeout: 0\n" + body)),
            at("3:10: expected an integer from 1 to 86400 for the seconds its whole run may take, found '0'"));
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\ninactivity_timeout: 2.5\n" + body)),
            at("3:21: expected an integer from 1 to 86400 for the seconds it may go without a call crossing the "
               "layer or the wire, found '2.5'"));
}

// Check that knobs, target and buffers reject bad names and values.
TEST_F(InlineScenario, KnobsTargetAndBuffersAreValidated) {
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\nknobs: {retire_lagg: 1}\n")),
            at("3:9: expected one of wire_deferred_mb, retire_lag, layer_fail_allocation, layer_exit_at_call, "
               "layer_crash_at_call, layer_device_lost_at, layer_hang_at_call, layer_drop_draw, "
               "layer_faults_first_device, layer_never_done, gl_drop_draw, found "
               "unknown key 'retire_lagg'"));
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\nknobs: {retire_lag: eight}\n")),
            at("3:21: expected retire_lag in 0..1000000, found 'eight'"));
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\ntarget: {width: 0}\n")),
            at("3:17: expected an integer from 1 to 4096, found '0'"));
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\ntarget: {width: 64, depth: 2}\n")),
            at("3:21: expected one of width, height, found unknown key 'depth'"));
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\nbuffers: [color, color]\n")),
            at("3:18: expected unique buffer names, found 'color' again"));
  EXPECT_EQ(load_error(write("s.yaml", "name: a\ngroup: g\nbuffers: [Color]\n")),
            at("3:11: expected a buffer name ([a-z_][a-z0-9_]*), found 'Color'"));
}

// Check that each step is a single-key map with known fields.
TEST_F(InlineScenario, StepsAreSingleKeyMapsWithKnownFields) {
  // An unknown key is answered with every step of the registry (the table of calls' order, then
  // repeat): the list follows the registry, so a step added to the table needs no edit here.
  std::string every_step;
  for (const auto& doc : kStepDocs) every_step += (every_step.empty() ? "" : ", ") + std::string(doc.name);
  EXPECT_TRUE(every_step.starts_with("buffer_data, buffer_sub_data, draw, fence, client_wait, flush, ")) << every_step;
  EXPECT_TRUE(every_step.ends_with(", counter_sample, repeat")) << every_step;
  EXPECT_EQ(workload_error("  - drow: {uniform: color}\n"),
            at("5:5: expected one of " + every_step + ", found unknown key 'drow'"));
  EXPECT_EQ(workload_error("  - buffer_data:\n    buffer: color\n"),
            at("6:5: expected one key per step, found a second key 'buffer' (indent a step's "
               "fields under it)"));
  EXPECT_EQ(workload_error("  - present\n"),
            at("5:5: expected a step such as '- draw: {uniform: color}', found 'present'"));
  EXPECT_EQ(workload_error("  - present: now\n"), at("5:14: expected nothing or {} after present, found 'now'"));
  EXPECT_EQ(workload_error("  - buffer_data:\n"), at("5:5: expected a map (buffer, size, fill), found nothing"));
  EXPECT_EQ(workload_error("  - draw: {uniform: color, colour: red}\n"),
            at("5:28: expected one of uniform, vertices, band, found unknown key 'colour'"));
  EXPECT_EQ(workload_error("  - draw: {vertices: verts}\n"), at("5:11: expected field 'uniform' in draw, found none"));
  EXPECT_EQ(workload_error("  - flush:\n  - present: {}\n  - finish: {}\n  - buffer_sub_data: "
                           "{buffer: verts, size: 4}\n"),
            at("8:22: expected field 'offset' in buffer_sub_data, found none"));
}

// Check that integer fields reject bad text, and constants outside their range.
TEST_F(InlineScenario, IntFieldsRejectBadTextAndConstantsOutOfRange) {
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4KB}\n"),
            at("5:41: expected a size unit (B, KiB, MiB, GiB), found 'KB'"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: -4}\n"),
            at("5:40: expected a size from 0 to 128MiB, found '-4'"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 2 - 3}\n"),
            at("5:40: expected a size from 0 to 128MiB, found '2 - 3' = -1"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: [4]}\n"),
            at("5:40: expected an integer or a size such as 4KiB, found a list"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: i * 4}\n"),
            at("5:40: expected a loop variable in scope (none), found 'i'"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4 / 0}\n"),
            at("5:40: expected a computable value, found division by zero in '4 / 0'"));
  EXPECT_EQ(workload_error("  - repeat: 0\n    steps: [present: ]\n"),
            at("5:13: expected a repeat count from 1 to 10000000, found '0'"));
  EXPECT_EQ(workload_error("  - repeat: 10000001\n    steps: [present: ]\n"),
            at("5:13: expected a repeat count from 1 to 10000000, found '10000001'"));
  EXPECT_EQ(workload_error("  - draw: {uniform: color, band: {index: 0, of: 0}}\n"),
            at("5:49: expected a band count >= 1, found '0'"));
  EXPECT_EQ(workload_error("  - draw: {uniform: color, band: {index: 4, of: 4}}\n"),
            at("5:42: expected a band index below 'of' (4), found '4'"));
  // A quoted value still points inside the expression.
  EXPECT_EQ(workload_error("  - repeat: 2\n    as: i\n    steps:\n      - draw: {uniform: color, "
                           "band: {index: 'i +', of: 2}}\n"),
            at("8:50: expected a number, a name or '(', found the end"));
}

// Check that a loop variable is visible only inside its repeat and cannot be shadowed.
TEST_F(InlineScenario, LoopVariablesAreScopedToTheirRepeat) {
  EXPECT_EQ(workload_error("  - repeat: 2\n    as: i\n    steps:\n      - repeat: i + 1\n        as: i\n"
                           "        steps: [present: ]\n"),
            at("9:13: expected a name not already in scope (i), found 'i'"));
  EXPECT_EQ(workload_error("  - repeat: 2\n    as: i\n    steps:\n      - present:\n"
                           "  - buffer_data: {buffer: color, size: i}\n"),
            at("9:40: expected an integer or a size such as 4KiB, found 'i'"));
  EXPECT_EQ(workload_error("  - repeat: 2\n    as: i\n    steps:\n      - repeat: 3\n        as: j\n"
                           "        steps:\n          - buffer_data: {buffer: color, size: lots}\n"),
            at("11:48: expected a loop variable in scope (i, j), found 'lots'"));
  EXPECT_EQ(workload_error("  - repeat: 2\n    steps: []\n"),
            at("6:12: expected a non-empty list of steps in repeat, found an empty list"));
  EXPECT_EQ(workload_error("  - repeat: 2\n    as: i\n"), at("5:5: expected field 'steps' in repeat, found none"));
  EXPECT_EQ(workload_error("  - repeat: 2\n    draw: {uniform: color}\n    steps: [present: ]\n"),
            at("6:5: expected one of repeat, as, steps, found unknown key 'draw'"));
}

// Check that a fill is exactly one of palette, rgba or zero.
TEST_F(InlineScenario, FillIsExactlyOneKind) {
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4, fill: {palette: 1, zero: true}}\n"),
            at("5:62: expected exactly one of palette, rgba, zero, found a second key 'zero'"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4, fill: {}}\n"),
            at("5:49: expected exactly one of palette, rgba, zero, found an empty map"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4, fill: {red: 1}}\n"),
            at("5:50: expected one of palette, rgba, zero, found unknown key 'red'"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4, fill: {rgba: [1, 2, 3]}}\n"),
            at("5:56: expected a colour [r, g, b, a] of 4 bytes, found a list of 3"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4, fill: {rgba: [1, 2, 3, 256]}}\n"),
            at("5:66: expected an integer from 0 to 255, found '256'"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4, fill: {zero: false}}\n"),
            at("5:56: expected true (zero: true), found 'false'"));
  EXPECT_EQ(workload_error("  - buffer_data: {buffer: color, size: 4, fill: red}\n"),
            at("5:49: expected a map (palette, rgba, zero), found 'red'"));
}

// Check that fences re-arm under one name and that waits validate every field.
TEST_F(InlineScenario, FencesAndWaitsAreValidated) {
  auto loaded =
      load(with_workload("  - fence: a\n  - client_wait: {fence: a}\n  - fence: a\n  - fence: b\n"
                         "  - client_wait: {fence: b, timeout: 250 us}\n"));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->fences, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(std::get<ClientWait>(*loaded->workload[4].kind).timeout_ns, 250'000u);

  EXPECT_EQ(workload_error("  - fence: a\n  - client_wait: {fence: b}\n"),
            at("6:26: expected a fence defined by an earlier fence step (a), found 'b'"));
  EXPECT_EQ(workload_error("  - fence: a\n  - client_wait: {fence: a, timeout: soon}\n"),
            at("6:38: expected a timeout in ns, or with a unit such as 500ms or 2s, found 'soon'"));
  EXPECT_EQ(workload_error("  - fence: a\n  - client_wait: {fence: a, timeout: 5min}\n"),
            at("6:38: expected a timeout in ns, or with a unit such as 500ms or 2s, found '5min'"));
  EXPECT_EQ(workload_error("  - fence: a\n  - client_wait: {fence: a, flush: yes}\n"),
            at("6:36: expected true or false, found 'yes'"));
  EXPECT_EQ(workload_error("  - fence: a\n  - client_wait: {fence: a, expect: signaled}\n"),
            at("6:37: expected one of already_signaled, condition_satisfied, timeout_expired, "
               "found 'signaled'"));
  EXPECT_EQ(workload_error("  - fence: {name: a}\n"),
            at("5:12: expected a fence name ([a-z_][a-z0-9_]*), found a map"));
}

// Check that gauge checks are comparisons over known gauges and knobs.
TEST_F(InlineScenario, GaugeChecksAreComparisonsOverKnownNames) {
  EXPECT_EQ(expect_error("  gauges: [\"wdefpk <= 9 MB\"]\n"), at("7:25: expected an operator or the end, found 'M'"));
  EXPECT_EQ(expect_error("  gauges: [\"wdefpk\"]\n"),
            at("7:12: expected a comparison such as 'wlivepk <= 4', found 'wdefpk'"));
  EXPECT_EQ(expect_error("  gauges: [wlivepk <= wbuf + 2]\n"),
            at("7:23: expected a gauge or knob name (starting with 'w': wbufs, wlive, wlivepk, wdefn, wdefpk, "
               "wdefsync, wdefmb, wireres, wirerespk, wireresmade, wireresgone, wirebytesout, wirebytesin, wirefdsout, "
               "wirefdsin, wirecmds, wirereplies, wire_deferred_mb; 124 in all, see docs/gauges.md), found 'wbuf'"));
  EXPECT_EQ(expect_error("  gauges: \"wlivepk <= 4\"\n"),
            at("7:11: expected a list of gauge comparisons, found 'wlivepk <= 4'"));
  EXPECT_EQ(expect_error("  gauge: [\"wlivepk <= 4\"]\n"), at("7:3: expected one of gauges, pixels, kernel, kmd, kgsl, "
                                                              "trace, reconcile, observed, found unknown key 'gauge'"));
}

// Check that pixel checks fit the target and that goldens resolve beside the scenario.
TEST_F(InlineScenario, PixelChecksFitTheTargetAndGoldensResolveBesideTheScenario) {
  EXPECT_EQ(expect_error("  pixels:\n    - bands: {count: 4}\n"),
            at("8:14: expected palette: true or colors in bands, found neither"));
  EXPECT_EQ(expect_error("  pixels:\n    - bands: {count: 2, palette: true, colors: [[0, 0, 0, 0], "
                         "[0, 0, 0, 0]]}\n"),
            at("8:48: expected either palette: true or colors, found both"));
  EXPECT_EQ(expect_error("  pixels:\n    - bands: {count: 2, colors: [[0, 0, 0, 0]]}\n"),
            at("8:33: expected a list of 2 colours, one per band, found a list of 1"));
  EXPECT_EQ(expect_error("  pixels:\n    - bands: {count: 65, palette: true}\n"),
            at("8:22: expected an integer from 1 to 64, found '65'"));
  EXPECT_EQ(expect_error("  pixels:\n    - probe: {x: 64, y: 0, rgba: [0, 0, 0, 0]}\n"),
            at("8:18: expected an integer from 0 to 63, found '64'"));
  EXPECT_EQ(expect_error("  pixels:\n    - probe: {x: 1, y: 0, rgba: [0, 0, 0, 0], tolerance: 300}\n"),
            at("8:58: expected an integer from 0 to 255, found '300'"));
  EXPECT_EQ(expect_error("  pixels:\n    - probe: {x: 1, rgba: [0, 0, 0, 0]}\n"),
            at("8:14: expected field 'y' in probe, found none"));
  EXPECT_EQ(
      expect_error("  pixels:\n    - golden: {file: missing.png}\n"),
      at("8:22: expected an existing file (looked for " + (dir_ / "missing.png").string() + "), found 'missing.png'"));
  EXPECT_EQ(expect_error("  pixels:\n    - probe: {x: 1, y: 1, rgba: [0, 0, 0, 0]}\n      golden: "
                         "{file: a.png}\n"),
            at("9:7: expected one key per pixel check, found a second key 'golden'"));
  EXPECT_EQ(expect_error("  pixels:\n    - glden: {file: a.png}\n"),
            at("8:7: expected one of bands, probe, golden, found unknown key 'glden'"));

  // A golden is a PNG (by its signature; decoding is the check's job) inside the folder.
  write("g/b.png", std::string("\x89PNG\r\n\x1a\n", 8) + "the rest is not read at load");
  auto loaded = load(write("g/s.yaml",
                           "name: a\ngroup: g\nworkload: [present: ]\nexpect:\n  pixels:\n    - "
                           "golden: {file: b.png}\n"));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(std::get<GoldenCheck>(loaded->expect.pixels[0]).file, dir_ / "g" / "b.png");
  write("g/text.png", "plain text");
  auto golden = [&](std::string_view file) {
    return load_error(write("g/s.yaml",
                            "name: a\ngroup: g\nworkload: [present: ]\nexpect:\n  pixels:\n    - "
                            "golden: {file: " +
                                std::string(file) + "}\n"));
  };
  std::string in_g = (dir_ / "g" / "s.yaml").string();
  EXPECT_EQ(
      golden("text.png"),
      in_g + ":6:22: expected a PNG file (one that starts with the PNG signature), found 'text.png', which does not");
  EXPECT_EQ(golden("../s.yaml"), in_g + ":6:22: expected a PNG file inside the scenario's folder, found '../s.yaml'");
  EXPECT_EQ(golden("/etc/passwd"),
            in_g + ":6:22: expected a PNG file inside the scenario's folder, found '/etc/passwd'");
}

// Check that a key naming a file to read (rows_file, dump_file, a golden's file) is bad input
// at its value when it names a folder or a pipe, not an internal error from reading it.
TEST_F(InlineScenario, FilesTheScenarioNamesAreFilesNotFoldersOrPipes) {
  fs::create_directories(dir_ / "rows.d");
  EXPECT_EQ(expect_error("  trace:\n    - {track: \"Parked bytes (gpu 0)\", rows_file: rows.d}\n"),
            at("8:50: expected a file, found 'rows.d', a folder"));
  EXPECT_EQ(expect_error("  kernel:\n    dump_file: rows.d\n"), at("8:16: expected a file, found 'rows.d', a folder"));
  EXPECT_EQ(expect_error("  kernel:\n    dump_file: .\n"), at("8:16: expected a file, found '.', a folder"));
  EXPECT_EQ(expect_error("  pixels:\n    - golden: {file: rows.d}\n"),
            at("8:22: expected a PNG file, found 'rows.d', a folder"));
  ASSERT_EQ(mkfifo((dir_ / "rows.fifo").c_str(), 0600), 0);
  EXPECT_EQ(expect_error("  trace:\n    - {track: \"Parked bytes (gpu 0)\", rows_file: rows.fifo}\n"),
            at("8:50: expected a file, found 'rows.fifo', which is not a regular file"));
  EXPECT_EQ(expect_error("  kernel:\n    dump_file: missing.txt\n"),
            at("8:16: expected an existing file in the scenario's folder, found 'missing.txt'"));
}

// Lines 1-10 are fixed: two gauge checks and one pixel check; the controls start on line 11.
class InlineControls : public InlineScenario {
 protected:
  fs::path with_controls(std::string_view controls) {
    return with_workload("  - present:\n",
                         "  gauges: [\"submits >= 1\", \"presents == 1\"]\n"
                         "  pixels:\n"
                         "    - probe: {x: 0, y: 0, rgba: [0, 0, 0, 255]}\n"
                         "controls:\n" +
                             std::string(controls));
  }
  std::string control_error(std::string_view controls) { return load_error(with_controls(controls)); }
};

// Check that a flow-style control is located at its first key and that references are
// matched to gauge checks with whitespace ignored, pixel checks exactly.
TEST_F(InlineControls, FlowControlsAndReferenceMatching) {
  auto loaded =
      load(with_controls("  - {knobs: {retire_lag: 1}, fails: [\"submits>=1\", \" presents ==\\t1\"]}\n"
                         "  - {mutant: a.b, fails: [\"pixels[0]\"]}\n"
                         "  - {mutant: a.b, knobs: {retire_lag: 1}, fails: [\"pixels[0]\"]}\n"));
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_EQ(loaded->controls.size(), 3u);
  EXPECT_EQ(loaded->controls[0].where.line, 11);
  EXPECT_EQ(loaded->controls[0].where.column, 6);
  EXPECT_EQ(loaded->controls[0].fails, (std::vector<CheckId>{gauge(0), gauge(1)}));
  EXPECT_EQ(loaded->controls[1].fails, (std::vector<CheckId>{pixels(0)}));
  EXPECT_EQ(loaded->controls[2].mutant, "a.b");

  EXPECT_EQ(control_error("  - {mutant: a.b, fails: [\"pixels[ 0 ]\"]}\n"),
            at("11:27: expected a check of this scenario (submits >= 1, presents == 1, "
               "pixels[0]), found 'pixels[ 0 ]'"));
  EXPECT_EQ(control_error("  - {mutant: a.b, fails: [\"submits >= 2\"]}\n"),
            at("11:27: expected a check of this scenario (submits >= 1, presents == 1, "
               "pixels[0]), found 'submits >= 2'"));
  EXPECT_EQ(control_error("  - {mutant: a.b, fails: [[submits >= 1]]}\n"),
            at("11:27: expected a check of this scenario (submits >= 1, presents == 1, "
               "pixels[0]), found a list"));
  EXPECT_EQ(control_error("  - {}\n"), at("11:5: expected a mutant or knobs in a control, found neither"));
}

// Check the shapes a control and its parts must have.
TEST_F(InlineControls, ControlShapesAreValidated) {
  EXPECT_EQ(control_error("  mutant: a.b\n"), at("11:3: expected a non-empty list of controls, found a map"));
  EXPECT_EQ(control_error("  - a.b\n"),
            at("11:5: expected a map (mutant, knobs, fails, skip_lanes, backends), found 'a.b'"));
  EXPECT_EQ(control_error("  - mutant: frame_bucket\n    fails: [\"pixels[0]\"]\n"),
            at("11:13: expected a mutant name component.name ([a-z0-9_]+(\\.[a-z0-9_]+)+), "
               "found 'frame_bucket'"));
  EXPECT_EQ(control_error("  - mutant: reclaim..x\n    fails: [\"pixels[0]\"]\n"),
            at("11:21: expected a mutant name component.name ([a-z0-9_]+(\\.[a-z0-9_]+)+), "
               "found 'reclaim..x'"));
  EXPECT_EQ(control_error("  - mutant: reclaim.\n    fails: [\"pixels[0]\"]\n"),
            at("11:20: expected a mutant name component.name ([a-z0-9_]+(\\.[a-z0-9_]+)+), "
               "found 'reclaim.'"));
  EXPECT_EQ(control_error("  - knobs: {retire_lagg: 1}\n    fails: [\"pixels[0]\"]\n"),
            at("11:13: expected one of wire_deferred_mb, retire_lag, layer_fail_allocation, layer_exit_at_call, "
               "layer_crash_at_call, layer_device_lost_at, layer_hang_at_call, layer_drop_draw, "
               "layer_faults_first_device, layer_never_done, gl_drop_draw, found "
               "unknown key 'retire_lagg'"));
  EXPECT_EQ(control_error("  - mutant: a.b\n    fails: [\"pixels[0]\"]\n    skip_lanes: [tcp]\n"),
            at("13:17: expected a map (monolith, split, spawn, tcp), found a list"));
  EXPECT_EQ(control_error("  - mutant: a.b\n    fails: [\"pixels[0]\"]\n    skip_lanes:\n"
                          "      tcp:\n"),
            at("14:7: expected a reason the control cannot apply in this lane, found nothing"));
}

// Check how a repeated control is named: by its mutant, its knobs, or both.
TEST_F(InlineControls, RepeatedControlsAreNamedByWhatTheySet) {
  EXPECT_EQ(control_error("  - {mutant: a.b, fails: [\"pixels[0]\"]}\n"
                          "  - {mutant: a.b, fails: [\"submits >= 1\"]}\n"),
            at("12:6: expected each control once, found mutant=a.b again (first on line 11)"));
  EXPECT_EQ(control_error("  - {knobs: {retire_lag: 1}, fails: [\"pixels[0]\"]}\n"
                          "  - {knobs: {retire_lag: 01}, fails: [\"pixels[0]\"]}\n"),
            at("12:6: expected each control once, found knobs=retire_lag:1 again (first on line 11)"));
}

// ---- collect_files --------------------------------------------------------------------

// Check that directories expand to their *.yaml files, sorted, and files are taken as given.
TEST_F(InlineScenario, CollectFilesWalksDirectoriesSorted) {
  write("tree/b.yaml", "");
  write("tree/a/z.yaml", "");
  write("tree/a/notes.txt", "");
  write("tree/c.yml", "");
  write("single.yml", "");
  auto files = collect_files({dir_ / "single.yml", dir_ / "tree"});
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_EQ(*files, (std::vector<fs::path>{dir_ / "single.yml", dir_ / "tree/a/z.yaml", dir_ / "tree/b.yaml"}));
}

// Check that non-scenario files, missing paths and scenario-less directories are errors.
TEST_F(InlineScenario, CollectFilesRejectsWhatIsNotAScenario) {
  write("notes.txt", "");
  fs::create_directories(dir_ / "empty");
  write("empty/readme.md", "");
  auto text = collect_files({dir_ / "notes.txt"});
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(text.error().message,
            (dir_ / "notes.txt").string() + ": expected a scenario file ending in .yaml or .yml, found '.txt'");
  auto missing = collect_files({dir_ / "nowhere.yaml"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            (dir_ / "nowhere.yaml").string() + ": expected a scenario file or a directory, found nothing at that path");
  auto empty = collect_files({dir_ / "empty"});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(empty.error().message,
            (dir_ / "empty").string() + ": expected a directory holding *.yaml scenarios, found none");
}

}  // namespace
}  // namespace tidemark::scenario
