#include "core/version.h"

namespace tidemark {

// TIDEMARK_VERSION is defined for this file alone: a new version recompiles one file.
std::string_view tidemark_version() { return TIDEMARK_VERSION; }

}  // namespace tidemark
