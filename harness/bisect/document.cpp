#include "bisect/document.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "bisect/search.h"
#include "core/files.h"
#include "report/json_fields.h"
#include "report/plot.h"

namespace tidemark::bisect {

namespace {

constexpr report::DocumentKind kBisectDocument{"tidemark-bisect", 1, "a bisect's result (bisect.json)"};

// The report's look (compare.html's), with a row for each candidate.
constexpr const char* kBisectStyle =
    "body{font:14px system-ui,sans-serif;margin:2em;max-width:1600px}table{border-collapse:collapse;margin:4px 0}"
    "td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}td.gauges{font:12px monospace}"
    "h1.green{color:#176f2c}h1.red{color:#b3261e}.good{background:#e6f4e6}.bad{background:#fbe3e3}"
    ".skip,.nondeterministic{background:#fff6d5}.untried{color:#888}tr.first-bad td{border:2px solid #b3261e}"
    "dt{font-weight:bold;margin-top:4px}.why{color:#555}";

std::string candidate_text(const Candidate& candidate) {
  if (candidate.revision.empty()) return candidate.label;
  return fmt::format("{} {} ({})", candidate.label, candidate.subject, candidate.author);
}

}  // namespace

nlohmann::json to_json(const BisectDocument& document) {
  nlohmann::json candidates = nlohmann::json::array(), tried = nlohmann::json::array();
  for (const auto& candidate : document.candidates)
    candidates.push_back({{"label", candidate.label},
                          {"drivers_file", candidate.drivers_file.string()},
                          {"build", candidate.build},
                          {"revision", candidate.revision},
                          {"subject", candidate.subject},
                          {"author", candidate.author}});
  nlohmann::json undecided = nlohmann::json::array();
  for (size_t position : document.undecided) undecided.push_back({{"position", position}});
  for (const auto& one : document.tried)
    tried.push_back({{"position", one.position},
                     {"judgement", one.judgement},
                     {"why", one.why},
                     {"verdict", one.verdict},
                     {"digests", one.digests},
                     {"gauges", one.gauges},
                     {"report_dir", one.report_dir},
                     {"built_now", one.built_now},
                     {"seconds", one.seconds}});
  return {{"subject", document.subject},
          {"column", document.column},
          {"predicate", document.predicate},
          {"repeat", document.repeat},
          {"source", document.source},
          {"repository", document.repository},
          {"build_command", document.build_command},
          {"cache", document.cache},
          {"candidates", candidates},
          {"tried", tried},
          {"last_good", document.last_good},
          {"first_bad", document.first_bad},
          {"undecided", undecided},
          {"bound", document.bound},
          {"judgements", document.judgements},
          {"skips", document.skips},
          {"reduce_offer", document.reduce_offer},
          {"reduced_fixture", document.reduced_fixture},
          {"seconds", document.seconds}};
}

Result<BisectDocument> bisect_from_json(const nlohmann::json& json, const std::string& where) {
  BisectDocument document;
  report::JsonFields fields(json, where);
  document.subject = fields.take<std::string>("subject");
  document.column = fields.take<std::string>("column");
  document.predicate = fields.take<std::string>("predicate");
  document.repeat = fields.take<int64_t>("repeat");
  document.source = fields.take<std::string>("source");
  document.repository = fields.take<std::string>("repository");
  document.build_command = fields.take<std::string>("build_command");
  document.cache = fields.take<std::string>("cache");
  fields.objects("candidates", [&](report::JsonFields& one) {
    Candidate candidate;
    candidate.label = one.take<std::string>("label");
    candidate.drivers_file = one.take<std::string>("drivers_file");
    candidate.build = one.take<std::string>("build");
    candidate.revision = one.take<std::string>("revision");
    candidate.subject = one.take<std::string>("subject");
    candidate.author = one.take<std::string>("author");
    document.candidates.push_back(std::move(candidate));
  });
  const uint64_t last = document.candidates.empty() ? 0 : document.candidates.size() - 1;
  fields.objects("tried", [&](report::JsonFields& one) {
    TriedCandidate tried;
    tried.position = one.take_bounded("position", 0, last);
    tried.judgement = one.take<std::string>("judgement");
    if (!judgement_from_name(tried.judgement))
      one.refuse("judgement", "good, bad, skip or nondeterministic", tried.judgement);
    tried.why = one.take<std::string>("why");
    tried.verdict = one.take<std::string>("verdict");
    tried.digests = one.take<std::vector<std::string>>("digests");
    tried.gauges = one.take<std::map<std::string, int64_t>>("gauges");
    tried.report_dir = one.take<std::string>("report_dir");
    tried.built_now = one.take<bool>("built_now");
    tried.seconds = one.take<double>("seconds");
    document.tried.push_back(std::move(tried));
  });
  document.last_good = fields.take_bounded("last_good", 0, last);
  document.first_bad = fields.take_bounded("first_bad", 0, last);
  fields.objects("undecided",
                 [&](report::JsonFields& one) { document.undecided.push_back(one.take_bounded("position", 0, last)); });
  document.bound = fields.take<uint64_t>("bound");
  document.judgements = fields.take<uint64_t>("judgements");
  document.skips = fields.take<uint64_t>("skips");
  document.reduce_offer = fields.take<std::string>("reduce_offer");
  document.reduced_fixture = fields.take<std::string>("reduced_fixture");
  document.seconds = fields.take<double>("seconds");
  TIDEMARK_CHECK(fields.finish());
  return document;
}

Result<BisectDocument> read_bisect(const std::filesystem::path& file) {
  TIDEMARK_TRY(json, report::read_document(file, kBisectDocument));
  return bisect_from_json(json, file.string());
}

std::string bisect_html(const BisectDocument& document) {
  using report::html_escape;
  const Candidate& first_bad = document.candidates.at(document.first_bad);
  const Candidate& last_good = document.candidates.at(document.last_good);
  const std::string headline = document.undecided.empty() ? fmt::format("First bad: {}", candidate_text(first_bad))
                                                          : fmt::format("First bad: one of {} candidates up to {}",
                                                                        document.undecided.size() + 1, first_bad.label);
  std::string html = fmt::format(
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tidemark bisect: {}</title>"
      "<style>{}</style></head><body>\n<header><h1 id=\"verdict\" class=\"red\">{}</h1>"
      "<p id=\"last-good\">Last good: {}</p><p id=\"counts\">{} on {}, bad when {}, each judged {} time(s): "
      "{} candidates, {} judgements (bound {}), {} skipped, {:.1f} s</p></header>\n",
      html_escape(first_bad.label), kBisectStyle, html_escape(headline), html_escape(candidate_text(last_good)),
      html_escape(document.subject), html_escape(document.column), html_escape(document.predicate), document.repeat,
      document.candidates.size(), document.judgements, document.bound, document.skips, document.seconds);
  if (document.source == "git")
    html +=
        fmt::format("<p id=\"source\">{} built by <code>{}</code>, cached in {}</p>\n",
                    html_escape(document.repository), html_escape(document.build_command), html_escape(document.cache));
  if (!document.reduce_offer.empty())
    html += fmt::format("<p id=\"reduce\">{}: <code>{}</code></p>\n",
                        document.reduced_fixture.empty() ? "Cut the capture to what tells the two builds apart"
                                                         : "Reduced to " + html_escape(document.reduced_fixture),
                        html_escape(document.reduce_offer));
  html +=
      "<section id=\"legend\"><h2>Reading the table</h2><dl><dt class=\"good\">good</dt><dd>no run of it was bad"
      "</dd><dt class=\"bad\">bad</dt><dd>its runs were bad, as the predicate says</dd><dt class=\"skip\">skip</dt>"
      "<dd>it did not build, or it was not the driver it names (its identity), or its runs could not start</dd>"
      "<dt class=\"nondeterministic\">nondeterministic</dt><dd>its repeats gave more than one digest: never guessed"
      "</dd></dl></section>\n<section id=\"candidates\"><h2>Candidates, oldest first</h2><table><tr><th>#</th>"
      "<th>candidate</th><th>judged</th><th>judgement</th><th>verdict</th><th>key gauges</th><th>why</th></tr>\n";
  for (size_t position = 0; position < document.candidates.size(); ++position) {
    const Candidate& candidate = document.candidates[position];
    const TriedCandidate* tried = nullptr;
    size_t order = 0;
    for (size_t k = 0; k < document.tried.size(); ++k)
      if (document.tried[k].position == position) tried = &document.tried[k], order = k + 1;
    const std::string row_class = position == document.first_bad ? " first-bad" : "";
    if (!tried) {
      html += fmt::format(
          "<tr class=\"candidate untried{}\"><td>{}</td><td>{}</td><td></td><td>not judged</td>"
          "<td></td><td></td><td></td></tr>\n",
          row_class, position, html_escape(candidate_text(candidate)));
      continue;
    }
    std::string gauges;
    for (const auto& [name, value] : tried->gauges) gauges += fmt::format("{}={}<br>", html_escape(name), value);
    html += fmt::format(
        "<tr class=\"candidate {0}{1}\" data-judgement=\"{0}\"><td>{2}</td><td>{3}</td><td>{4}</td><td>{0}</td>"
        "<td>{5}</td><td class=\"gauges\">{6}</td><td class=\"why\">{7}</td></tr>\n",
        html_escape(tried->judgement), row_class, position, html_escape(candidate_text(candidate)), order,
        html_escape(tried->verdict), gauges, html_escape(tried->why));
  }
  return html + "</table></section>\n</body></html>\n";
}

Status write_bisect(const std::filesystem::path& dir, const BisectDocument& document) {
  FileBatch files;
  files.add(dir / "bisect.json", report::with_kind(to_json(document), kBisectDocument).dump(2) + "\n");
  files.add(dir / "bisect.html", bisect_html(document));
  return files.commit();
}

}  // namespace tidemark::bisect
