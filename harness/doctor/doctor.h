// `tidemark doctor`: what this machine has for Tidemark, each finding with the Debian package
// that brings what is missing. Every finding is looked at for real: the Vulkan devices the
// loader enumerates, the layer opened where tidemark looks for it, each selected backend started
// on a one-draw scenario and its pixels judged.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/registry.h"

namespace tidemark::doctor {

struct Finding {
  std::string topic;  // "Vulkan devices", "backend gl"
  bool present = false;
  std::string detail;   // what was found, or why it is missing
  std::string remedy;   // "apt-get install mesa-vulkan-drivers" when missing, else empty
  bool needed = false;  // a selected backend cannot run without it
};

// "MISSING backend gl: ... (apt-get install ...)", as doctor prints it.
std::string describe(const Finding& finding);

struct Examination {
  std::vector<Finding> findings;
  // Something a selected backend needs is missing (exit 3).
  bool lacks_what_is_needed() const;
};

// The machine examined for `backends` (each must be in `registry`; empty: every backend in it).
// Bad input only for a backend the registry lacks; anything missing is a finding.
Result<Examination> examine(const std::vector<std::string>& backends, const api::BackendRegistry& registry);

// An examination asked of a Tidemark worker (core/worker.h) started under a driver build, and its
// answer: a capture's check that the build is the build it names (its gl backend reads every
// identity field). One codec each (JSON, strict on reading).
struct ExamineRequest {
  std::vector<std::string> backends;
};
nlohmann::json to_json(const ExamineRequest& request);
Result<ExamineRequest> examine_request_from_json(const nlohmann::json& json);
bool is_examine_request(const nlohmann::json& json);  // of its format, whatever its fields
nlohmann::json to_json(const Examination& examination);
Result<Examination> examination_from_json(const nlohmann::json& json);

}  // namespace tidemark::doctor
