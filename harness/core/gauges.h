// The gauges a backend publishes: the catalogue (name, meaning, whether it is a running
// maximum) is the one place a gauge is declared. Reports, digests, the wire and scenario
// checks use its order and names; docs/gauges.md's table is checked against it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
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

// Device gauges any backend can give (what a layer under any Vulkan program can count);
// reclaim gauges only a backend that runs the reclaim model has. A scenario that reads a kind
// a backend lacks is refused by that backend with a reason, never judged on zeros.
enum class GaugeKind : uint8_t { Device, Reclaim };
inline constexpr std::string_view kGaugeKindNames[] = {"device", "reclaim-model"};

// Which way a gauge moving is a regression, for a run held to a baseline: a peak of live
// buffers growing is worse; a count of the work the scenario asks for (submits, fence values)
// changing is a change, neither better nor worse.
enum class Worse : uint8_t { Higher, Lower, Neither };

struct GaugeSpec {
  std::string_view name;
  int64_t Gauges::*field;
  bool peak;  // a running maximum: the defect it catches can live inside one frame
  GaugeKind kind;
  Worse worse;
  std::string_view meaning;
};

// Report and digest order.
inline constexpr std::array<GaugeSpec, 16> kGauges = {{
    {"wbufs", &Gauges::wbufs, false, GaugeKind::Device, Worse::Higher, "live buffer records"},
    {"wlive", &Gauges::wlive, false, GaugeKind::Device, Worse::Higher,
     "live stores: the records' current stores plus parked ones"},
    {"wlivepk", &Gauges::wlivepk, true, GaugeKind::Device, Worse::Higher, "live stores, peak"},
    {"wdefn", &Gauges::wdefn, false, GaugeKind::Reclaim, Worse::Higher, "stores parked now"},
    {"wdefpk", &Gauges::wdefpk, true, GaugeKind::Reclaim, Worse::Higher, "parked bytes, peak"},
    {"wdefsync", &Gauges::wdefsync, false, GaugeKind::Reclaim, Worse::Higher, "syncs forced by a watermark"},
    {"wdefmb", &Gauges::wdefmb, false, GaugeKind::Reclaim, Worse::Neither, "the wire_deferred_mb the backend applied"},
    {"dsets", &Gauges::dsets, false, GaugeKind::Device, Worse::Higher, "live descriptor sets"},
    {"dsetspk", &Gauges::dsetspk, true, GaugeKind::Device, Worse::Higher, "live descriptor sets, peak"},
    {"dsetsalloc", &Gauges::dsetsalloc, false, GaugeKind::Device, Worse::Higher, "descriptor sets allocated so far"},
    {"devallocs", &Gauges::devallocs, false, GaugeKind::Device, Worse::Higher, "device memory allocations now"},
    {"devallocspk", &Gauges::devallocspk, true, GaugeKind::Device, Worse::Higher, "device memory allocations, peak"},
    {"devbytes", &Gauges::devbytes, false, GaugeKind::Device, Worse::Higher, "device memory bytes now"},
    {"devbytespk", &Gauges::devbytespk, true, GaugeKind::Device, Worse::Higher, "device memory bytes, peak"},
    {"submits", &Gauges::submits, false, GaugeKind::Device, Worse::Neither, "queue submits so far"},
    {"presents", &Gauges::presents, false, GaugeKind::Device, Worse::Neither, "presents so far"},
}};

// The kernel model's gauges: read, reported and digested only for a scenario that uses the
// kernel model (a `kernel:` section, a kernel step, or a check naming one of these), so the
// backend-only scenarios keep their digests.
struct KernelGauges {
  int64_t kevents = 0;     // gpu_mem_total tracepoint hits
  int64_t kentries = 0;    // entries in the GpuService map
  int64_t kdropped = 0;    // new (gpu, pid) pairs a full map lost silently
  int64_t kdeleted = 0;    // entries size 0 removed
  int64_t kpid = 0;        // the map's value for the scenario's pid (0: no entry)
  int64_t kglobal = 0;     // the map's value for its GPU's global entry
  int64_t kviews = 0;      // the sum of the scenario pid's per-type views
  int64_t kbreaks = 0;     // backend changes after which device bytes, map and views disagreed
  int64_t kreader = 0;     // 1 when the GpuMem reader is initialised
  int64_t kattach = 0;     // attach tries of its last initialisation
  int64_t kwalked = 0;     // entries the last walk returned
  int64_t kwalkmixed = 0;  // of those, entries read after an update landed mid-walk (a later moment)
  int64_t kwalkcut = 0;    // 1 when the last walk ended early (a key vanished before its value was read)
  int64_t ksamples = 0;    // samples of the pid's map entry taken (gpumem_sample)
  int64_t kfirst = 0;      // the first sample
  int64_t klast = 0;       // the last sample
  int64_t kstable = 0;     // how many samples at the end equal the last: the stable window
  // The submission path and the kgsl busy statistics.
  int64_t ksubmits = 0;     // packets the kernel's ring accepted
  int64_t krefused = 0;     // submits refused: no ring space within the submit timeout
  int64_t kfence = 0;       // the queue's fence value in memory
  int64_t kseen = 0;        // the fence value the driver has seen (after the completion interrupt)
  int64_t khead = 0;        // the ring's head (dword offset)
  int64_t ktail = 0;        // the ring's tail (dword offset)
  int64_t kdoorbell = 0;    // what reading the doorbell register returns
  int64_t kringpk = 0;      // most dwords in the ring at once
  int64_t kringwaits = 0;   // submits that waited for ring space
  int64_t kringwaitus = 0;  // microseconds submitters waited for ring space
  int64_t kdoorlost = 0;    // doorbell writes that did not reach the engine
  int64_t krewrites = 0;    // doorbells read back stale and rewritten
  int64_t kkicks = 0;       // rings again by a waiter that found queued work the engine was never told of
  int64_t kwaits = 0;       // fence waits
  int64_t ktimeouts = 0;    // fence waits that timed out
  int64_t kfenceback = 0;   // fence writes that went backwards
  int64_t kmagic = 0;       // half-written packets the header magic caught before the tail moved
  int64_t kstale = 0;       // packets the engine decoded before their bytes were written
  int64_t kclobbered = 0;   // unconsumed packets a submitter wrote over
  int64_t kuaf = 0;         // command buffers the engine read after they were recycled
  int64_t krecycled = 0;    // command buffers recycled
  int64_t kkept = 0;        // command buffers completed and kept for deferred recycling
  int64_t ksleeps = 0;      // engine power-downs
  int64_t kwakes = 0;       // engine wake-ups
  int64_t kbusyus = 0;      // engine busy time, microseconds
  int64_t kclockus = 0;     // the model's virtual clock, microseconds
  int64_t kbsubmits = 0;    // the backend queue's packets: one per queue submit
  int64_t kbfence = 0;      // the backend queue's fence value in memory
  int64_t kbringpk = 0;     // most dwords in the backend queue's ring at once
  int64_t kbdoorlost = 0;   // the backend queue's doorbell writes that did not reach its engine
  int64_t kbkicks = 0;      // rings again by a backend sync that found its work unannounced
  int64_t kbwaits = 0;      // the backend's waits on its queue's fences
  int64_t kbtimeouts = 0;   // of those, the ones that timed out
  int64_t kbuaf = 0;        // the backend queue's command buffers read after they were recycled
  int64_t kbrecycled = 0;   // the backend queue's command buffers recycled
  int64_t kbkept = 0;       // the backend queue's command buffers completed and kept for deferred recycling
  int64_t kgslsamples = 0;  // kgsl devfreq status samples
  int64_t kgslevents = 0;   // kgsl_gpubusy trace events emitted
};

// Which filler writes a kernel gauge: the GPU-memory half (host::ModelHost::kernel_gauges, the
// map, views, reader, walk and samples) or the driver half (kernel::KernelDriver::fill, the kmd
// queues and kgsl). host/model_host_test.cpp (KernelGaugeHalves) checks that each fills exactly its own.
enum class KernelHalf : uint8_t { Memory, Driver };

struct KernelGaugeSpec {
  std::string_view name;
  int64_t KernelGauges::*field;
  KernelHalf half;
  Worse worse;
  std::string_view meaning;
};
inline constexpr std::array<KernelGaugeSpec, 55> kKernelGauges = {{
    {"kevents", &KernelGauges::kevents, KernelHalf::Memory, Worse::Neither, "gpu_mem_total tracepoint hits"},
    {"kentries", &KernelGauges::kentries, KernelHalf::Memory, Worse::Neither, "entries in the GpuService map"},
    {"kdropped", &KernelGauges::kdropped, KernelHalf::Memory, Worse::Higher,
     "new (gpu, pid) pairs a full map lost silently"},
    {"kdeleted", &KernelGauges::kdeleted, KernelHalf::Memory, Worse::Neither, "entries size 0 removed"},
    {"kpid", &KernelGauges::kpid, KernelHalf::Memory, Worse::Neither, "the map's value for the scenario's pid"},
    {"kglobal", &KernelGauges::kglobal, KernelHalf::Memory, Worse::Neither,
     "the map's value for its GPU's global entry"},
    {"kviews", &KernelGauges::kviews, KernelHalf::Memory, Worse::Neither,
     "the sum of the scenario pid's per-type views"},
    {"kbreaks", &KernelGauges::kbreaks, KernelHalf::Memory, Worse::Higher,
     "backend changes after which device bytes, map and views disagreed"},
    {"kreader", &KernelGauges::kreader, KernelHalf::Memory, Worse::Lower, "1 when the GpuMem reader is initialised"},
    {"kattach", &KernelGauges::kattach, KernelHalf::Memory, Worse::Higher,
     "attach tries of the reader's last initialisation"},
    {"kwalked", &KernelGauges::kwalked, KernelHalf::Memory, Worse::Neither, "entries the last walk returned"},
    {"kwalkmixed", &KernelGauges::kwalkmixed, KernelHalf::Memory, Worse::Higher,
     "entries the last walk read from a later moment than its start"},
    {"kwalkcut", &KernelGauges::kwalkcut, KernelHalf::Memory, Worse::Higher, "1 when the last walk ended early"},
    {"ksamples", &KernelGauges::ksamples, KernelHalf::Memory, Worse::Neither, "samples of the pid's map entry taken"},
    {"kfirst", &KernelGauges::kfirst, KernelHalf::Memory, Worse::Neither, "the first sample"},
    {"klast", &KernelGauges::klast, KernelHalf::Memory, Worse::Neither, "the last sample"},
    {"kstable", &KernelGauges::kstable, KernelHalf::Memory, Worse::Neither,
     "samples at the end equal to the last (the stable window)"},
    {"ksubmits", &KernelGauges::ksubmits, KernelHalf::Driver, Worse::Neither,
     "scene queue: packets the kernel's ring accepted"},
    {"krefused", &KernelGauges::krefused, KernelHalf::Driver, Worse::Higher,
     "scene queue: submits refused: no ring space within the submit timeout"},
    {"kfence", &KernelGauges::kfence, KernelHalf::Driver, Worse::Neither,
     "scene queue: the queue's fence value in memory"},
    {"kseen", &KernelGauges::kseen, KernelHalf::Driver, Worse::Neither,
     "scene queue: the fence value the driver has seen (after the completion interrupt)"},
    {"khead", &KernelGauges::khead, KernelHalf::Driver, Worse::Neither, "scene queue: the ring's head (dword offset)"},
    {"ktail", &KernelGauges::ktail, KernelHalf::Driver, Worse::Neither, "scene queue: the ring's tail (dword offset)"},
    {"kdoorbell", &KernelGauges::kdoorbell, KernelHalf::Driver, Worse::Neither,
     "scene queue: what reading the doorbell register returns"},
    {"kringpk", &KernelGauges::kringpk, KernelHalf::Driver, Worse::Higher,
     "scene queue: most dwords in the ring at once"},
    {"kringwaits", &KernelGauges::kringwaits, KernelHalf::Driver, Worse::Higher,
     "scene queue: submits that waited for ring space"},
    {"kringwaitus", &KernelGauges::kringwaitus, KernelHalf::Driver, Worse::Higher,
     "scene queue: microseconds submitters waited for ring space"},
    {"kdoorlost", &KernelGauges::kdoorlost, KernelHalf::Driver, Worse::Higher,
     "scene queue: doorbell writes that did not reach the engine"},
    {"krewrites", &KernelGauges::krewrites, KernelHalf::Driver, Worse::Higher,
     "scene queue: doorbells read back stale and rewritten"},
    {"kkicks", &KernelGauges::kkicks, KernelHalf::Driver, Worse::Higher,
     "scene queue: rings again by a waiter that found queued work the engine was never told of"},
    {"kwaits", &KernelGauges::kwaits, KernelHalf::Driver, Worse::Neither, "scene queue: fence waits"},
    {"ktimeouts", &KernelGauges::ktimeouts, KernelHalf::Driver, Worse::Higher,
     "scene queue: fence waits that timed out"},
    {"kfenceback", &KernelGauges::kfenceback, KernelHalf::Driver, Worse::Higher,
     "scene queue: fence writes that went backwards"},
    {"kmagic", &KernelGauges::kmagic, KernelHalf::Driver, Worse::Higher,
     "scene queue: half-written packets the header magic caught before the tail moved"},
    {"kstale", &KernelGauges::kstale, KernelHalf::Driver, Worse::Higher,
     "scene queue: packets the engine decoded before their bytes were written"},
    {"kclobbered", &KernelGauges::kclobbered, KernelHalf::Driver, Worse::Higher,
     "scene queue: unconsumed packets a submitter wrote over"},
    {"kuaf", &KernelGauges::kuaf, KernelHalf::Driver, Worse::Higher,
     "scene queue: command buffers the engine read after they were recycled"},
    {"krecycled", &KernelGauges::krecycled, KernelHalf::Driver, Worse::Neither,
     "scene queue: command buffers recycled"},
    {"kkept", &KernelGauges::kkept, KernelHalf::Driver, Worse::Neither,
     "scene queue: command buffers completed and kept for deferred recycling"},
    {"ksleeps", &KernelGauges::ksleeps, KernelHalf::Driver, Worse::Neither, "scene queue: engine power-downs"},
    {"kwakes", &KernelGauges::kwakes, KernelHalf::Driver, Worse::Neither, "scene queue: engine wake-ups"},
    {"kbusyus", &KernelGauges::kbusyus, KernelHalf::Driver, Worse::Higher,
     "scene queue: engine busy time, microseconds"},
    {"kclockus", &KernelGauges::kclockus, KernelHalf::Driver, Worse::Higher,
     "scene queue: the model's virtual clock, microseconds"},
    {"kbsubmits", &KernelGauges::kbsubmits, KernelHalf::Driver, Worse::Neither,
     "the backend queue's packets: one per queue submit"},
    {"kbfence", &KernelGauges::kbfence, KernelHalf::Driver, Worse::Neither,
     "the backend queue's fence value in memory"},
    {"kbringpk", &KernelGauges::kbringpk, KernelHalf::Driver, Worse::Higher,
     "most dwords in the backend queue's ring at once"},
    {"kbdoorlost", &KernelGauges::kbdoorlost, KernelHalf::Driver, Worse::Higher,
     "the backend queue's doorbell writes that did not reach its engine"},
    {"kbkicks", &KernelGauges::kbkicks, KernelHalf::Driver, Worse::Higher,
     "rings again by a backend sync that found its work unannounced"},
    {"kbwaits", &KernelGauges::kbwaits, KernelHalf::Driver, Worse::Neither,
     "the backend's waits on its queue's fences"},
    {"kbtimeouts", &KernelGauges::kbtimeouts, KernelHalf::Driver, Worse::Higher, "of those, the ones that timed out"},
    {"kbuaf", &KernelGauges::kbuaf, KernelHalf::Driver, Worse::Higher,
     "the backend queue's command buffers read after they were recycled"},
    {"kbrecycled", &KernelGauges::kbrecycled, KernelHalf::Driver, Worse::Neither,
     "the backend queue's command buffers recycled"},
    {"kbkept", &KernelGauges::kbkept, KernelHalf::Driver, Worse::Neither,
     "the backend queue's command buffers completed and kept for deferred recycling"},
    {"kgslsamples", &KernelGauges::kgslsamples, KernelHalf::Driver, Worse::Neither, "kgsl devfreq status samples"},
    {"kgslevents", &KernelGauges::kgslevents, KernelHalf::Driver, Worse::Neither, "kgsl_gpubusy trace events emitted"},
}};
// What the Tidemark layer saw at the Vulkan boundary beneath the device (read, reported and
// digested only for a scenario that runs with the layer), beside what the device claimed of
// all its memory (its own reports, target included) for the `observed` check to compare.
struct ObservedGauges {
  int64_t vkbufs = 0, vkbufspk = 0, vkbufsmade = 0, vkimages = 0, vkimagespk = 0;
  int64_t vkallocs = 0, vkallocspk = 0, vkallocsmade = 0, vkbytes = 0, vkbytespk = 0, vkbound = 0, vkboundpk = 0;
  int64_t vkdsets = 0, vkdsetspk = 0, vkdsetsalloc = 0, vkcmdbufs = 0, vkcmdbufspk = 0;
  int64_t vksubmits = 0, vkpollsdone = 0, vkpollsbusy = 0, vkwaitsdone = 0, vkwaitstimeout = 0, vkwaitslost = 0;
  int64_t vkheld = 0, vkrefused = 0;
  int64_t vklost = 0, vklostcall = 0, vklostat = 0;
  int64_t claimallocs = 0, claimallocspk = 0, claimbytes = 0, claimbytespk = 0;
};

struct ObservedGaugeSpec {
  std::string_view name;
  int64_t ObservedGauges::*field;
  Worse worse;
  std::string_view meaning;
};
inline constexpr std::array<ObservedGaugeSpec, 32> kObservedGauges = {{
    {"vkbufs", &ObservedGauges::vkbufs, Worse::Higher, "VkBuffers live"},
    {"vkbufspk", &ObservedGauges::vkbufspk, Worse::Higher, "VkBuffers live, peak"},
    {"vkbufsmade", &ObservedGauges::vkbufsmade, Worse::Higher, "VkBuffers created so far"},
    {"vkimages", &ObservedGauges::vkimages, Worse::Higher, "VkImages live"},
    {"vkimagespk", &ObservedGauges::vkimagespk, Worse::Higher, "VkImages live, peak"},
    {"vkallocs", &ObservedGauges::vkallocs, Worse::Higher, "VkDeviceMemory allocations live"},
    {"vkallocspk", &ObservedGauges::vkallocspk, Worse::Higher, "VkDeviceMemory allocations live, peak"},
    {"vkallocsmade", &ObservedGauges::vkallocsmade, Worse::Higher, "VkDeviceMemory allocations made so far"},
    {"vkbytes", &ObservedGauges::vkbytes, Worse::Higher, "device memory bytes allocated"},
    {"vkbytespk", &ObservedGauges::vkbytespk, Worse::Higher, "device memory bytes allocated, peak"},
    {"vkbound", &ObservedGauges::vkbound, Worse::Higher, "bytes of buffers and images bound to memory"},
    {"vkboundpk", &ObservedGauges::vkboundpk, Worse::Higher, "bytes bound, peak"},
    {"vkdsets", &ObservedGauges::vkdsets, Worse::Higher, "descriptor sets live"},
    {"vkdsetspk", &ObservedGauges::vkdsetspk, Worse::Higher, "descriptor sets live, peak"},
    {"vkdsetsalloc", &ObservedGauges::vkdsetsalloc, Worse::Higher, "descriptor sets allocated so far"},
    {"vkcmdbufs", &ObservedGauges::vkcmdbufs, Worse::Higher, "command buffers live"},
    {"vkcmdbufspk", &ObservedGauges::vkcmdbufspk, Worse::Higher, "command buffers live, peak"},
    {"vksubmits", &ObservedGauges::vksubmits, Worse::Neither, "vkQueueSubmit and vkQueueSubmit2 calls"},
    {"vkpollsdone", &ObservedGauges::vkpollsdone, Worse::Neither, "completion polls that showed the work done"},
    {"vkpollsbusy", &ObservedGauges::vkpollsbusy, Worse::Neither, "completion polls that showed it not done"},
    {"vkwaitsdone", &ObservedGauges::vkwaitsdone, Worse::Neither, "blocking waits that returned done"},
    {"vkwaitstimeout", &ObservedGauges::vkwaitstimeout, Worse::Higher, "blocking waits the driver timed out"},
    {"vkwaitslost", &ObservedGauges::vkwaitslost, Worse::Higher,
     "blocking waits whose work the kernel model never saw"},
    {"vkheld", &ObservedGauges::vkheld, Worse::Higher, "destroys and frees the layer held back (its hold_frees fault)"},
    {"vkrefused", &ObservedGauges::vkrefused, Worse::Higher, "allocations the layer refused (layer_fail_allocation)"},
    {"vklost", &ObservedGauges::vklost, Worse::Higher,
     "submits, waits and polls answered VK_ERROR_DEVICE_LOST, by the driver or layer_device_lost_at"},
    {"vklostcall", &ObservedGauges::vklostcall, Worse::Neither,
     "the first of those: 1 vkQueueSubmit, 2 vkQueueSubmit2, 3 vkWaitForFences, 4 vkQueueWaitIdle, 5 "
     "vkDeviceWaitIdle, 6 vkGetFenceStatus, 7 vkWaitSemaphores, 8 vkGetSemaphoreCounterValue; 0 none"},
    {"vklostat", &ObservedGauges::vklostat, Worse::Neither,
     "the first of those: which of its device's submits and waits it was, from 1"},
    {"claimallocs", &ObservedGauges::claimallocs, Worse::Higher,
     "device memory allocations the device reported live, target included"},
    {"claimallocspk", &ObservedGauges::claimallocspk, Worse::Higher, "of those, the peak"},
    {"claimbytes", &ObservedGauges::claimbytes, Worse::Higher,
     "device memory bytes the device reported live, target included"},
    {"claimbytespk", &ObservedGauges::claimbytespk, Worse::Higher, "of those, the peak"},
}};
// "vkQueueSubmit" for vklostcall's 1 (the layer's TIDEMARK_LOST_* codes), "" for another.
std::string_view lost_call_name(int64_t call);
bool is_observed_gauge(std::string_view name);
std::vector<std::pair<std::string, int64_t>> named(const ObservedGauges& gauges);
ObservedGauges observed_from_named(const std::map<std::string, int64_t>& values);

// What a tap on a driver's client/server wire decoded (harness/tap), for a run on a build with a
// server: these, then one count for each command kind the decoder met, "wirecmd_" and the kind
// in lower case without its protocol's prefix (vtest's VCMD_SUBMIT_CMD: wirecmd_submit_cmd). A
// run without a tapped wire has none of them.
struct WireGaugeSpec {
  std::string_view name;
  Worse worse;
  std::string_view meaning;
};
inline constexpr std::array<WireGaugeSpec, 10> kWireGauges = {{
    {"wireres", Worse::Higher, "resources alive across the wire: created by the client, not yet destroyed"},
    {"wirerespk", Worse::Higher, "resources alive across the wire, peak"},
    {"wireresmade", Worse::Higher, "resources created across the wire so far"},
    {"wireresgone", Worse::Neither, "resources destroyed across the wire so far"},
    {"wirebytesout", Worse::Higher,
     "bytes the client sent the server after its greeting (which names its process: tidemark or tidemark-server)"},
    {"wirebytesin", Worse::Higher, "bytes the server sent the client"},
    {"wirefdsout", Worse::Neither, "file descriptors the client passed the server"},
    {"wirefdsin", Worse::Higher, "file descriptors the server passed the client (shared memory)"},
    {"wirecmds", Worse::Neither, "commands the client sent"},
    {"wirereplies", Worse::Neither, "replies the server sent"},
}};
inline constexpr std::string_view kWireCommandPrefix = "wirecmd_";
bool is_wire_gauge(std::string_view name);
using NamedGauges = std::vector<std::pair<std::string, int64_t>>;

bool is_kernel_gauge(std::string_view name);
std::vector<std::pair<std::string, int64_t>> named(const KernelGauges& gauges);
KernelGauges kernel_from_named(const std::map<std::string, int64_t>& values);

const GaugeSpec* find_gauge(std::string_view name);
// Which way `name` (a gauge of any of the three catalogues) gets worse; nullopt: no such gauge.
std::optional<Worse> worse_direction(std::string_view name);

// Name/value pairs in catalogue order: the order of reports and digests.
std::vector<std::pair<std::string, int64_t>> named(const Gauges& gauges);
// The inverse of named(); a missing name reads as 0.
Gauges from_named(const std::map<std::string, int64_t>& values);
// `wbuf[wbufs=1 wlivepk=1 wdefpk=0 wdefsync=0]`, the line the source report's logs show.
std::string gauge_line(const Gauges& gauges);
// `layer[vkbufs=0 vkbufspk=2004 vkallocspk=6 vkbytespk=12582912]`: the layer's line of the same kind.
std::string gauge_line(const ObservedGauges& gauges);

}  // namespace tidemark
