#include "core/gauges.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace tidemark {
namespace {

// Check that named() and from_named() follow the catalogue, both ways.
TEST(Gauges, NamedValuesFollowTheCatalogue) {
  Gauges gauges;
  int64_t value = 1;
  for (const auto& spec : kGauges) gauges.*spec.field = value++;
  auto pairs = named(gauges);
  ASSERT_EQ(pairs.size(), kGauges.size());
  for (size_t i = 0; i < kGauges.size(); ++i) {
    EXPECT_EQ(pairs[i].first, kGauges[i].name);
    EXPECT_EQ(pairs[i].second, static_cast<int64_t>(i + 1));
  }
  Gauges back = from_named({pairs.begin(), pairs.end()});
  for (const auto& spec : kGauges) EXPECT_EQ(back.*spec.field, gauges.*spec.field) << spec.name;
  EXPECT_EQ(from_named({}).wlivepk, 0);
}

// Check that every field of Gauges is in the catalogue exactly once, and peaks end in pk.
TEST(Gauges, TheCatalogueCoversEveryFieldOnce) {
  Gauges probe;
  std::set<const int64_t*> fields;  // member pointers have no order: compare addresses
  std::set<std::string_view> names;
  for (const auto& spec : kGauges) {
    fields.insert(&(probe.*spec.field));
    names.insert(spec.name);
    EXPECT_EQ(spec.peak, spec.name.ends_with("pk")) << spec.name;
    EXPECT_EQ(find_gauge(spec.name), &spec);
  }
  EXPECT_EQ(fields.size(), kGauges.size());
  EXPECT_EQ(names.size(), kGauges.size());
  EXPECT_EQ(sizeof(Gauges), kGauges.size() * sizeof(int64_t)) << "a Gauges field is missing from kGauges";
  EXPECT_EQ(find_gauge("wbuf"), nullptr);
}

// Check that every field of KernelGauges is in the kernel catalogue exactly once, with a unique
// name, and that both halves have gauges (host/model_host_test.cpp checks who fills them).
TEST(Gauges, TheKernelCatalogueCoversEveryFieldOnce) {
  KernelGauges probe;
  std::set<const int64_t*> fields;
  std::set<std::string_view> names;
  size_t memory = 0;
  for (const auto& spec : kKernelGauges) {
    fields.insert(&(probe.*spec.field));
    names.insert(spec.name);
    EXPECT_TRUE(is_kernel_gauge(spec.name)) << spec.name;
    EXPECT_EQ(find_gauge(spec.name), nullptr) << spec.name << " is a backend gauge too";
    if (spec.half == KernelHalf::Memory) ++memory;
  }
  EXPECT_EQ(fields.size(), kKernelGauges.size());
  EXPECT_EQ(names.size(), kKernelGauges.size());
  EXPECT_EQ(sizeof(KernelGauges), kKernelGauges.size() * sizeof(int64_t))
      << "a KernelGauges field is missing from kKernelGauges";
  EXPECT_GT(memory, 0u);
  EXPECT_LT(memory, kKernelGauges.size());
  EXPECT_FALSE(is_kernel_gauge("wbufs"));
}

// Check that the gauge table in docs/gauges.md is the catalogue, row for row.
TEST(Gauges, TheScenarioReadmeTableIsTheCatalogue) {
  std::ifstream page(TIDEMARK_GAUGES_PAGE);
  ASSERT_TRUE(page) << TIDEMARK_GAUGES_PAGE;
  static const std::regex kRow(R"(^\| `([a-z]+)` \| (yes|no) \| (device|reclaim-model) \| (.+) \|$)");
  std::vector<std::string> rows;
  bool in_table = false;
  for (std::string line; std::getline(page, line);) {
    if (line == "| gauge | peak | kind | meaning |") in_table = true;
    if (in_table && line.empty()) break;
    std::smatch match;
    if (in_table && std::regex_match(line, match, kRow)) rows.push_back(line);
  }
  std::vector<std::string> expected;
  for (const auto& spec : kGauges)
    expected.push_back("| `" + std::string(spec.name) + "` | " + (spec.peak ? "yes" : "no") + " | " +
                       std::string(kGaugeKindNames[static_cast<size_t>(spec.kind)]) + " | " +
                       std::string(spec.meaning) + " |");
  EXPECT_EQ(rows, expected);
}

// Check that docs/gauges.md's kernel gauge tables (the memory half, then the driver's) name every
// kernel gauge exactly once and nothing else: a gauge added to the catalogue needs its row.
TEST(Gauges, TheReadmeKernelTablesNameEveryKernelGaugeOnce) {
  std::ifstream page(TIDEMARK_GAUGES_PAGE);
  ASSERT_TRUE(page) << TIDEMARK_GAUGES_PAGE;
  static const std::regex kName("`([a-z]+)`");
  std::map<std::string, int> named;
  bool in_table = false;
  for (std::string line; std::getline(page, line);) {
    if (line == "| gauge | meaning |") in_table = true;
    if (in_table && line.empty()) in_table = false;
    if (!in_table || line.rfind("| `", 0) != 0) continue;
    std::string names = line.substr(0, line.find(" | "));
    for (std::sregex_iterator it(names.begin(), names.end(), kName), end; it != end; ++it) ++named[(*it)[1]];
  }
  for (const auto& spec : kKernelGauges)
    EXPECT_EQ(named[std::string(spec.name)], 1) << spec.name << " is not named once in the kernel gauge tables";
  for (const auto& [name, count] : named)
    EXPECT_TRUE(is_kernel_gauge(name)) << "docs/gauges.md's kernel tables name '" << name << "', not a kernel gauge";
}

// Check that docs/gauges.md's observed gauge table is the catalogue, row for row, and that every
// ObservedGauges field is in it once.
TEST(Gauges, TheReadmeObservedTableIsTheObservedCatalogue) {
  ObservedGauges probe;
  std::set<const int64_t*> fields;
  for (const auto& spec : kObservedGauges) {
    fields.insert(&(probe.*spec.field));
    EXPECT_TRUE(is_observed_gauge(spec.name));
    EXPECT_FALSE(is_kernel_gauge(spec.name) || find_gauge(spec.name)) << spec.name << " is in two catalogues";
  }
  EXPECT_EQ(fields.size(), kObservedGauges.size());
  EXPECT_EQ(sizeof(ObservedGauges), kObservedGauges.size() * sizeof(int64_t));
  std::ifstream page(TIDEMARK_GAUGES_PAGE);
  ASSERT_TRUE(page) << TIDEMARK_GAUGES_PAGE;
  std::vector<std::string> rows;
  bool in_table = false;
  for (std::string line; std::getline(page, line);) {
    if (line == "| observed gauge | meaning |") in_table = true;
    if (in_table && line.empty()) break;
    if (in_table && line.rfind("| `", 0) == 0) rows.push_back(line);
  }
  std::vector<std::string> expected;
  for (const auto& spec : kObservedGauges) expected.push_back(fmt::format("| `{}` | {} |", spec.name, spec.meaning));
  EXPECT_EQ(rows, expected);
}

}  // namespace
}  // namespace tidemark
