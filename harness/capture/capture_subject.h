// A capture fixture as a test subject (runner/subject.h): its replayer run under `tidemark
// observe`'s machinery (the Tidemark layer beneath, a model host per process), its gauge bounds
// judged over what the layer and the kernel model read, and the result a run record like any
// other. Lanes do not apply (the replayer is a program of its own, not a session): a record says
// lane "capture". A column's driver build is the replayer's environment; a column of another
// backend than the capture's (gl for an apitrace, vulkan for a GFXR capture) cannot judge it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "capture/capture_fixture.h"
#include "core/error.h"
#include "runner/subject.h"

namespace tidemark::capture {

// "Capture.<Group>.<name>": the test name a capture fixture's run has.
std::string test_name(const CaptureFixture& fixture);

class CaptureSubject final : public runner::Subject {
 public:
  explicit CaptureSubject(CaptureFixture fixture) : fixture_(std::move(fixture)) {}
  const CaptureFixture& fixture() const { return fixture_; }

  std::string id() const override { return fixture_.id(); }
  std::string_view kind() const override { return "capture fixture"; }
  std::string group() const override { return fixture_.group; }
  const std::filesystem::path& file() const override { return fixture_.file; }
  Result<std::string> content_hash() const override;
  bool has_lanes() const override { return false; }
  bool takes_builds() const override { return true; }
  std::vector<std::string> backends() const override { return {backend_of(fixture_)}; }
  std::string test_name(Lane lane, const std::string& backend) const override;
  std::vector<std::string> check_ids() const override;
  std::vector<runner::SubjectControl> controls() const override;
  std::vector<std::string> test_labels(Lane lane) const override;
  std::string red_once_test_name() const override { return "RedOnce." + capture::test_name(fixture_); }
  std::vector<std::string> red_once_labels() const override { return {"red-once", "capture"}; }
  TimeBoundsOverride time_bounds() const override { return fixture_.time_bounds; }
  Result<std::unique_ptr<runner::SubjectRun>> prepare(const runner::RunOptions& options,
                                                      report::RunRecord& record) const override;

 private:
  CaptureFixture fixture_;
};

// The fixture through the pipeline: green when it replayed (exit 0, a Vulkan device under the
// layer) and every check held; red when a check failed; could-not-run when the replay failed;
// timeout when it passed a time limit (its whole tree, its server's included, killed).
// Writes result.json, observed/ (observation.json, the traces) and replay.log in its folder.
Result<report::RunRecord> run_capture(const CaptureFixture& fixture, const runner::RunOptions& options);

}  // namespace tidemark::capture
