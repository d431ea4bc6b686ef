// Private to the scenario loader: the schema, from a parsed YAML document to a Scenario.
#pragma once

#include <filesystem>

#include "scenario/scenario.h"
#include "scenario/yaml_reader.h"

namespace tidemark::scenario {

Result<Scenario> read_scenario(const yaml::Source& source, const yaml::Value& root, const std::filesystem::path& file);

}  // namespace tidemark::scenario
