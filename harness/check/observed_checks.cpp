#include "check/observed_checks.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "check/outcome.h"

namespace tidemark::check {

// Each claim names what the layer saw and what the device said of the same thing. Memory is
// compared with everything the device reported (its target too), live and at the peak; a
// backend's dedicated allocations each back one buffer or image; and the kernel's map entry
// for the pid, when the device reports to it, holds the bytes the layer saw.
Outcome check_observed(const scenario::Scenario& scenario, const Gauges& g, const ObservedGauges& o,
                       const std::optional<KernelGauges>& kernel) {
  struct Claim {
    const char* layer;
    int64_t seen;
    const char* device;
    int64_t said;
  };
  std::vector<Claim> claims = {
      {"vkallocs", o.vkallocs, "claimallocs", o.claimallocs},
      {"vkallocspk", o.vkallocspk, "claimallocspk", o.claimallocspk},
      {"vkbytes", o.vkbytes, "claimbytes", o.claimbytes},
      {"vkbytespk", o.vkbytespk, "claimbytespk", o.claimbytespk},
      {"vkbufs + vkimages", o.vkbufs + o.vkimages, "claimallocs", o.claimallocs},
      {"vkdsets", o.vkdsets, "dsets", g.dsets},
      {"vkdsetspk", o.vkdsetspk, "dsetspk", g.dsetspk},
      {"vkdsetsalloc", o.vkdsetsalloc, "dsetsalloc", g.dsetsalloc},
      {"vksubmits", o.vksubmits, "submits", g.submits},
  };
  if (kernel && scenario.kernel.reports) claims.push_back({"vkbytes", o.vkbytes, "kpid", kernel->kpid});
  std::vector<std::string> differ;
  for (const Claim& claim : claims)
    if (claim.seen != claim.said)
      differ.push_back(fmt::format("{} = {} but {} = {}", claim.layer, claim.seen, claim.device, claim.said));
  std::string detail =
      differ.empty()
          ? fmt::format("the layer saw what the device reported: {} allocations ({} bytes, peak {}), {} descriptor sets "
                        "allocated, {} submits",
                        o.vkallocs, o.vkbytes, o.vkbytespk, o.vkdsetsalloc, o.vksubmits)
          : fmt::format("{} of {} claims differ: {}", differ.size(), claims.size(), fmt::join(differ, "; "));
  Outcome outcome = outcome_of(scenario::CheckKind::Observed,
                               "what the device reported is what the layer saw beneath it", differ.empty(), detail);
  outcome.where = *scenario.observed;
  return outcome;
}

}  // namespace tidemark::check
