#include "check/kernel_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "check/outcome.h"

namespace tidemark::check {

using scenario::CheckKind;

Outcome check_kernel_dump(const scenario::KernelDumpCheck& check, std::string_view dump) {
  std::vector<std::string> problems;
  if (check.text && *check.text != dump) problems.push_back("the text differs");
  for (const auto& line : check.has)
    if (dump.find(line) == std::string::npos) problems.push_back(fmt::format("no '{}'", line));
  for (const auto& line : check.lacks)
    if (dump.find(line) != std::string::npos) problems.push_back(fmt::format("'{}' present", line));
  std::string shown = dump.size() > 300 ? std::string(dump.substr(0, 300)) + "..." : std::string(dump);
  for (auto& c : shown)
    if (c == '\n') c = '|';
  Outcome outcome = outcome_of(CheckKind::KernelDump, "the GpuMem dump", problems.empty(),
                               problems.empty() ? fmt::format("as expected: {}", shown)
                                                : fmt::format("{}; dump: {}", fmt::join(problems, ", "), shown));
  outcome.where = check.where;
  return outcome;
}

Outcome check_kernel_node(const scenario::KernelNodeCheck& check, const std::optional<std::string>& read,
                          size_t index) {
  std::string text = fmt::format("root/{}/{} is {}", check.pid, kernel::to_string(check.type),
                                 check.value ? "\"" + *check.value + "\"" : "absent");
  auto describe = [](const std::optional<std::string>& node) {
    return node ? "\"" + *node + "\"" : std::string("absent");
  };
  Outcome outcome = outcome_of(CheckKind::KernelNode, text, read == check.value,
                               fmt::format("read {}, wanted {}", describe(read), describe(check.value)));
  outcome.id.index = index;
  outcome.where = check.where;
  return outcome;
}

Outcome check_diagnosis(const scenario::DiagnosisCheck& check, const kernel::KernelReport& report, size_t index) {
  std::vector<std::string> wanted;
  for (const auto& [field, text] : check.fields) wanted.push_back(fmt::format("{}={}", field, text));
  std::string text = fmt::format("kmd.{} has {}", check.name, fmt::join(wanted, ", "));
  auto found = std::find_if(report.diagnoses.begin(), report.diagnoses.end(),
                            [&](const auto& named) { return named.name == check.name; });
  Outcome outcome;
  if (found == report.diagnoses.end()) {
    outcome = outcome_of(CheckKind::Diagnosis, text, false, "no diagnosis by that name was made");
  } else {
    std::vector<std::string> differ;
    for (const auto& [field, expected] : check.fields) {
      std::string actual = kernel::diagnosis_field(found->diagnosis, field).value_or("?");
      if (actual != expected) differ.push_back(fmt::format("{} is '{}', expected '{}'", field, actual, expected));
    }
    const kernel::Diagnosis& d = found->diagnosis;
    std::string seen =
        fmt::format("scene {}; head {} tail {} doorbell {} fence {}/{}; at head {}; engine {}; {}", d.scene, d.head,
                    d.tail, d.doorbell, d.fence, d.awaited, d.at_head, d.engine, d.finding);
    outcome = outcome_of(CheckKind::Diagnosis, text, differ.empty(),
                         differ.empty() ? seen : fmt::format("{}; saw {}", fmt::join(differ, "; "), seen));
  }
  outcome.id.index = index;
  outcome.where = check.where;
  return outcome;
}

Outcome check_kgsl_read(const scenario::KgslReadCheck& check, const kernel::KernelReport& report, size_t index) {
  auto shown = [](std::string text) {
    std::string out;
    for (char c : text) out += c == '\n' ? std::string("\\n") : std::string(1, c);
    return "\"" + out + "\"";
  };
  auto found = std::find_if(report.reads.begin(), report.reads.end(),
                            [&](const auto& named) { return named.name == check.name; });
  std::string text = fmt::format("kgsl.{} reads {}", check.name, shown(check.text));
  Outcome outcome = found == report.reads.end()
                        ? outcome_of(CheckKind::KgslRead, text, false, "no read by that name was made")
                        : outcome_of(CheckKind::KgslRead, text, found->text == check.text,
                                     fmt::format("read {}", shown(found->text)));
  outcome.id.index = index;
  outcome.where = check.where;
  return outcome;
}

}  // namespace tidemark::check
