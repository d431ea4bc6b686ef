// The run record's and the summary's codec: what is written is what is read, and a document
// that is not what Tidemark writes is refused with the file and the field named.
#include "report/run_record.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <set>

#include "core/testing/scratch.h"
#include "report/summary.h"

namespace tidemark::report {
namespace {

namespace fs = std::filesystem;

RunRecord full_record() {
  return {.test = "Magma.Spawn.Reclaim.bands",
          .subject = "reclaim/bands",
          .file = "/s/reclaim/bands.yaml",
          .dir = "/r/reclaim/bands",
          .series = "run lane=spawn",
          .mutant = "reclaim.no_watermark",
          .column = {"gl", {}},
          .driver = "mesa-25.0.7: OpenGL ES 3.2 Mesa 25.0.7 on zink",
          .verdict = Verdict::ExpectedRed,
          .why = "ID-7: pending",
          .seconds = 0.25,
          .gauges_used = {"wlivepk", "kmd_live"},
          .gauges = {{"wlivepk", 3}, {"submits", -1}},
          .kernel_gauges = GaugeValues{{"kmd_live", 7}},
          .observed_gauges = std::nullopt,
          .gauge_line = "wlivepk=3",
          .lane = {"spawn", 10, 9, 100, 101, {{"wire_deferred_mb", 4}}},
          .knobs = {{"wire_deferred_mb", 4}},
          .pixel_hash = "p",
          .trace_hash = "t",
          .digest = "d",
          .repeat_digests = {"d", "d"},
          .validation_messages = {"none"},
          .checks = {{.id = "gauge[0]",
                      .kind = "gauge",
                      .check = "wlivepk <= 2",
                      .passed = false,
                      .detail = "wlivepk = 3",
                      .where = "bands.yaml:9:5",
                      .artifacts = {"/r/a.png"}}}};
}

// What reading `json` as a run record says: its error, or "read".
std::string error_reading(const nlohmann::json& json, const std::string& where, const std::string& path) {
  auto read = run_record_from_json(json, where, path);
  return read ? std::string("read") : read.error().message;
}

// A file in this test program's scratch folder.
std::string temp_file(const std::string& name) {
  static const test_support::ScratchDir scratch("run-record");
  return (scratch / name).string();
}

// Check that every verdict has a name of its own that reads back as itself.
TEST(Verdict, EveryVerdictHasItsOwnNameAndLabel) {
  std::set<std::string_view> names, labels;
  for (Verdict verdict : kAllVerdicts) {
    EXPECT_TRUE(names.insert(verdict_name(verdict)).second) << verdict_name(verdict);
    EXPECT_TRUE(labels.insert(verdict_label(verdict)).second) << verdict_label(verdict);
    EXPECT_EQ(verdict_named(verdict_name(verdict)), verdict);
  }
  EXPECT_FALSE(verdict_named("GREEN"));
  EXPECT_TRUE(passes(Verdict::ExpectedRed));
  EXPECT_FALSE(passes(Verdict::UnexpectedPass));
  EXPECT_FALSE(passes(Verdict::CouldNotRun));
  EXPECT_FALSE(passes(Verdict::Skipped));
  EXPECT_TRUE(not_ran(Verdict::NotRun));
  EXPECT_FALSE(not_ran(Verdict::Red));
}

// Check that a record written to result.json reads back equal, field for field.
TEST(RunRecord, WhatIsWrittenIsRead) {
  const std::string file = temp_file("result.json");
  RunRecord record = full_record();
  ASSERT_TRUE(write_run_record(file, record));
  auto read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  RunRecord bare{.test = "t", .subject = "s", .file = "f", .column = {"gl", {}}, .verdict = Verdict::Green};
  ASSERT_TRUE(write_run_record(file, bare));
  read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, bare);
  fs::remove(file);
}

// Check that a crash's record (which process, its pid, signal, end, last step and wire command)
// reads back equal, with and without its optional fields, and that a process Tidemark does not
// name is refused where it is.
TEST(RunRecord, ACrashIsWrittenAndReadWithTheProcessThatTookIt) {
  const std::string file = temp_file("crash.json");
  RunRecord record{.test = "t", .subject = "s", .file = "f", .column = {"vulkan", {}}, .verdict = Verdict::Crash};
  record.why = "Tidemark's subject child (pid 7) killed by signal 11";
  record.crash = CrashRecord{.process = CrashedProcess::Subject,
                             .pid = 7,
                             .signal = 11,
                             .ended = "killed by signal 11 (SIGSEGV, Segmentation fault)",
                             .last_step = "f:3:5: step draw (i=2), backend call 9",
                             .last_wire_command = ""};
  ASSERT_TRUE(write_run_record(file, record));
  auto read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  record.crash = CrashRecord{.process = CrashedProcess::RendererServer,
                             .pid = 8,
                             .signal = std::nullopt,
                             .ended = "exited with status 70",
                             .last_step = "",
                             .last_wire_command = "VCMD_RESOURCE_CREATE2 (command 9 of the connection)"};
  ASSERT_TRUE(write_run_record(file, record));
  read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  nlohmann::json json = to_json(record);
  json["crash"]["process"] = "lane";
  EXPECT_EQ(error_reading(json, "r.json", ""),
            "r.json: crash.process: expected one of subject, renderer-server, lane-server, found \"lane\"");
  fs::remove(file);
}

// Check that a lost device's record (the call, which submit or wait, how many, the step) reads
// back equal, with a crash beside it and without its step.
TEST(RunRecord, ALostDeviceIsWrittenAndReadWithTheCallThatSaidIt) {
  const std::string file = temp_file("lost.json");
  RunRecord record{.test = "t", .subject = "s", .file = "f", .column = {"vulkan", {}}, .verdict = Verdict::DeviceLost};
  record.why = "vkQueueSubmit answered VK_ERROR_DEVICE_LOST at its device's submit or wait 3";
  record.device_lost =
      DeviceLostRecord{.call = "vkQueueSubmit", .submit_or_wait = 3, .answers = 2, .last_step = "f:3:5: step draw"};
  record.crash = CrashRecord{.process = CrashedProcess::LaneServer, .pid = 8, .signal = 11, .ended = "killed"};
  ASSERT_TRUE(write_run_record(file, record));
  auto read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  record.device_lost->last_step.clear();
  record.crash.reset();
  ASSERT_TRUE(write_run_record(file, record));
  read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  fs::remove(file);
}

// Check that the layer's lost-device gauges make a record only when a call was answered so, and
// that it is told with the call's name.
TEST(RunRecord, ALostDeviceIsReadFromTheLayersGauges) {
  EXPECT_FALSE(device_lost_in({{"vklost", 0}, {"vksubmits", 4}}));
  auto lost = device_lost_in({{"vklost", 2}, {"vklostcall", 3}, {"vklostat", 5}});
  ASSERT_TRUE(lost);
  EXPECT_EQ(*lost, (DeviceLostRecord{.call = "vkWaitForFences", .submit_or_wait = 5, .answers = 2, .last_step = ""}));
  EXPECT_EQ(describe(*lost),
            "vkWaitForFences answered VK_ERROR_DEVICE_LOST at its device's submit or wait 5 (2 calls answered so in "
            "all)");
}

// Check that a timeout's record (its limit, seconds, last step, Vulkan call and wire command) reads
// back equal, its words name all of them, and a limit Tidemark does not name is refused where it is.
TEST(RunRecord, ATimeoutIsWrittenAndReadWithTheLimitAndWhatItDidLast) {
  const std::string file = temp_file("timeout.json");
  RunRecord record{.test = "t", .subject = "s", .file = "f", .column = {"vulkan", {}}, .verdict = Verdict::Timeout};
  record.timeout = TimeoutRecord{.limit = TimeLimit::Inactivity,
                                 .limit_seconds = 2,
                                 .after_seconds = 3.31,
                                 .idle_seconds = 2.0,
                                 .last_step = "f:3:5: step draw (i=2), backend call 9",
                                 .last_vulkan_call = "vkQueueSubmit (the layer's call 40)",
                                 .last_wire_command = ""};
  record.why = describe(*record.timeout);
  EXPECT_EQ(record.why,
            "passed its inactivity limit of 2 s (nothing crossed the layer or the wire for 2.0 s) and was killed "
            "after 3.3 s; its last step: f:3:5: step draw (i=2), backend call 9; the last Vulkan call: vkQueueSubmit "
            "(the layer's call 40)");
  ASSERT_TRUE(write_run_record(file, record));
  auto read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  record.timeout->limit = TimeLimit::WallClock;
  record.timeout->last_wire_command = "VCMD_SUBMIT_CMD (command 96 of the connection)";
  ASSERT_TRUE(write_run_record(file, record));
  read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  nlohmann::json json = to_json(record);
  json["timeout"]["limit"] = "cpu";
  EXPECT_EQ(error_reading(json, "r.json", ""),
            "r.json: timeout.limit: expected one of wall-clock, inactivity, found \"cpu\"");
  fs::remove(file);
}

// Check that an inactivity timeout whose calls only asked again says what they asked, and reads
// back equal.
TEST(RunRecord, ATimeoutThatOnlyPolledSaysWhatItPolled) {
  const std::string file = temp_file("polled.json");
  RunRecord record{.test = "t", .subject = "s", .file = "f", .column = {"vulkan", {}}, .verdict = Verdict::Timeout};
  record.timeout = TimeoutRecord{.limit = TimeLimit::Inactivity,
                                 .limit_seconds = 2,
                                 .after_seconds = 2.1,
                                 .idle_seconds = 2.0,
                                 .last_step = "",
                                 .last_vulkan_call = "vkGetFenceStatus (call 90000 on its device)",
                                 .last_wire_command = "",
                                 .asked_again = "polled fence 0x5611, answered VK_NOT_READY"};
  EXPECT_EQ(describe(*record.timeout),
            "passed its inactivity limit of 2 s (it only polled fence 0x5611, answered VK_NOT_READY, for 2.0 s) and "
            "was killed after 2.1 s; the last Vulkan call: vkGetFenceStatus (call 90000 on its device)");
  ASSERT_TRUE(write_run_record(file, record));
  auto read = read_run_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, record);
  fs::remove(file);
}

// Check that a field missing, unknown or of another type, and a verdict Tidemark does not
// write, are errors naming the document and the field's path.
TEST(RunRecord, AFieldMissingUnknownOrMistypedIsNamed) {
  const nlohmann::json good = to_json(full_record());
  auto error_of = [](const nlohmann::json& json) { return error_reading(json, "out/summary.json", "results[2]"); };
  nlohmann::json missing = good;
  missing.erase("digest");
  EXPECT_EQ(error_of(missing), "out/summary.json: expected 'results[2].digest', found none");
  nlohmann::json unknown = good;
  unknown["lane"]["extra"] = 1;
  EXPECT_EQ(error_of(unknown),
            "out/summary.json: results[2].lane.extra: expected none of this version's fields, found an unknown one");
  nlohmann::json mistyped = good;
  mistyped["checks"][0]["passed"] = "no";
  EXPECT_EQ(error_of(mistyped), "out/summary.json: results[2].checks[0].passed: expected true or false, found \"no\"");
  nlohmann::json negative = good;
  negative["lane"]["frames_sent"] = -3;
  EXPECT_EQ(error_of(negative),
            "out/summary.json: results[2].lane.frames_sent: expected an unsigned integer, found -3");
  nlohmann::json old = good;
  old["verdict"] = "GREEN";
  EXPECT_EQ(error_of(old),
            "out/summary.json: results[2].verdict: expected one of green, red, expected-red, unexpected-pass, "
            "could-not-run, not-judged, crash, device-lost, timeout, skipped, not-run, flaky, nondeterministic, found "
            "'GREEN'");
  nlohmann::json before = good;  // a version 2 record: green, no verdict
  before.erase("verdict");
  before["green"] = true;
  EXPECT_EQ(error_of(before), "out/summary.json: expected 'results[2].verdict', found none");
}

// Check that a gauge or integer past int64 is refused where it is: 2^63 wrapped to INT64_MIN and
// a baseline reported "+100%". The ends of the range are read as written.
TEST(RunRecord, AnIntegerOutsideTheGaugeRangeIsRefusedWhereItIs) {
  const nlohmann::json good = to_json(full_record());
  auto error_of = [](const nlohmann::json& json) { return error_reading(json, "base/summary.json", "results[0]"); };
  nlohmann::json gauge = good;
  gauge["gauges"]["devbytespk"] = uint64_t{1} << 63;
  EXPECT_EQ(error_of(gauge),
            "base/summary.json: results[0].gauges.devbytespk: expected an integer from -9223372036854775808 to "
            "9223372036854775807, found 9223372036854775808");
  nlohmann::json pid = good;
  pid["lane"]["server_pid"] = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(error_of(pid).substr(0, 72), "base/summary.json: results[0].lane.server_pid: expected an integer from ");
  nlohmann::json ends = good;
  ends["gauges"]["devbytespk"] = std::numeric_limits<int64_t>::max();
  ends["gauges"]["wlivepk"] = std::numeric_limits<int64_t>::min();
  auto read = run_record_from_json(ends, "base/summary.json", "results[0]");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->gauges.at("devbytespk"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(read->gauges.at("wlivepk"), std::numeric_limits<int64_t>::min());
}

// Check that a result.json of another format or version, or not JSON, is refused by name.
TEST(RunRecord, AnotherDocumentIsRefused) {
  const std::string file = temp_file("other.json");
  std::ofstream(file) << R"({"format": "tidemark-run", "version": 2})";
  auto read = read_run_record(file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, file + ": expected a run record (result.json) of version 3, found version 2");
  std::ofstream(file) << "{\n  \"test\": ,\n}";
  read = read_run_record(file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message.rfind(file + ":2:11: expected a run record (result.json), found ", 0), 0u)
      << read.error().message;
  fs::remove(file);
}

// Check that a summary written is the summary read: origin, records, counts and parity rows.
TEST(Summary, WhatIsWrittenIsRead) {
  const fs::path dir = temp_file("summary");
  fs::remove_all(dir);
  RunRecord red = full_record();
  red.verdict = Verdict::Red;
  red.why.clear();
  red.dir = (fs::absolute(dir) / "reclaim" / "bands").string();
  RunRecord tcp = red;
  tcp.test = "Magma.Tcp.Reclaim.bands";
  tcp.lane.name = "tcp";
  tcp.digest = "other";
  tcp.verdict = Verdict::Green;
  ShardOrigin shard{1, 2, "GitLab", 4, "sel", {"reclaim/bands"}};
  auto written = write_summary(dir, {.command = "run", .series = "run lane=spawn", .shard = shard}, {red, tcp});
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(written->green, 1u);
  EXPECT_EQ(written->red, 1u);
  ASSERT_EQ(written->parity.size(), 1u);
  EXPECT_FALSE(written->parity[0].same);
  EXPECT_EQ(written->results[0].dir, "reclaim/bands");  // relative to the summary's folder
  auto read = read_summary(dir / "summary.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->results, written->results);
  EXPECT_EQ(read->green, 1u);
  EXPECT_EQ(read->origin.series, "run lane=spawn");
  ASSERT_TRUE(read->origin.shard);
  EXPECT_EQ(read->origin.shard->members, shard.members);
  EXPECT_EQ(read->parity.size(), 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tidemark::report
