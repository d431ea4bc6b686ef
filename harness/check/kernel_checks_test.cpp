#include "check/kernel_checks.h"

#include <gtest/gtest.h>

#include "check/outcome_test.h"

namespace tidemark::check {
namespace {

using scenario::CheckKind;

const SourceLocation kernel_yaml{"scenarios/kernel.yaml", 7, 3};

// ---- the GpuMem dump ------------------------------------------------------------

TEST(KernelDump, HasAndLacksAgainstTheTextPass) {
  const scenario::KernelDumpCheck check{.text = {}, .has = {"gpu 0"}, .lacks = {"pid 7"}, .where = kernel_yaml};
  Outcome outcome = check_kernel_dump(check, "gpu 0\n  pid 1000 4096\n");
  EXPECT_TRUE(outcome.passed);
  expect_names(outcome, CheckKind::KernelDump, 0, "the GpuMem dump", kernel_yaml);
  EXPECT_EQ(outcome.detail, "as expected: gpu 0|  pid 1000 4096|");
}

TEST(KernelDump, EveryProblemIsNamed) {
  const scenario::KernelDumpCheck check{
      .text = "gpu 1\n", .has = {"gpu 1"}, .lacks = {"pid 1000"}, .where = kernel_yaml};
  Outcome outcome = check_kernel_dump(check, "gpu 0\npid 1000 4096\n");
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "the text differs, no 'gpu 1', 'pid 1000' present; dump: gpu 0|pid 1000 4096|");
}

TEST(KernelDump, ALongDumpIsShownCutAt300Characters) {
  const scenario::KernelDumpCheck check{.text = "short", .has = {}, .lacks = {}, .where = kernel_yaml};
  Outcome outcome = check_kernel_dump(check, std::string(400, 'x'));
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "the text differs; dump: " + std::string(300, 'x') + "...");
}

// ---- per-type nodes ------------------------------------------------------------

TEST(KernelNode, TheWantedTextPasses) {
  const scenario::KernelNodeCheck check{
      .pid = 1000, .type = kernel::MemoryType::Vulkan, .value = "4096", .where = kernel_yaml};
  Outcome outcome = check_kernel_node(check, std::string("4096"), 2);
  EXPECT_TRUE(outcome.passed);
  expect_names(outcome, CheckKind::KernelNode, 2, "root/1000/VULKAN is \"4096\"", kernel_yaml);
  EXPECT_EQ(outcome.detail, "read \"4096\", wanted \"4096\"");
}

TEST(KernelNode, ANodeThatShouldBeAbsentButIsThereFails) {
  const scenario::KernelNodeCheck check{
      .pid = 7, .type = kernel::MemoryType::GlBuffer, .value = {}, .where = kernel_yaml};
  Outcome outcome = check_kernel_node(check, std::string("12"), 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.text, "root/7/GL_BUFFER is absent");
  EXPECT_EQ(outcome.detail, "read \"12\", wanted absent");
}

TEST(KernelNode, AMissingNodeFailsAWantedValue) {
  const scenario::KernelNodeCheck check{
      .pid = 7, .type = kernel::MemoryType::Shader, .value = "0", .where = kernel_yaml};
  Outcome outcome = check_kernel_node(check, std::nullopt, 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "read absent, wanted \"0\"");
}

// ---- diagnoses -----------------------------------------------------------------

kernel::KernelReport report_with_stall() {
  kernel::Diagnosis d;
  d.scene = "doorbell_lost";
  d.head = 16;
  d.tail = 48;
  d.doorbell = 16;
  d.fence = 3;
  d.awaited = 5;
  d.at_head = "draw";
  d.engine = "asleep";
  d.finding = "the doorbell was lost";
  kernel::KernelReport report;
  report.diagnoses.push_back({"stall", d});
  report.reads.push_back({"gpubusy", "  40  100\n"});
  return report;
}

TEST(Diagnosis, FieldsAsWrittenPassAndTheDetailShowsTheDiagnosis) {
  const scenario::DiagnosisCheck check{
      .name = "stall", .fields = {{"scene", "doorbell_lost"}, {"head", "16"}}, .where = kernel_yaml};
  Outcome outcome = check_diagnosis(check, report_with_stall(), 1);
  EXPECT_TRUE(outcome.passed);
  expect_names(outcome, CheckKind::Diagnosis, 1, "kmd.stall has scene=doorbell_lost, head=16", kernel_yaml);
  EXPECT_EQ(outcome.detail,
            "scene doorbell_lost; head 16 tail 48 doorbell 16 fence 3/5; at head draw; engine asleep; "
            "the doorbell was lost");
}

TEST(Diagnosis, EachDifferingFieldIsNamedBeforeWhatWasSeen) {
  const scenario::DiagnosisCheck check{
      .name = "stall", .fields = {{"scene", "healthy"}, {"engine", "awake"}, {"tail", "48"}}, .where = kernel_yaml};
  Outcome outcome = check_diagnosis(check, report_with_stall(), 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail,
            "scene is 'doorbell_lost', expected 'healthy'; engine is 'asleep', expected 'awake'; saw scene "
            "doorbell_lost; head 16 tail 48 doorbell 16 fence 3/5; at head draw; engine asleep; the doorbell was lost");
}

TEST(Diagnosis, AnUnknownNameFails) {
  const scenario::DiagnosisCheck check{.name = "other", .fields = {{"scene", "healthy"}}, .where = kernel_yaml};
  Outcome outcome = check_diagnosis(check, report_with_stall(), 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "no diagnosis by that name was made");
}

// ---- kgsl reads ----------------------------------------------------------------

Outcome kgsl_read(std::string name, std::string text, size_t index = 0) {
  const scenario::KgslReadCheck check{.name = std::move(name), .text = std::move(text), .where = kernel_yaml};
  return check_kgsl_read(check, report_with_stall(), index);
}

TEST(KgslRead, TheExactTextPassesWithNewlinesShown) {
  Outcome outcome = kgsl_read("gpubusy", "  40  100\n", 3);
  EXPECT_TRUE(outcome.passed);
  expect_names(outcome, CheckKind::KgslRead, 3, "kgsl.gpubusy reads \"  40  100\\n\"", kernel_yaml);
  EXPECT_EQ(outcome.detail, "read \"  40  100\\n\"");
}

TEST(KgslRead, OtherTextOrNoReadFails) {
  Outcome other = kgsl_read("gpubusy", "  40  100");
  EXPECT_FALSE(other.passed);
  EXPECT_EQ(other.detail, "read \"  40  100\\n\"");
  Outcome never = kgsl_read("gpu_load", "0");
  EXPECT_FALSE(never.passed);
  EXPECT_EQ(never.detail, "no read by that name was made");
}

}  // namespace
}  // namespace tidemark::check
