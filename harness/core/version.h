// Which Tidemark this is: `tidemark --version` prints it, and every document and recording it
// writes names it, so a summary or a recording found later says what made it.
#pragma once

#include <string_view>

namespace tidemark {

// The project's version from CMake ("1.0.0").
std::string_view tidemark_version();

}  // namespace tidemark
