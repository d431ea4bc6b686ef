// junit.xml: the summary as the JUnit XML that CI engines (GitLab's test report, Jenkins,
// Bazel's test.xml readers) show. One <testsuite> per series; a red check is a <failure>, a
// run that could not complete an <error>; an expected failure passes and says so; a run worse
// than its baseline is a <failure type="worse-than-baseline">; a subject that did not run (skipped
// by a pattern or an expectations line, or not run after --max-fails) is <skipped>. A flaky run is
// a <failure type="flaky"> naming every try, a nondeterministic one a <failure
// type="nondeterministic">.
#include <fmt/format.h>
#include <pugixml.hpp>

#include <map>
#include <sstream>

#include "report/baseline.h"
#include "report/summary.h"

namespace tidemark::report {

namespace {

// "Magma.Monolith.Reclaim.name@backend" -> ("Magma.Monolith.Reclaim", "name@backend").
std::pair<std::string, std::string> class_and_name(const std::string& test) {
  size_t dot = std::string::npos;
  for (int k = 0, from = 0; k < 3; ++k, from = static_cast<int>(dot) + 1) {
    dot = test.find('.', from);
    if (dot == std::string::npos) return {"tidemark", test};
  }
  return {test.substr(0, dot), test.substr(dot + 1)};
}

struct Counts {
  size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
};

void set_counts(pugi::xml_node node, const Counts& counts) {
  node.append_attribute("tests") = static_cast<unsigned long long>(counts.tests);
  node.append_attribute("failures") = static_cast<unsigned long long>(counts.failures);
  node.append_attribute("errors") = static_cast<unsigned long long>(counts.errors);
  node.append_attribute("skipped") = static_cast<unsigned long long>(counts.skipped);
  node.append_attribute("time") = fmt::format("{:.3f}", counts.seconds).c_str();
}

void add_case(pugi::xml_node suite, const RunRecord& result, Counts& counts) {
  auto [classname, name] = class_and_name(result.test);
  pugi::xml_node test = suite.append_child("testcase");
  test.append_attribute("classname") = classname.c_str();
  test.append_attribute("name") = name.c_str();
  test.append_attribute("time") = fmt::format("{:.3f}", result.seconds).c_str();
  test.append_attribute("file") = result.file.c_str();
  ++counts.tests;
  counts.seconds += result.seconds;
  std::string out = fmt::format("digest {}\n", result.digest);
  if (result.verdict == Verdict::ExpectedRed)
    out += fmt::format("expected failure (expectations.txt): {}\n", result.why);
  // Against a baseline: its own status, a property CI views can filter on, and each move in the output.
  std::string worse;
  if (result.baseline) {
    pugi::xml_node property = test.append_child("properties").append_child("property");
    property.append_attribute("name") = "baseline";
    property.append_attribute("value") = std::string(movement_name(result.baseline->movement)).c_str();
    for (const auto& move : result.baseline->moves) {
      out += fmt::format("{}: {}\n", movement_name(move.movement), describe(move));
      if (move.movement == Movement::Worse) worse += (worse.empty() ? "" : "; ") + describe(move);
    }
  }
  if (!worse.empty()) worse = "worse than baseline: " + worse;
  for (size_t k = 0; k < result.attempts.size(); ++k)
    out += fmt::format("try {}: {} digest {}\n", k + 1, verdict_name(result.attempts[k].verdict),
                       result.attempts[k].digest);
  // A crash, a lost device, a timeout, a flake and a nondeterministic run are failures of their own
  // types: CI views tell them from a red check.
  auto stopped_failure = [&](const char* type, const std::string& detail) {
    ++counts.failures;
    pugi::xml_node failure = test.append_child("failure");
    failure.append_attribute("type") = type;
    failure.append_attribute("message") = result.why.c_str();
    failure.append_child(pugi::node_pcdata).set_value((result.why + "\n" + detail).c_str());
  };
  if (not_ran(result.verdict)) {  // JUnit's own skipped: CI views count it apart from a pass
    ++counts.skipped;
    test.append_child("skipped").append_attribute("message") = result.why.c_str();
  } else if (result.verdict == Verdict::Flaky || result.verdict == Verdict::Nondeterministic) {
    stopped_failure(std::string(verdict_name(result.verdict)).c_str(), "");
  } else if (result.verdict == Verdict::Crash) {
    stopped_failure("crash", !result.crash ? ""
                                           : fmt::format("process: {} (pid {}); ended: {}\n",
                                                         crashed_process_name(result.crash->process), result.crash->pid,
                                                         result.crash->ended));
  } else if (result.verdict == Verdict::DeviceLost) {
    stopped_failure(
        "device-lost",
        !result.device_lost
            ? ""
            : fmt::format("call: {} (submit or wait {}); calls answered VK_ERROR_DEVICE_LOST: {}\n",
                          result.device_lost->call, result.device_lost->submit_or_wait, result.device_lost->answers));
  } else if (result.verdict == Verdict::Timeout) {
    stopped_failure("timeout", !result.timeout
                                   ? ""
                                   : fmt::format("limit: {} ({} s); killed after {:.1f} s\n",
                                                 time_limit_name(result.timeout->limit), result.timeout->limit_seconds,
                                                 result.timeout->after_seconds));
  } else if (result.verdict == Verdict::CouldNotRun || result.verdict == Verdict::NotJudged) {
    ++counts.errors;
    pugi::xml_node error = test.append_child("error");
    error.append_attribute("type") = result.verdict == Verdict::NotJudged ? "not-judged" : "error";
    error.append_attribute("message") = result.why.c_str();
  } else if (!passes(result.verdict)) {
    ++counts.failures;
    std::string message, body;
    for (const auto& check : result.checks) {
      if (check.passed) continue;
      std::string line = fmt::format("{} `{}`: {}", check.id, check.check, check.detail);
      if (message.empty()) message = line;
      body += line + (check.where.empty() ? "" : " (at " + check.where + ")") + "\n";
    }
    if (result.verdict == Verdict::UnexpectedPass) {
      message = "unexpected pass: " + result.why;
      body += message + "\n";
    }
    if (!worse.empty()) body += worse + "\n";
    pugi::xml_node failure = test.append_child("failure");
    failure.append_attribute("type") = "check";
    failure.append_attribute("message") = message.c_str();
    failure.append_child(pugi::node_pcdata).set_value(body.c_str());
  } else if (const std::string changed = digest_change(result); !changed.empty()) {
    ++counts.failures;  // every check as it should be, and a digest other than the committed one
    pugi::xml_node failure = test.append_child("failure");
    failure.append_attribute("type") = "digest-changed";
    failure.append_attribute("message") = changed.c_str();
    failure.append_child(pugi::node_pcdata).set_value((changed + "\n").c_str());
  } else if (!worse.empty()) {  // every check as it should be, and a gauge worse than yesterday's
    ++counts.failures;
    pugi::xml_node failure = test.append_child("failure");
    failure.append_attribute("type") = "worse-than-baseline";
    failure.append_attribute("message") = worse.c_str();
    failure.append_child(pugi::node_pcdata).set_value((worse + "\n").c_str());
  }
  test.append_child("system-out").append_child(pugi::node_pcdata).set_value(out.c_str());
}

}  // namespace

std::string junit_xml(const Summary& summary) {
  pugi::xml_document document;
  pugi::xml_node root = document.append_child("testsuites");
  root.append_attribute("name") = "tidemark";
  std::map<std::string, std::vector<const RunRecord*>> by_series;
  for (const auto& result : summary.results) by_series[result.series].push_back(&result);
  Counts all;
  for (const auto& [series, results] : by_series) {
    pugi::xml_node suite = root.append_child("testsuite");
    suite.append_attribute("name") = series.c_str();
    Counts counts;
    for (const RunRecord* result : results) add_case(suite, *result, counts);
    // pugixml appends attributes in order; the counts go after the name, as readers expect.
    set_counts(suite, counts);
    all.tests += counts.tests, all.failures += counts.failures, all.errors += counts.errors;
    all.skipped += counts.skipped;
    all.seconds += counts.seconds;
  }
  set_counts(root, all);
  std::ostringstream out;
  document.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

}  // namespace tidemark::report
