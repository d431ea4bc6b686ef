// A capture fixture as a test subject (runner/pipeline/subject.h): its replayer run under `tidemark
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
#include "runner/pipeline/subject.h"

namespace tidemark::capture {

// "Capture.<Group>.<name>": the test name a capture fixture's run has.
std::string test_name(const CaptureFixture& fixture);

class CaptureSubject final : public runner::Subject {
 public:
  explicit CaptureSubject(CaptureFixture fixture);
  const CaptureFixture& fixture() const { return fixture_; }
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
