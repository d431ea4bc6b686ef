// The backends this build has, by name: the registry the command line, the runner and
// tidemark-server pick from. Adding a backend is its folder and one line in builtin_backends.cpp.
#pragma once

#include "api/registry.h"

namespace tidemark::session {

const api::BackendRegistry& builtin_backends();

}  // namespace tidemark::session
