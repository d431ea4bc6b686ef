#include "runner/kinds/recording_subject.h"

#include <fmt/format.h>

#include "core/digest.h"
#include "core/files.h"
#include "lanes/replay.h"
#include "session/builtin_backends.h"
#include "wire/codec.h"
#include "wire/messages.h"
#include "wire/recording.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

namespace {

class RecordingRun final : public SubjectRun {
 public:
  RecordingRun(const RecordingSubject& subject, const RunOptions& options)
      : subject_(subject),
        mutant_(options.variant.mutant.name),
        compare_(options.compare_replies),
        lane_(options.column.lane) {
    // The replay is the session: nothing of it is recorded again. In-process lanes open it from
    // the built-in backends unless the caller gave others, as a scenario's run does.
    lane_.record.clear();
    lane_.record_name.clear();
    if (!lane_.backends) lane_.backends = &session::builtin_backends();
  }

  fs::path folder() const override {
    return fs::path(lane_name(lane_.lane)) / subject_.info().group / subject_.info().file.stem();
  }

  Result<std::string> once(const fs::path& dir) override {
    lanes::LaneOptions lane = lane_;
    if (!dir.empty() && lane.server_log.empty()) lane.server_log = (dir / "server.log").string();
    auto replayed = lanes::replay(subject_.info().file, lane, compare_, mutant_);
    // A recording that cannot be read, or a machine without what the lane needs, is not a red.
    if (!replayed && replayed.error().kind != ErrorKind::Fatal) return std::unexpected(replayed.error());
    last_ = std::move(replayed);
    return last_ ? last_->digest : std::string();
  }

  Result<Reading> read(const std::vector<std::string>&, report::RunRecord& record) override {
    if (!last_) return Reading{.stopped = report::Verdict::CouldNotRun, .why = last_.error().message};
    const lanes::ReplayReport& replayed = *last_;
    record.checks.push_back({.id = std::string(RecordingSubject::kRepliesCheck),
                             .kind = "replay",
                             .check = compare_ ? "every reply as recorded" : "the requests sent (replies not compared)",
                             .passed = !replayed.divergence,
                             .detail = replayed.divergence.value_or(
                                 fmt::format("{} records, {} commands", replayed.records, replayed.requests)),
                             .where = subject_.info().file.string(),
                             .artifacts = {}});
    return Reading{};
  }

  Status keep(const fs::path& dir, const report::RunRecord&) override {
    if (!last_) return {};
    return write_file_atomically(dir / "replay.txt",
                                 fmt::format("{} records, {} requests ({} buffer_data), {:.3f} s\n", last_->records,
                                             last_->requests, last_->respecifies, last_->seconds));
  }

 private:
  const RecordingSubject& subject_;
  std::string mutant_;
  bool compare_;
  lanes::LaneOptions lane_;
  Result<lanes::ReplayReport> last_ = fail(ErrorKind::Fatal, "not replayed");
};

}  // namespace

Result<std::unique_ptr<RecordingSubject>> RecordingSubject::load(const fs::path& file) {
  TIDEMARK_TRY(reader, wire::RecordingReader::open(file));
  wire::Record first;
  TIDEMARK_TRY(any, reader.next(first));
  auto hello = any && first.direction == wire::Direction::Request && first.frame.op == wire::Opcode::Hello
                   ? wire::decode<wire::Hello>(first.frame)
                   : Result<wire::Hello>(fail(ErrorKind::BadInput, "no hello"));
  if (!hello)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a recording that starts with the session's hello, "
                                                 "found {}",
                                                 file.string(), hello.error().message));
  const std::string name = file.stem().string();
  // None of its own controls: a recording proves nothing red-once until a scenario's control is replayed.
  return std::unique_ptr<RecordingSubject>(new RecordingSubject({.id = "recordings/" + name,
                                                                 .kind = "recording",
                                                                 .group = "recordings",
                                                                 .file = file,
                                                                 .content = {file},
                                                                 .test_family = "Replay",
                                                                 .test_stem = name,
                                                                 .labels = {"replay"},
                                                                 .in_lanes = true,
                                                                 .starts_builds = false,
                                                                 .backends = {std::move(hello->config.backend)},
                                                                 .other_backends = OtherBackends::Listed,
                                                                 .checks = {{std::string(kRepliesCheck), {}}},
                                                                 .controls = {},
                                                                 .unproven = {},
                                                                 .red_once_test_name = "RedOnce.Replay." + name,
                                                                 .red_once_labels = {"red-once", "replay"},
                                                                 .is_long = false,
                                                                 .time_bounds = {}}));
}

Result<std::unique_ptr<SubjectRun>> RecordingSubject::prepare(const RunOptions& options,
                                                              report::RunRecord& record) const {
  // The replay sends the recorded session: only a mutant can be swapped in.
  const std::string& file = info().file.string();
  const std::string& backend = info().backends.front();
  auto refuse = [&](std::string_view what, const std::string& found) {
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected a recording's run with no {} (it replays the recorded session), found {}",
                            file, what, found));
  };
  if (!options.column.backend.empty() && options.column.backend != backend)
    return refuse("other backend", fmt::format("--backend {} (recorded on {})", options.column.backend, backend));
  if (!options.variant.knobs.empty()) return refuse("knobs", "--knob");
  if (!options.variant.fault.empty()) return refuse("layer fault", options.variant.fault);
  if (!options.variant.cut.empty()) return refuse("cut", options.variant.cut);
  TIDEMARK_CHECK(check_build_is_this_process(*this, options.column.build));
  const std::string suffix = column_suffix(backend, backend, options.column.build);
  record.test = test_name(info(), options.column.lane.lane, backend) + suffix;
  record.subject = info().id + suffix;
  record.file = file;
  record.column = {backend, options.column.build};
  record.mutant = options.variant.mutant.name;
  return std::unique_ptr<SubjectRun>(std::make_unique<RecordingRun>(*this, options));
}

}  // namespace tidemark::runner
