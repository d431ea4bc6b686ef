#include "check/observed_checks.h"

#include <fmt/format.h>

#include <string>
#include <iterator>
#include <vector>

#include "check/outcome.h"

namespace tidemark::check {

// Each claim names what the layer saw and what the device said of the same thing. Memory is
// compared with everything the device reported (its target too), live and at the peak; a
// backend's dedicated allocations each back one buffer or image. What the device told the
// kernel model is reconcile's and kbreaks' to judge: this check is the self-report alone.
Outcome check_observed(const scenario::Scenario& scenario, const Gauges& g, const ObservedGauges& o) {
  struct Claim {
    const char* layer;
    int64_t seen;
    const char* device;
    int64_t said;
  };
  const Claim claims[] = {
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
  std::vector<std::string> differ;
  for (const Claim& claim : claims)
    if (claim.seen != claim.said)
      differ.push_back(fmt::format("{} = {} but {} = {}", claim.layer, claim.seen, claim.device, claim.said));
  std::string detail =
      differ.empty()
          ? fmt::format(
                "the layer saw what the device reported: {} allocations ({} bytes, peak {}), {} descriptor sets "
                "allocated, {} submits",
                o.vkallocs, o.vkbytes, o.vkbytespk, o.vkdsetsalloc, o.vksubmits)
          : fmt::format("{} of {} claims differ: {}", differ.size(), std::size(claims), fmt::join(differ, "; "));
  Outcome outcome = outcome_of(scenario::CheckKind::Observed,
                               "what the device reported is what the layer saw beneath it", differ.empty(), detail);
  outcome.where = *scenario.expect.observed;
  return outcome;
}

}  // namespace tidemark::check
