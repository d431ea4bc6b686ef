#include "report/baseline.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <algorithm>
#include <set>

#include "core/gauges.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

// A baseline record stands for a run of the same test (lane, group, name, backend), fault and knobs.
std::string key_of(const RunRecord& record) {
  return record.test + '\n' + record.mutant + '\n' + nlohmann::json(record.knobs).dump();
}

// How much worse than `baseline` a gauge may get, in its own units.
double allowance(const Tolerances& tolerances, const std::string& gauge, int64_t baseline) {
  auto found = tolerances.find(gauge);
  if (found == tolerances.end()) return 0;
  return std::max(static_cast<double>(found->second.absolute),
                  std::abs(static_cast<double>(baseline)) * found->second.percent / 100.0);
}

}  // namespace

Movement judge_gauge(std::string_view gauge, int64_t baseline, int64_t now, const Tolerances& tolerances) {
  if (now == baseline) return Movement::Same;
  const Worse worse = worse_direction(gauge).value_or(Worse::Neither);
  if (worse == Worse::Neither) return Movement::Changed;
  const bool got_worse = worse == Worse::Higher ? now > baseline : now < baseline;
  if (!got_worse) return Movement::Improved;
  // In doubles: a tolerance and a change of gauges near 2^63 must not overflow.
  const double by = std::abs(static_cast<double>(now) - static_cast<double>(baseline));
  return by > allowance(tolerances, std::string(gauge), baseline) ? Movement::Worse : Movement::Same;
}

Status add_tolerance(Tolerances& tolerances, std::string_view text) {
  const size_t equals = text.find('=');
  auto bad = [&](std::string_view expected) {
    return fail(ErrorKind::BadInput, fmt::format("--tolerance: expected {}, found '{}'", expected, text));
  };
  if (equals == std::string_view::npos) return bad("GAUGE=N or GAUGE=P% (devbytespk=1048576, wlivepk=5%)");
  const std::string gauge(text.substr(0, equals));
  std::string_view amount = text.substr(equals + 1);
  if (!worse_direction(gauge)) return bad("a gauge of the catalogues (tidemark backends lists them) before '='");
  if (worse_direction(gauge) == Worse::Neither)
    return bad(fmt::format("a gauge with a worse direction; {} is only ever changed, never worse", gauge));
  if (tolerances.contains(gauge)) return bad(fmt::format("one tolerance per gauge; {} has one already", gauge));
  Tolerance tolerance;
  const bool percent = amount.ends_with('%');
  if (percent) amount.remove_suffix(1);
  const char* end = amount.data() + amount.size();
  if (percent) {
    double value = 0;
    auto [at, ec] = std::from_chars(amount.data(), end, value);
    if (ec != std::errc() || at != end || !(value >= 0) || !std::isfinite(value))
      return bad("a percentage, a number >= 0 before '%'");
    tolerance.percent = value;
  } else {
    auto [at, ec] = std::from_chars(amount.data(), end, tolerance.absolute);
    if (ec != std::errc() || at != end || tolerance.absolute < 0 || amount.empty())
      return bad("a whole number >= 0 (in the gauge's units) or a percentage after '='");
  }
  tolerances.emplace(gauge, tolerance);
  return {};
}

std::string change_text(int64_t before, int64_t now) {
  if (before == 0) return fmt::format("{:+}", now);
  const double percent =
      (static_cast<double>(now) - static_cast<double>(before)) / std::abs(static_cast<double>(before)) * 100.0;
  return std::abs(percent) >= 10 || percent == std::round(percent) ? fmt::format("{:+.0f}%", percent)
                                                                   : fmt::format("{:+.1f}%", percent);
}

std::string describe(const GaugeMove& move) {
  return fmt::format("{} {} vs baseline {} ({})", move.gauge, move.now, move.baseline,
                     change_text(move.baseline, move.now));
}

BaselineJudgement judge(const RunRecord& now, const RunRecord& baseline, const Tolerances& tolerances) {
  BaselineJudgement judged;
  bool improved = false, changed = false, worse = false;
  auto walk = [&](const GaugeValues& values) {
    for (const auto& [gauge, value] : values) {
      const std::optional<int64_t> before = gauge_value(baseline, gauge);
      if (!before) continue;  // a family the baseline's run did not have (the layer, the kernel model)
      const Movement movement = judge_gauge(gauge, *before, value, tolerances);
      if (movement == Movement::Same) continue;
      worse |= movement == Movement::Worse;
      improved |= movement == Movement::Improved;
      changed |= movement == Movement::Changed;
      judged.moves.push_back({gauge, *before, value, movement});
    }
  };
  walk(now.gauges);
  if (now.kernel_gauges) walk(*now.kernel_gauges);
  if (now.observed_gauges) walk(*now.observed_gauges);
  judged.movement = worse      ? Movement::Worse
                    : improved ? Movement::Improved
                    : changed  ? Movement::Changed
                               : Movement::Same;
  return judged;
}

Result<std::optional<Baseline>> load_baseline(const std::string& text, const std::vector<std::string>& tolerances) {
  Tolerances parsed;
  for (const auto& tolerance : tolerances) TIDEMARK_CHECK(add_tolerance(parsed, tolerance));
  if (text.empty()) {
    if (!tolerances.empty()) return fail(ErrorKind::BadInput, "--tolerance: expected --baseline too, found none");
    return std::optional<Baseline>();
  }
  const fs::path path(text);
  std::error_code ec;
  const fs::path file = fs::is_directory(path, ec) ? path / "summary.json" : path;
  if (fs::is_directory(path, ec) && !fs::exists(file, ec))
    return fail(ErrorKind::BadInput, fmt::format("--baseline {}: expected a report folder with its summary.json, "
                                                 "found a folder without one",
                                                 path.string()));
  TIDEMARK_TRY(summary, read_summary(file));
  return std::optional(Baseline{std::move(summary), text, std::move(parsed)});
}

std::vector<std::string> baseline_lines(const std::vector<RunRecord>& records, const BaselineOrigin& held) {
  std::vector<std::string> lines;
  std::map<Movement, size_t> counts;
  for (const auto& record : records) {
    if (!record.baseline) continue;
    const Movement movement = record.baseline->movement;
    ++counts[movement];
    if (movement == Movement::Same) continue;
    if (movement == Movement::New) {
      lines.push_back(fmt::format("NEW   {} (not in the baseline)", record.test));
      continue;
    }
    lines.push_back(
        fmt::format("{:<5} {} against the baseline", movement == Movement::Worse ? "WORSE" : "MOVED", record.test));
    for (const auto& move : record.baseline->moves)
      lines.push_back(fmt::format("      {}: {}", movement_name(move.movement), describe(move)));
  }
  for (const auto& test : held.gone) lines.push_back(fmt::format("GONE  {} (in the baseline, not run now)", test));
  lines.push_back(fmt::format("baseline {}: {} worse, {} improved, {} changed, {} same, {} new, {} gone", held.source,
                              counts[Movement::Worse], counts[Movement::Improved], counts[Movement::Changed],
                              counts[Movement::Same], counts[Movement::New], held.gone.size()));
  return lines;
}

BaselineOrigin hold_to_baseline(std::vector<RunRecord>& records, const Origin& origin, const Baseline& baseline) {
  std::map<std::string, const RunRecord*> before;
  for (const auto& record : baseline.summary.results) before.emplace(key_of(record), &record);
  std::set<std::string> matched;
  for (auto& record : records) {
    if (record.series.empty()) record.series = origin.series;
    auto found = before.find(key_of(record));
    if (found == before.end()) {
      record.baseline = BaselineJudgement{.movement = Movement::New};
      continue;
    }
    matched.insert(found->first);
    record.baseline = judge(record, *found->second, baseline.tolerances);
  }
  // Gone: what the baseline ran in this series (in this shard's scenarios, for a shard) and this run did not.
  auto in_shard = [&](const RunRecord& record) {
    if (!origin.shard) return true;
    const std::string scenario = subject_id(record);
    return std::find(origin.shard->members.begin(), origin.shard->members.end(), scenario) !=
           origin.shard->members.end();
  };
  BaselineOrigin held{.source = baseline.source};
  for (const auto& record : baseline.summary.results)
    if (record.series == origin.series && in_shard(record) && !matched.contains(key_of(record)))
      held.gone.push_back(record.test);
  return held;
}

}  // namespace tidemark::report
