// A fake subject for the pipeline's unit tests: data as a scenario's would be, and one behaviour
// scripted by the test (its nth run red while n <= reds, or whatever `each_run` does first).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runner/pipeline/subject.h"

namespace tidemark::runner::testing {

// A scenario-like subject "group/<name>" in the Magma family and in every lane, one gauge check.
inline SubjectInfo fake_info(const std::string& name) {
  return {.id = "group/" + name,
          .kind = "scenario",
          .group = "group",
          .file = name + ".yaml",
          .test_family = "Magma",
          .test_stem = "Group." + name,
          .labels = {"integration-magma-group"},
          .backends = {"vulkan"},
          .other_backends = OtherBackends::ListedOrStandIn,
          .checks = {{"gauge[0]", "x <= 1"}}};
}

class FakeSubject final : public Subject {
 public:
  // Its runs so far, counted across every preparation (what a cold driver would remember).
  FakeSubject(SubjectInfo info, int reds) : Subject(std::move(info)), reds_(reds) {}
  FakeSubject(const std::string& name, int reds) : FakeSubject(fake_info(name), reds) {}

  Result<std::unique_ptr<SubjectRun>> prepare(const RunOptions& options, report::RunRecord& record) const override {
    ++prepared;
    record.test = test_name(info(), options.column.lane.lane, options.column.backend);
    record.subject = info().id;
    record.column = {"vulkan", {}};
    return std::unique_ptr<SubjectRun>(std::make_unique<Run>(*this));
  }

  mutable int prepared = 0;  // how often the pipeline prepared it
  mutable int runs = 0;      // how often it ran
  // Called at the start of each run, in the process that runs it (a child's, when isolated).
  std::function<void()> each_run;

 private:
  class Run final : public SubjectRun {
   public:
    explicit Run(const FakeSubject& subject) : subject_(subject) {}
    std::filesystem::path folder() const override { return "fake"; }
    Result<std::string> once(const std::filesystem::path&) override {
      if (subject_.each_run) subject_.each_run();
      held_ = ++subject_.runs > subject_.reds_;
      return std::string(held_ ? "d-green" : "d-red");
    }
    Result<Reading> read(const std::vector<std::string>&, report::RunRecord& record) override {
      record.checks = {{.id = "gauge[0]", .kind = "gauge", .check = "x <= 1", .passed = held_}};
      return Reading{};
    }
    Status keep(const std::filesystem::path&, const report::RunRecord&) override { return {}; }

   private:
    const FakeSubject& subject_;
    bool held_ = false;
  };
  int reds_;
};

}  // namespace tidemark::runner::testing
