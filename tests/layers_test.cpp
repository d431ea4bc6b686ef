// The folders of harness/ stand in floors: a folder includes only folders below it, so the include
// graph between folders has no cycle (a cycle is an arrow running back up). Tests, test helpers
// and fuzz targets are left out: they may reach across. The test prints the floors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Graph = std::map<std::string, std::set<std::string>>;

const fs::path kHarness = fs::path(TIDEMARK_SOURCE_DIR) / "harness";

bool is_production(const fs::path& relative) {
  const std::string text = relative.generic_string();
  return !text.ends_with("_test.cpp") && !text.contains("/testing/") && !text.contains("/fuzz/") &&
         !text.contains("testdata/");
}

// The folders of harness/ and what each one's production code includes of the others.
Graph include_graph() {
  static const std::regex kInclude(R"re(^\s*#\s*include\s+"([a-z_0-9/]+)/[^/"]+")re");
  Graph graph;
  for (const auto& entry : fs::recursive_directory_iterator(kHarness)) {
    const auto extension = entry.path().extension();
    if (!entry.is_regular_file() || (extension != ".h" && extension != ".cpp")) continue;
    const fs::path relative = fs::relative(entry.path(), kHarness);
    if (!is_production(relative)) continue;
    const std::string folder = relative.parent_path().generic_string();
    auto& arrows = graph[folder];
    std::ifstream in(entry.path());
    std::smatch match;
    for (std::string line; std::getline(in, line);)
      if (std::regex_search(line, match, kInclude) && match[1] != folder && fs::is_directory(kHarness / match[1].str()))
        arrows.insert(match[1]);
  }
  return graph;
}

// A cycle through the folders, as "a -> b -> a", or nothing.
std::optional<std::string> cycle_in(const Graph& graph) {
  enum class Mark { Unseen, OnPath, Done };
  std::map<std::string, Mark> marks;
  std::vector<std::string> path;
  std::optional<std::string> found;
  auto visit = [&](auto&& self, const std::string& folder) -> void {
    marks[folder] = Mark::OnPath;
    path.push_back(folder);
    for (const auto& next : graph.contains(folder) ? graph.at(folder) : std::set<std::string>{}) {
      if (found) break;
      if (marks[next] == Mark::OnPath) {
        std::string text;
        for (auto at = std::ranges::find(path, next); at != path.end(); ++at) text += *at + " -> ";
        found = text + next;
      } else if (marks[next] == Mark::Unseen) {
        self(self, next);
      }
    }
    path.pop_back();
    marks[folder] = Mark::Done;
  };
  for (const auto& [folder, arrows] : graph)
    if (!found && marks[folder] == Mark::Unseen) visit(visit, folder);
  return found;
}

// Each folder's floor: 0 when it includes no other folder, else one above the highest it includes.
std::map<std::string, int> floors_of(const Graph& graph) {
  std::map<std::string, int> floors;
  auto floor = [&](auto&& self, const std::string& folder) -> int {
    if (auto known = floors.find(folder); known != floors.end()) return known->second;
    int highest = -1;
    for (const auto& next : graph.contains(folder) ? graph.at(folder) : std::set<std::string>{})
      highest = std::max(highest, self(self, next));
    return floors[folder] = highest + 1;
  };
  for (const auto& [folder, arrows] : graph) floor(floor, folder);
  return floors;
}

TEST(Layers, NoFolderOfTheHarnessIncludesOneThatIncludesIt) {
  const Graph graph = include_graph();
  ASSERT_GT(graph.size(), 20u) << "the harness's folders were not found under " << kHarness;
  const auto cycle = cycle_in(graph);
  ASSERT_FALSE(cycle) << "the folders include each other in a cycle: " << *cycle;
  std::map<int, std::string> by_floor;  // printed: the floors a change leaves, for its review
  for (const auto& [folder, floor] : floors_of(graph)) by_floor[floor] += " " + folder;
  for (const auto& [floor, folders] : by_floor) std::printf("floor %d:%s\n", floor, folders.c_str());
}

TEST(Layers, ACycleIsFoundWhereOneIs) {
  const Graph graph{{"core", {}}, {"runner", {"report", "core"}}, {"report", {"runner"}}};
  EXPECT_EQ(cycle_in(graph), "report -> runner -> report");  // from the first folder by name
  EXPECT_EQ(cycle_in({{"core", {}}, {"report", {"core"}}}), std::nullopt);
}

}  // namespace
