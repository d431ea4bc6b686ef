// In an isolated subject's child: the folder where the servers it starts (a lane's tidemark-server,
// a renderer server) note their layer's calls, read by the parent's bounds, and which of the
// servers' folders there are this run's, for the device a server's layer saw lost.
#pragma once

#include <filesystem>
#include <optional>

#include "report/run_record.h"

namespace tidemark::renderer {

// Before the child's first run: the servers it starts note their layer's calls in `folder`.
void note_servers_activity_in(const std::filesystem::path& folder);
// As each run starts: the servers' folders already there are earlier runs'.
void servers_activity_run_starts();
// The device a layer of a server this run started saw lost, if one did (its last_step left empty);
// none when the servers' activity is not noted in this process.
std::optional<report::DeviceLostRecord> device_lost_by_this_runs_servers();

}  // namespace tidemark::renderer
