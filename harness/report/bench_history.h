// The bench's history: one night's bench.json results a line (history.jsonl), and its plot
// (bench-history.html: a panel per stream and lane, the harness's ns per call night by night).
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace tidemark::report {

// The nights so far (no file: none); a line that is not one night's results is bad input at its line.
Result<std::vector<nlohmann::json>> load_bench_history(const std::filesystem::path& history);
// Appends tonight to the history and writes its plot as report_dir/bench-history.html.
Status record_bench_history(const std::filesystem::path& history, std::vector<nlohmann::json> nights,
                            const nlohmann::json& tonight, const std::filesystem::path& report_dir);

}  // namespace tidemark::report
