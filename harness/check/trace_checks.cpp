#include "check/trace_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "check/outcome.h"

namespace tidemark::check {

using scenario::CheckKind;

namespace {

// What a trace check asks for, as its text lists it.
std::string trace_check_text(const scenario::TraceCheck& check) {
  std::vector<std::string> wanted;
  if (check.absent) wanted.push_back("absent");
  if (check.rows) wanted.push_back(fmt::format("{} rows as written", check.rows->size()));
  if (check.count) wanted.push_back(fmt::format("{} rows", *check.count));
  if (check.last) wanted.push_back(fmt::format("last {}", *check.last));
  if (check.unit) wanted.push_back(fmt::format("unit {}", *check.unit));
  if (check.flagged) wanted.push_back(*check.flagged ? "flagged" : "not flagged");
  return fmt::format("trace track '{}': {}", check.track, fmt::join(wanted, ", "));
}

// Where a present track differs from the check, in the order the check lists its parts.
std::vector<std::string> track_problems(const scenario::TraceCheck& check, const tracer::Track& track) {
  std::vector<std::string> problems;
  const auto& rows = track.rows;
  if (check.rows) {
    size_t common = std::min(rows.size(), check.rows->size());
    size_t k_diff = 0;
    while (k_diff < common && rows[k_diff].ts == (*check.rows)[k_diff].ts &&
           rows[k_diff].value == (*check.rows)[k_diff].value)
      ++k_diff;
    auto show = [](uint64_t ts, double value) { return fmt::format("[{}, {}]", ts, value); };
    if (k_diff < common)
      problems.push_back(fmt::format("row {} is {}, expected {}", k_diff, show(rows[k_diff].ts, rows[k_diff].value),
                                     show((*check.rows)[k_diff].ts, (*check.rows)[k_diff].value)));
    else if (rows.size() != check.rows->size())
      problems.push_back(
          fmt::format("{} rows, expected {}; the first {} agree", rows.size(), check.rows->size(), common));
  }
  if (check.count && static_cast<int64_t>(rows.size()) != *check.count)
    problems.push_back(fmt::format("{} rows, expected {}", rows.size(), *check.count));
  if (check.unit && track.unit != *check.unit)
    problems.push_back(fmt::format("unit '{}', expected '{}'", track.unit, *check.unit));
  if (check.flagged && track.unit_disagreement.has_value() != *check.flagged)
    problems.push_back(track.unit_disagreement ? fmt::format("flagged: {}", *track.unit_disagreement)
                                               : std::string("not flagged"));
  if (check.last && (rows.empty() || rows.back().value != *check.last))
    problems.push_back(rows.empty() ? std::string("no rows")
                                    : fmt::format("last value {}, expected {}", rows.back().value, *check.last));
  return problems;
}

}  // namespace

Outcome check_trace(const scenario::TraceCheck& check, const tracer::ImportedTrace& trace, size_t index) {
  const tracer::Track* track = trace.find(check.track);
  std::vector<std::string> problems;
  if (check.absent) {
    if (track) problems.push_back(fmt::format("the track is there, with {} rows", track->rows.size()));
  } else if (!track) {
    std::vector<std::string> labels;
    for (const auto& t : trace.tracks) labels.push_back(t.label());
    problems.push_back(fmt::format("no such track (the trace has: {})", fmt::join(labels, "; ")));
  } else {
    problems = track_problems(check, *track);
  }
  Outcome outcome =
      outcome_of(CheckKind::Trace, trace_check_text(check), problems.empty(),
                 problems.empty() ? (track ? fmt::format("{} rows as expected", track->rows.size()) : "no such track")
                                  : fmt::format("{}", fmt::join(problems, "; ")));
  outcome.id.index = index;
  outcome.where = check.where;
  return outcome;
}

// The pid's GPU Memory track is read at its latest row at or before each point: no two traced
// moments share a nanosecond, so "before" is never ambiguous.
Outcome check_reconcile(const scenario::Scenario& scenario, const Gauges& gauges,
                        const std::optional<KernelGauges>& kernel, const tracer::ImportedTrace& trace,
                        const CounterTracks& tracks) {
  const int64_t target =
      tracks.target_in_device_bytes ? 0 : int64_t{scenario.session.width} * scenario.session.height * 4;
  const api::ModelConfig& model = scenario.session.model;
  const std::string label = fmt::format("GPU Memory (gpu {}, pid {})", model.kernel_gpu, model.kernel_pid);
  const tracer::Track* memory = trace.find(label);
  // A track's latest row at or before `ts` (none: its last row).
  auto value_at = [](const tracer::Track* track, std::optional<uint64_t> ts) -> std::optional<int64_t> {
    if (!track) return std::nullopt;
    auto after = ts ? std::upper_bound(track->rows.begin(), track->rows.end(), *ts,
                                       [](uint64_t t, const tracer::TrackRow& row) { return t < row.ts; })
                    : track->rows.end();
    if (after == track->rows.begin()) return std::nullopt;
    return static_cast<int64_t>(std::prev(after)->value);
  };
  auto traced_at = [&](std::optional<uint64_t> ts) { return value_at(memory, ts); };
  struct Point {
    std::optional<uint64_t> ts;  // none: the end of the run
    int64_t device_bytes, map;
    std::optional<int64_t> traced;
    bool agrees(int64_t target) const { return device_bytes + target == map && traced == map; }
  };
  std::vector<Point> points;
  const tracer::Track* device = trace.find(tracks.device_bytes);
  const tracer::Track* map = trace.find(tracks.map_entry);
  if (device && map)
    for (const tracer::TrackRow& row : device->rows)
      points.push_back({row.ts, static_cast<int64_t>(row.value), value_at(map, row.ts).value_or(0), traced_at(row.ts)});
  points.push_back({std::nullopt, gauges.devbytes, kernel ? kernel->kpid : 0, traced_at(std::nullopt)});
  const size_t sampled = points.size() - 1;

  auto describe = [&](const Point& p) {
    return fmt::format(
        "backend {} (device bytes {}{}), map entry {}, trace '{}' {}", p.device_bytes + target, p.device_bytes,
        tracks.target_in_device_bytes ? std::string(" with the target") : fmt::format(" + target {}", target), p.map,
        label, p.traced ? fmt::format("{}", *p.traced) : std::string("has no rows"));
  };
  auto wrong = std::find_if(points.begin(), points.end(), [&](const Point& p) { return !p.agrees(target); });
  std::string detail;
  if (!device || !map) {
    detail = fmt::format("the trace has no '{}' track to take the sampled points from",
                         device ? tracks.map_entry : tracks.device_bytes);
    wrong = points.begin();
  } else if (wrong == points.end())
    detail = fmt::format("agree at {} sampled points and at the end: {}", sampled, describe(points.back()));
  else if (wrong->ts)
    detail = fmt::format("at {} ns (sampled point {} of {}): {}", *wrong->ts, wrong - points.begin() + 1, sampled,
                         describe(*wrong));
  else
    detail = fmt::format("at the end: {}", describe(*wrong));
  Outcome outcome =
      outcome_of(CheckKind::Reconcile, "the backend, the kernel map and the trace agree on the pid's GPU memory",
                 wrong == points.end(), detail);
  outcome.where = *scenario.expect.reconcile;
  return outcome;
}

}  // namespace tidemark::check
