// The gauges a backend publishes, in report and digest order. Scenarios are checked
// against this list at load time, so a typo is a load error, not a failed run.
#pragma once

#include <array>
#include <string_view>

namespace tidemark {

inline constexpr std::array<std::string_view, 16> kGaugeNames = {
    "wbufs",       "wlive",    "wlivepk",    "wdefn",   "wdefpk",
    "wdefsync",    "wdefmb",   "dsets",      "dsetspk", "dsetsalloc", "devallocs",
    "devallocspk", "devbytes", "devbytespk", "submits", "presents",
};

}  // namespace tidemark
