// `tidemark doctor [--backend B]...`: the library (doctor/doctor.h) examines the machine; this
// prints one line per finding, with the package to install for what is missing.
#include <fmt/format.h>

#include "cli/commands.h"
#include "doctor/doctor.h"
#include "session/builtin_backends.h"

namespace tidemark::cli {

int doctor_command(const std::vector<std::string>& backends) {
  auto examined = doctor::examine(backends, session::builtin_backends());
  if (!examined) return report_error(examined.error());
  for (const auto& finding : examined->findings) fmt::print("{}\n", doctor::describe(finding));
  if (examined->lacks_what_is_needed()) {
    fmt::print("doctor: a selected backend lacks what is MISSING above\n");
    return kEnvironment;
  }
  return kGreen;
}

}  // namespace tidemark::cli
