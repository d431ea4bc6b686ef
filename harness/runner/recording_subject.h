// A recording (`tidemark run --record`) as a test subject: its requests replayed in a lane,
// every reply checked against the recorded one (its one check, `replies`), its digest the
// replayed gauges' and pixels'. The session it replays is the recorded one (backend, knobs,
// target); a run may only swap the mutant, to see the first reply a defect changes.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "runner/subject.h"

namespace tidemark::runner {

class RecordingSubject final : public Subject {
 public:
  // Reads the recording's header and hello (the session it replays); bad input names the file.
  static Result<std::unique_ptr<RecordingSubject>> load(const std::filesystem::path& file);

  std::string id() const override { return "recordings/" + name_; }
  std::string_view kind() const override { return "recording"; }
  std::string group() const override { return "recordings"; }
  const std::filesystem::path& file() const override { return file_; }
  Result<std::string> content_hash() const override;
  bool has_lanes() const override { return true; }
  bool takes_builds() const override { return false; }
  std::vector<std::string> backends() const override { return {backend_}; }
  std::string test_name(Lane lane, const std::string& backend) const override;
  std::vector<std::string> check_ids() const override { return {std::string(kRepliesCheck)}; }
  // None of its own: a recording proves nothing red-once until a scenario's control is replayed.
  std::vector<SubjectControl> controls() const override { return {}; }
  std::vector<std::string> test_labels(Lane lane) const override;
  std::string red_once_test_name() const override { return "RedOnce.Replay." + name_; }
  std::vector<std::string> red_once_labels() const override { return {"red-once", "replay"}; }
  Result<std::unique_ptr<SubjectRun>> prepare(const RunOptions& options, report::RunRecord& record) const override;

  static constexpr std::string_view kRepliesCheck = "replies";

 private:
  RecordingSubject(std::filesystem::path file, std::string name, std::string backend)
      : file_(std::move(file)), name_(std::move(name)), backend_(std::move(backend)) {}
  std::filesystem::path file_;
  std::string name_;     // the file's stem
  std::string backend_;  // the recorded session's
};

}  // namespace tidemark::runner
