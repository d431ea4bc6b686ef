// A recording (`tidemark run --record`) as a test subject: its requests replayed in a lane,
// every reply checked against the recorded one (its one check, `replies`), its digest the
// replayed gauges' and pixels'. The session it replays is the recorded one (backend, knobs,
// target); a run may only swap the mutant, to see the first reply a defect changes.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "runner/pipeline/subject.h"

namespace tidemark::runner {

class RecordingSubject final : public Subject {
 public:
  // Reads the recording's header and hello (the session it replays); bad input names the file.
  static Result<std::unique_ptr<RecordingSubject>> load(const std::filesystem::path& file);
  Result<std::unique_ptr<SubjectRun>> prepare(const RunOptions& options, report::RunRecord& record) const override;

  static constexpr std::string_view kRepliesCheck = "replies";

 private:
  explicit RecordingSubject(SubjectInfo info) : Subject(std::move(info)) {}
};

}  // namespace tidemark::runner
