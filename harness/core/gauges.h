// The gauges a backend publishes: the catalogue (name, meaning, whether it is a running
// maximum) is the one place a gauge is declared. Reports, digests, the wire and scenario
// checks use its order and names; scenarios/README.md's table is checked against it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidemark {

struct Gauges {
  int64_t wbufs = 0;
  int64_t wlive = 0;
  int64_t wlivepk = 0;
  int64_t wdefn = 0;
  int64_t wdefpk = 0;
  int64_t wdefsync = 0;
  int64_t wdefmb = 0;
  int64_t dsets = 0;
  int64_t dsetspk = 0;
  int64_t dsetsalloc = 0;
  int64_t devallocs = 0;
  int64_t devallocspk = 0;
  int64_t devbytes = 0;
  int64_t devbytespk = 0;
  int64_t submits = 0;
  int64_t presents = 0;
};

struct GaugeSpec {
  std::string_view name;
  int64_t Gauges::*field;
  bool peak;  // a running maximum: the defect it catches can live inside one frame
  std::string_view meaning;
};

// Report and digest order.
inline constexpr std::array<GaugeSpec, 16> kGauges = {{
    {"wbufs", &Gauges::wbufs, false, "live buffer records"},
    {"wlive", &Gauges::wlive, false, "live stores: the records' current stores plus parked ones"},
    {"wlivepk", &Gauges::wlivepk, true, "live stores, peak"},
    {"wdefn", &Gauges::wdefn, false, "stores parked now"},
    {"wdefpk", &Gauges::wdefpk, true, "parked bytes, peak"},
    {"wdefsync", &Gauges::wdefsync, false, "syncs forced by a watermark"},
    {"wdefmb", &Gauges::wdefmb, false, "the wire_deferred_mb the backend applied"},
    {"dsets", &Gauges::dsets, false, "live descriptor sets"},
    {"dsetspk", &Gauges::dsetspk, true, "live descriptor sets, peak"},
    {"dsetsalloc", &Gauges::dsetsalloc, false, "descriptor sets allocated so far"},
    {"devallocs", &Gauges::devallocs, false, "device memory allocations now"},
    {"devallocspk", &Gauges::devallocspk, true, "device memory allocations, peak"},
    {"devbytes", &Gauges::devbytes, false, "device memory bytes now"},
    {"devbytespk", &Gauges::devbytespk, true, "device memory bytes, peak"},
    {"submits", &Gauges::submits, false, "queue submits so far"},
    {"presents", &Gauges::presents, false, "presents so far"},
}};

// The kernel model's gauges: read, reported and digested only for a scenario that uses the
// kernel model (a `kernel:` section, a kernel step, or a check naming one of these), so the
// backend-only scenarios keep their digests.
struct KernelGauges {
  int64_t kevents = 0;   // gpu_mem_total tracepoint hits
  int64_t kentries = 0;  // entries in the GpuService map
  int64_t kdropped = 0;  // new (gpu, pid) pairs a full map lost silently
  int64_t kdeleted = 0;  // entries size 0 removed
  int64_t kpid = 0;      // the map's value for the scenario's pid (0: no entry)
  int64_t kglobal = 0;   // the map's value for its GPU's global entry
  int64_t kviews = 0;    // the sum of the scenario pid's per-type views
  int64_t kbreaks = 0;   // backend changes after which device bytes, map and views disagreed
  int64_t kreader = 0;   // 1 when the GpuMem reader is initialised
  int64_t kattach = 0;   // attach tries of its last initialisation
  int64_t kwalked = 0;   // entries the last walk returned
  int64_t kwalkmixed = 0;  // of those, entries read after an update landed mid-walk (a later moment)
  int64_t kwalkcut = 0;  // 1 when the last walk ended early (a key vanished before its value was read)
  int64_t ksamples = 0;  // samples of the pid's map entry taken (gpumem_sample)
  int64_t kfirst = 0;    // the first sample
  int64_t klast = 0;     // the last sample
  int64_t kstable = 0;   // how many samples at the end equal the last: the stable window
};

struct KernelGaugeSpec {
  std::string_view name;
  int64_t KernelGauges::*field;
  std::string_view meaning;
};
inline constexpr std::array<KernelGaugeSpec, 17> kKernelGauges = {{
    {"kevents", &KernelGauges::kevents, "gpu_mem_total tracepoint hits"},
    {"kentries", &KernelGauges::kentries, "entries in the GpuService map"},
    {"kdropped", &KernelGauges::kdropped, "new (gpu, pid) pairs a full map lost silently"},
    {"kdeleted", &KernelGauges::kdeleted, "entries size 0 removed"},
    {"kpid", &KernelGauges::kpid, "the map's value for the scenario's pid"},
    {"kglobal", &KernelGauges::kglobal, "the map's value for its GPU's global entry"},
    {"kviews", &KernelGauges::kviews, "the sum of the scenario pid's per-type views"},
    {"kbreaks", &KernelGauges::kbreaks, "backend changes after which device bytes, map and views disagreed"},
    {"kreader", &KernelGauges::kreader, "1 when the GpuMem reader is initialised"},
    {"kattach", &KernelGauges::kattach, "attach tries of the reader's last initialisation"},
    {"kwalked", &KernelGauges::kwalked, "entries the last walk returned"},
    {"kwalkmixed", &KernelGauges::kwalkmixed, "entries the last walk read from a later moment than its start"},
    {"kwalkcut", &KernelGauges::kwalkcut, "1 when the last walk ended early"},
    {"ksamples", &KernelGauges::ksamples, "samples of the pid's map entry taken"},
    {"kfirst", &KernelGauges::kfirst, "the first sample"},
    {"klast", &KernelGauges::klast, "the last sample"},
    {"kstable", &KernelGauges::kstable, "samples at the end equal to the last (the stable window)"},
}};
bool is_kernel_gauge(std::string_view name);
std::vector<std::pair<std::string, int64_t>> named(const KernelGauges& gauges);
KernelGauges kernel_from_named(const std::map<std::string, int64_t>& values);

const GaugeSpec* find_gauge(std::string_view name);

// Name/value pairs in catalogue order: the order of reports and digests.
std::vector<std::pair<std::string, int64_t>> named(const Gauges& gauges);
// The inverse of named(); a missing name reads as 0.
Gauges from_named(const std::map<std::string, int64_t>& values);
// `wbuf[wbufs=1 wlivepk=1 wdefpk=0 wdefsync=0]`, the line the source report's logs show.
std::string gauge_line(const Gauges& gauges);

}  // namespace tidemark
