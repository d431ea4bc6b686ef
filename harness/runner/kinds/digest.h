// Inside runner/: what a run's digest is made of.
#pragma once

#include <string>

#include "check/evaluate.h"
#include "core/image.h"

namespace tidemark::runner {

std::string pixel_hash(const Image& image);

// The digest of what the run read back (core/digest.h's RunDigestInputs): its gauges of
// every source, pixel hash and trace hash.
std::string run_digest(const check::ReadBack& run);

}  // namespace tidemark::runner
