// `tidemark bisect SUBJECT (--builds LIST | --repo DIR --good REV --bad REV --build CMD) [predicate]`:
// the library (bisect/bisect.h) searches the candidates; this prints each candidate as it is
// judged and the result, and maps errors to exit codes (the ends not good and bad: exit 2).
#include <fmt/format.h>

#include "bisect/bisect.h"
#include "bisect/search.h"
#include "cli/commands.h"
#include "layer/link.h"

namespace tidemark::cli {

namespace {

std::string named(const bisect::Candidate& candidate) {
  if (candidate.revision.empty()) return candidate.label;
  return fmt::format("{} {} ({})", candidate.label, candidate.subject, candidate.author);
}

void print_tried(const bisect::BisectDocument& document, const bisect::TriedCandidate& tried) {
  std::string gauges;
  for (const auto& [name, value] : tried.gauges) gauges += fmt::format(" {}={}", name, value);
  fmt::print("bisect: [{}/{}] {:<17} {:<16} {}{}{}\n", tried.position + 1, document.candidates.size(), tried.judgement,
             document.candidates[tried.position].label, tried.why, gauges.empty() ? "" : " |", gauges);
  std::fflush(stdout);
}

}  // namespace

int bisect_command(const BisectArgs& args) {
  auto predicate = bisect::parse_predicate(args.check, args.gauge, args.worse_than, args.verdict, args.digest);
  if (!predicate) return report_error(predicate.error());
  auto lane = parse_lane_option(args.lane);
  if (!lane) return report_error(lane.error());
  bisect::BisectOptions options{
      .subject = args.subject,
      .backend = args.backend,
      .lane = *lane,
      .predicate = *predicate,
      .repeat = args.repeat,
      .report_dir = args.report.empty() ? default_report_dir("bisect") : std::filesystem::path(args.report),
      .layer_dir = layer::layer_dir(),
      .drivers_files = drivers_files(),
      .only = args.only,
      .repo = args.repo,
      .good = args.good,
      .bad = args.bad,
      .build_command = args.build_command,
      .cache = args.cache,
      .reduce = args.reduce,
      .jobs = args.jobs};
  options.builds.assign(args.builds.begin(), args.builds.end());
  auto found = bisect::run_bisect(options, print_tried);
  if (!found) return report_error(found.error());
  const auto& document = *found;
  const auto& first_bad = document.candidates[document.first_bad];
  if (document.undecided.empty()) {
    fmt::print("bisect: first bad: {}\n", named(first_bad));
  } else {
    fmt::print("bisect: first bad: one of {} candidates, never guessed:\n", document.undecided.size() + 1);
    for (size_t position : document.undecided) fmt::print("  {}\n", named(document.candidates[position]));
    fmt::print("  {}\n", named(first_bad));
  }
  fmt::print("bisect: last good: {}\n", named(document.candidates[document.last_good]));
  for (const auto& tried : document.tried)
    if (tried.judgement == "skip" || tried.judgement == "nondeterministic")
      fmt::print("bisect: {} {}: {}\n", tried.judgement, document.candidates[tried.position].label, tried.why);
  fmt::print("bisect: {} candidates, {} judgements (at most {}), {} skipped, {:.1f} s; {}\n",
             document.candidates.size(), document.judgements, document.bound, document.skips, document.seconds,
             std::filesystem::absolute(options.report_dir / "bisect.html").string());
  if (!document.cache.empty()) fmt::print("bisect: builds cached in {}\n", document.cache);
  if (!document.reduced_fixture.empty())
    fmt::print("bisect: reduced: {}\n", document.reduced_fixture);
  else if (!document.reduce_offer.empty())
    fmt::print("bisect: to cut the capture (or --reduce): {}\n", document.reduce_offer);
  return document.undecided.empty() ? kGreen : kRed;
}

}  // namespace tidemark::cli
