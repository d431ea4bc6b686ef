// Inside runner/: what a run's digest is made of.
#pragma once

#include <string>

#include "check/evaluate.h"
#include "core/image.h"

namespace tidemark::runner {

std::string pixel_hash(const Image& image);

// The run's gauges (the backend's, then the kernel model's), pixel hash and trace hash.
std::string run_digest(const check::ReadBack& run);

}  // namespace tidemark::runner
