#include "renderer/servers_activity.h"

#include <stdlib.h>

#include <set>
#include <string>

#include "layer/tidemark_layer.h"
#include "observe/observe.h"

namespace tidemark::renderer {

namespace {

struct ServersActivity {
  std::filesystem::path folder;
  std::set<std::string> earlier;  // the servers' folders there when the current run started
};
ServersActivity& servers_activity() {
  static ServersActivity activity;  // the child's one thread alone reads and writes it
  return activity;
}

}  // namespace

void note_servers_activity_in(const std::filesystem::path& folder) {
  ::setenv(TIDEMARK_LAYER_ACTIVITY_VARIABLE, folder.c_str(), 1);
  servers_activity().folder = folder;
}

void servers_activity_run_starts() {
  ServersActivity& servers = servers_activity();
  servers.earlier.clear();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(servers.folder, ec))
    servers.earlier.insert(entry.path().filename().string());
}

std::optional<report::DeviceLostRecord> device_lost_by_this_runs_servers() {
  const ServersActivity& servers = servers_activity();
  if (servers.folder.empty()) return std::nullopt;
  return observe::noted_lost_device(servers.folder, servers.earlier);
}

}  // namespace tidemark::renderer
