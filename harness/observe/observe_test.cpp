// The observer's library on records written here as the layer writes them: the process tree is
// assembled from each process's folder and its ancestors, bounds hold for each process and for
// the whole, and the exit code gives the program's own failure first.
#include "observe/observe.h"

#include <gtest/gtest.h>

#include <array>
#include <fstream>

#include "core/expr.h"
#include "core/testing/scratch.h"
#include "layer/records.h"
#include "layer/tidemark_layer.h"
#include "observe/live_replay.h"

namespace tidemark::observe {
namespace {

namespace fs = std::filesystem;

class LayerFolder : public ::testing::Test {
 protected:
  // A process folder as the layer writes it; `buffers_peak` < 0: no layer.json (it was killed), a
  // status file with -buffers_peak.
  void process(const std::string& folder, uint32_t pid, uint32_t parent, bool observed, int64_t buffers_peak,
               std::vector<layer::ProcessRecord::Ancestor> ancestors = {}) {
    fs::create_directories(root_ / folder);
    layer::ProcessRecord record{pid, parent, {"prog", std::to_string(pid)}, "/x", observed, 0, std::move(ancestors)};
    // Into place whole, as the layer puts it: a follower that reads a half-written record would
    // rightly stop following that folder.
    std::ofstream(root_ / folder / "process.json.part") << layer::to_json(record).dump();
    fs::rename(root_ / folder / "process.json.part", root_ / folder / "process.json");
    if (!observed) return;
    std::ofstream events(root_ / folder / "events.bin", std::ios::binary);
    const TidemarkLayerEvent written[] = {{TIDEMARK_EVENT_DEVICE, 0, 1, 0},
                                          {TIDEMARK_EVENT_ALLOCATED, 1, 0xa0, 4096},
                                          {TIDEMARK_EVENT_SUBMITTED, 0, 7, 0},
                                          {TIDEMARK_EVENT_FREED, 1, 0xa0, 4096}};
    events.write(reinterpret_cast<const char*>(written), sizeof written);
    if (buffers_peak < 0) {  // killed: its status file holds its gauges as of its last change
      TidemarkLayerStatus status{};
      status.devices = 2;  // one destroyed, one live when it was killed
      status.gone.buffers = {0, 7, 7};
      status.live[1].buffers = {0, -buffers_peak - 7, -buffers_peak - 7};
      std::ofstream(root_ / folder / "status", std::ios::binary)
          .write(reinterpret_cast<const char*>(&status), sizeof status);
      return;
    }
    TidemarkLayerGauges all{};
    all.buffers = {0, buffers_peak, buffers_peak};
    all.submits = 1;
    layer::LayerReport report{pid, {{1, true, all}}, all, {}};
    std::ofstream(root_ / folder / "layer.json") << layer::to_json(report).dump();
  }
  static scenario::GaugeCheck bound(std::string_view text) { return {.expr = *Expression::parse(text), .where = {}}; }
  // The observation of the processes written so far, the program's pid `root`.
  Observation observed_tree(uint32_t root) {
    Observation observation;
    observation.pid = root;
    observation.processes = gather(root_, root)->processes;
    return observation;
  }

  const test_support::ScratchDir scratch_{"observe"};
  const fs::path root_ = scratch_.path();
};

TEST_F(LayerFolder, TheTreeHoldsEveryProcessTheLayerSawAndTheAncestorsThatMadeNoDevice) {
  const std::vector<layer::ProcessRecord::Ancestor> shell = {{100, 1, {"sh", "-c", "a && b"}}};
  process("200", 200, 100, true, 3005, shell);
  process("300", 300, 100, true, 10, shell);
  process("300-2", 300, 100, true, -77, shell);  // a second image in pid 300 that was killed
  process("400", 400, 100, false, 0, shell);
  auto gathered = gather(root_, 100);
  ASSERT_TRUE(gathered) << gathered.error().message;
  auto processes = &gathered->processes;
  ASSERT_EQ(processes->size(), 5u);
  EXPECT_EQ((*processes)[0].pid, 100u);  // the program first
  EXPECT_EQ((*processes)[0].kind, ProcessKind::NoDevice);
  EXPECT_EQ((*processes)[0].command, (std::vector<std::string>{"sh", "-c", "a && b"}));
  EXPECT_EQ((*processes)[1].kind, ProcessKind::Vulkan);
  EXPECT_EQ((*processes)[1].observed.vkbufspk, 3005);
  EXPECT_EQ((*processes)[1].kernel.kevents,
            4);  // its own host: the allocation and the free, each for its pid and global
  EXPECT_EQ((*processes)[1].kernel.kbsubmits, 1);
  EXPECT_EQ((*processes)[2].folder, "300");
  EXPECT_TRUE((*processes)[2].reported);
  EXPECT_EQ((*processes)[3].folder, "300-2");
  EXPECT_FALSE((*processes)[3].reported);
  EXPECT_EQ((*processes)[3].observed.vkbufspk, 77);      // from its status file
  EXPECT_EQ((*processes)[3].kind, ProcessKind::Vulkan);  // its events say it made a device
  EXPECT_EQ((*processes)[4].kind, ProcessKind::NotObserved);
}

TEST_F(LayerFolder, BoundsHoldForEachProcessSoNoneHidesAnothersPeakAndWholeBoundsForTheSum) {
  process("200", 200, 100, true, 3005);
  process("300", 300, 100, true, 10);
  Observation observation = observed_tree(100);
  observation.whole_observed.vkbufspk = 3015;
  auto outcomes = judge(observation, {.each = {bound("vkbufspk <= 64")}, .whole = {bound("vkbufspk == 3015")}});
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_FALSE(outcomes[0].passed);
  EXPECT_EQ(outcomes[0].scope, "pid 200 (prog)");
  EXPECT_EQ(outcomes[0].detail, "vkbufspk = 3005, bound 64");
  EXPECT_EQ(outcomes[0].where, "prog");
  EXPECT_TRUE(outcomes[1].passed);
  EXPECT_EQ(outcomes[2].scope, "whole");
  EXPECT_TRUE(outcomes[2].passed);
  EXPECT_EQ(exit_code(observation, outcomes), 1);
}

// The wire's gauges (a tap between the program and its server) are read with the server's, the
// process beside the program at the wire's far end, and the whole's; never with the program's
// own processes, which may talk to no wire.
TEST_F(LayerFolder, TheWiresGaugesAreJudgedWithTheServerBesideTheProgramAndTheWhole) {
  process("200", 200, 100, true, 4);
  process("300", 300, 1, true, 4018);
  Observation observation = observed_tree(100);
  ASSERT_EQ(observation.processes.size(), 2u);
  observation.processes[1].beside = true;
  observation.wire = NamedGauges{{"wirerespk", 2002}, {"wirecmds", 4045}};
  auto outcomes = judge(observation, {.each = {bound("wirerespk <= 100")}, .whole = {bound("wirecmds > 4000")}});
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].scope, "pid 200 (prog)");
  EXPECT_FALSE(outcomes[0].passed);  // the program's process has no wire gauge: not judged as held
  EXPECT_NE(outcomes[0].detail.find("wirerespk"), std::string::npos) << outcomes[0].detail;
  EXPECT_EQ(outcomes[1].scope, "pid 300 (prog)");
  EXPECT_FALSE(outcomes[1].passed);
  EXPECT_EQ(outcomes[1].detail, "wirerespk = 2002, bound 100");
  EXPECT_TRUE(outcomes[2].passed) << outcomes[2].detail;
  // Recorded as judged: the wire's gauges beside the whole's.
  const report::ObservationRecord record = observation_record(observation, outcomes);
  ASSERT_TRUE(record.wire_gauges);
  EXPECT_EQ(record.wire_gauges->at("wirerespk"), 2002);
}

TEST_F(LayerFolder, TheProgramsOwnFailureWinsAndNoDeviceIsExitThreeOnlyWhenItSucceeded) {
  Observation failed;
  failed.exit_code = 7;
  EXPECT_EQ(exit_code(failed, {}), 7);  // it failed before it made a device
  Observation no_device;
  EXPECT_EQ(exit_code(no_device, {}), 3);
  process("200", 200, 100, true, 1);
  Observation green;
  green.processes = gather(root_, 200)->processes;
  EXPECT_EQ(exit_code(green, {{"vkbufspk <= 1", "pid 200 (prog)", true, ""}}), 0);
  green.exit_code = 255;
  EXPECT_EQ(exit_code(green, {}), 255);
}

// What the layer writes reads back through the same codec; a field missing is named, never read as 0.
TEST_F(LayerFolder, TheLayersRecordsReadBackExactlyAndAMissingFieldIsNamed) {
  TidemarkLayerGauges g{};
  g.buffers = {1, 2, 3};
  g.polls_revealed = 4;
  g.allocations_refused = 5;
  layer::LayerReport report{42, {{1, false, g, "llvmpipe Mesa 25.0.7 (llvmpipe)"}, {2, true, g, ""}}, g, {}};
  auto back = layer::layer_report_from_json(nlohmann::json::parse(layer::to_json(report).dump()));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->pid, 42u);
  ASSERT_EQ(back->devices.size(), 2u);
  EXPECT_TRUE(back->devices[1].destroyed);
  EXPECT_EQ(back->devices[0].driver, "llvmpipe Mesa 25.0.7 (llvmpipe)");  // a driver the layer could not tell: none
  EXPECT_EQ(back->devices[1].driver, "");
  EXPECT_EQ(back->all.buffers.total, 3);
  EXPECT_EQ(back->devices[0].gauges.polls_revealed, 4);
  EXPECT_EQ(back->all.allocations_refused, 5);
  nlohmann::json missing = layer::to_json(report);
  missing["all"]["polls"].erase("busy");
  EXPECT_EQ(layer::layer_report_from_json(missing).error(), "expected 'all.polls.busy', an integer, found none");
  missing = layer::to_json(report);
  missing["devices"][1]["buffers"]["peak"] = "2";
  EXPECT_EQ(layer::layer_report_from_json(missing).error(),
            "expected 'devices[1].buffers.peak', an integer, found \"2\"");
  missing = layer::to_json(report);
  missing["devices"][0]["driver"] = 7;
  EXPECT_EQ(layer::layer_report_from_json(missing).error(), "expected 'devices[0].driver', the driver's name, found 7");

  process("7", 7, 1, true, 3);
  std::ofstream(root_ / "7" / "layer.json") << R"({"pid": 7, "devices": [], "all": {}})";
  auto processes = gather(root_, 7);
  ASSERT_FALSE(processes);
  EXPECT_NE(processes.error().message.find("7/layer.json: expected 'all.buffers.live', an integer, found none"),
            std::string::npos)
      << processes.error().message;
}

// Killed before its buffered events reached the file: its status map still says it made a device.
TEST_F(LayerFolder, AProcessKilledBeforeItsEventsWereWrittenIsStillOneThatMadeADevice) {
  process("9", 9, 1, false, 0);  // its process.json
  std::ofstream(root_ / "9" / "process.json")
      << layer::to_json(layer::ProcessRecord{9, 1, {"prog"}, "/x", true, 0, {}}).dump();
  TidemarkLayerStatus status{};
  status.devices = 1;
  status.live[0].buffers = {30, 30, 30};
  std::ofstream(root_ / "9" / "status", std::ios::binary).write(reinterpret_cast<const char*>(&status), sizeof status);
  std::ofstream(root_ / "9" / "events.bin", std::ios::binary);  // empty: the records were still buffered
  auto gathered = gather(root_, 9);
  ASSERT_TRUE(gathered) << gathered.error().message;
  ASSERT_EQ(gathered->processes.size(), 1u);
  EXPECT_EQ(gathered->processes[0].kind, ProcessKind::Vulkan);
  EXPECT_EQ(gathered->processes[0].observed.vkbufs, 30);
}

// Check that a record the layer did not write (the observed program planted it: not JSON, or
// nested 100 000 deep) is bad input on one line naming the file, its place and who wrote it.
TEST_F(LayerFolder, ARecordThatIsNotJsonIsAnErrorNamingTheFile) {
  fs::create_directories(root_ / "5");
  std::ofstream(root_ / "5" / "process.json") << "{not json";
  auto processes = gather(root_, 5);
  ASSERT_FALSE(processes);
  EXPECT_EQ(processes.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(processes.error().message.rfind("observe: " + (root_ / "5" / "process.json").string() + ":1:3: ", 0), 0u)
      << processes.error().message;
  EXPECT_NE(processes.error().message.find("the observed program wrote or changed this record"), std::string::npos);
  EXPECT_EQ(processes.error().message.find('\n'), std::string::npos);

  std::ofstream(root_ / "5" / "process.json") << std::string(100000, '[') << std::string(100000, ']');
  auto deep = gather(root_, 5);
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, "observe: " + (root_ / "5" / "process.json").string() +
                                      ":1:65: expected a JSON object written by the layer nested at most 64 deep, "
                                      "found deeper: the observed program wrote or changed this record (the Tidemark "
                                      "layer never writes one so)");
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

// Check that a process's events replayed as they land — its file growing by pieces that cut
// records in two — give the counts and the run trace of the same events replayed after the end.
TEST_F(LayerFolder, EventsReplayedAsTheyLandEndWhereAReplayAfterTheEndDoes) {
  std::vector<TidemarkLayerEvent> events = {{TIDEMARK_EVENT_DEVICE, 0, 1, 0}};
  for (uint64_t i = 0; i < 3000; ++i) {
    events.push_back({TIDEMARK_EVENT_ALLOCATED, 1, 0x1000 + i, 4096 * (1 + i % 7)});
    if (i % 3 == 0) events.push_back({TIDEMARK_EVENT_SUBMITTED, 0, 7, 0});
    if (i % 9 == 0) events.push_back({TIDEMARK_EVENT_RETIRED, 0, 7, i / 3 + 1});
    if (i >= 4) events.push_back({TIDEMARK_EVENT_FREED, 1, 0x1000 + i - 4, 4096 * (1 + (i - 4) % 7)});
  }
  const std::string all(reinterpret_cast<const char*>(events.data()), events.size() * sizeof(TidemarkLayerEvent));
  std::ofstream(root_ / "whole.bin", std::ios::binary) << all;
  ProcessReplay after(42);
  ASSERT_TRUE(after.catch_up(root_ / "whole.bin").has_value());
  Process whole;
  ASSERT_TRUE(after.finish(whole, root_ / "whole.pftrace").has_value());

  ProcessReplay live(42);
  {
    std::ofstream growing(root_ / "live.bin", std::ios::binary);
    for (size_t at = 0; at < all.size(); at += 1000) {
      growing << all.substr(at, 1000) << std::flush;  // 1000 bytes: records cut in two
      ASSERT_TRUE(live.catch_up(root_ / "live.bin").has_value());
    }
  }
  ASSERT_TRUE(live.catch_up(root_ / "live.bin").has_value());
  Process landed;
  ASSERT_TRUE(live.finish(landed, root_ / "live.pftrace").has_value());

  EXPECT_EQ(landed.events, static_cast<int64_t>(events.size()));
  EXPECT_EQ(whole.events, landed.events);
  EXPECT_EQ(whole.devices, 1u);
  EXPECT_EQ(landed.devices, 1u);
  EXPECT_EQ(named(whole.kernel), named(landed.kernel));
  const std::string trace = bytes_of(root_ / "whole.pftrace");
  EXPECT_GT(trace.size(), 10'000u);
  EXPECT_EQ(trace, bytes_of(root_ / "live.pftrace"));
}

TEST_F(LayerFolder, TheFollowerReplaysProcessesThatAppearAfterItStartedAndHandsThemOverWhole) {
  LiveReplays follower(root_);
  process("200-a", 200, 1, true, 3);     // its four events
  process("201-b", 201, 200, false, 0);  // not observed (--only): not followed
  Followed followed = follower.stop();
  ProcessReplays& replays = followed.replays;
  ASSERT_EQ(replays.size(), 1u);
  ASSERT_TRUE(replays.contains("200-a"));
  EXPECT_EQ(replays["200-a"]->pid(), 200u);
  Process process;
  ASSERT_TRUE(replays["200-a"]->finish(process, root_ / "a.pftrace").has_value());
  EXPECT_EQ(process.events, 4);
  EXPECT_EQ(process.devices, 1u);
  ASSERT_NE(followed.tree, nullptr);  // the one observed process's memory, in the tree's map too
  EXPECT_EQ(followed.tree->folders(), std::vector<std::string>{"200-a"});
  EXPECT_TRUE(follower.stop().replays.empty());  // handed over once
}

// The tree's map the follower fed goes on in gather() only when its process is still the first
// folder; either way the map is the one a gather after the end makes.
TEST_F(LayerFolder, TheTreeFedWhileTheProgramRanEndsAsTheTreeFedAfterTheEnd) {
  for (const bool first_stays_first : {true, false}) {
    SCOPED_TRACE(first_stays_first ? "the fed process stays first" : "a process sorts before it");
    fs::remove_all(root_);
    fs::create_directories(root_);
    // Memory still held at the end, so the map shows how much of each process's record was fed.
    auto holding = [&](const std::string& folder, uint32_t pid, std::vector<TidemarkLayerEvent> events) {
      process(folder, pid, 1, true, 3);
      std::ofstream(root_ / folder / "events.bin", std::ios::binary | std::ios::trunc)
          .write(reinterpret_cast<const char*>(events.data()),
                 static_cast<std::streamsize>(events.size() * sizeof events[0]));
    };
    holding("300-a", 300,
            {{TIDEMARK_EVENT_DEVICE, 0, 1, 0},
             {TIDEMARK_EVENT_ALLOCATED, 1, 0xa0, 4096},
             {TIDEMARK_EVENT_ALLOCATED, 1, 0xa1, 8192},
             {TIDEMARK_EVENT_FREED, 1, 0xa0, 4096}});
    LiveReplays follower(root_);
    Followed followed = follower.stop();
    ASSERT_NE(followed.tree, nullptr);
    // More of the first process's record, and a second process, after the follower stopped: the
    // second after the first in folder order, or before it.
    std::ofstream(root_ / "300-a" / "events.bin", std::ios::binary | std::ios::app)
        .write(reinterpret_cast<const char*>(
                   std::array<TidemarkLayerEvent, 1>{{{TIDEMARK_EVENT_ALLOCATED, 1, 0xa2, 16384}}}.data()),
               sizeof(TidemarkLayerEvent));
    holding(first_stays_first ? "400-c" : "100-b", first_stays_first ? 400 : 100,
            {{TIDEMARK_EVENT_DEVICE, 0, 1, 0}, {TIDEMARK_EVENT_ALLOCATED, 1, 0xa0, 65536}});
    auto after = gather(root_, 300);
    ASSERT_TRUE(after.has_value());
    auto went_on = gather(root_, 300, std::move(followed));
    ASSERT_TRUE(went_on.has_value());
    EXPECT_NE(after->kernel_map.find("24576"), std::string::npos) << after->kernel_map;  // 8192 + 16384
    EXPECT_EQ(went_on->kernel_map, after->kernel_map);
  }
}

}  // namespace
}  // namespace tidemark::observe
