// Parity inside a summary: every run of one scenario on one backend, with the same knobs and
// mutant, must give one digest, whatever its lane and whichever machine (shard) ran it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace tidemark::report {

// What a result's digest is compared under: its subject (group/name, @backend when not the
// scenario's own), its effective knobs and its mutant.
std::string parity_key(const nlohmann::json& result);
// One row per key, sorted: {"subject", "variant", "same", "cells": [{"test", "lane", "backend",
// "digest", "green"}]}; `same` when every cell has one digest.
nlohmann::json parity_rows(const nlohmann::json& results);

}  // namespace tidemark::report
