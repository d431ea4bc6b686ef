#include <fmt/format.h>

#include <set>
#include <span>

#include "core/user_pattern.h"
#include "runner/pipeline/selection.h"

namespace tidemark::runner {

Status check_label_hygiene(const Subjects& subjects) {
  struct Test {
    std::string name;
    std::vector<std::string> labels;
    std::string group;
  };
  std::vector<Test> tests;
  std::set<std::string> selectors;
  for (const auto& subject : subjects) {
    for (Lane lane :
         subject->info().in_lanes ? std::span<const Lane>(kAllLanes) : std::span<const Lane>(kAllLanes, 1)) {
      Test test{test_name(subject->info(), lane, ""), test_labels(subject->info(), lane), subject->info().group};
      selectors.insert(test.labels.begin(), test.labels.end());
      tests.push_back(std::move(test));
    }
  }
  for (const auto& selector : selectors) {
    TIDEMARK_TRY(pattern, UserPattern::compile(selector, "ctest -L", "a label"));  // as ctest -L reads it
    for (const auto& test : tests) {
      if (std::find(test.labels.begin(), test.labels.end(), selector) != test.labels.end()) continue;
      for (const auto& label : test.labels) {
        if (pattern.found_in(label))
          return fail(ErrorKind::BadInput,
                      fmt::format("ctest -L {} would also select {} (label {}): rename group '{}' so that no "
                                  "label contains another",
                                  selector, test.name, label, test.group));
      }
    }
  }
  return {};
}

}  // namespace tidemark::runner
