#include "host/model_host.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <span>
#include <unordered_map>

namespace tidemark::host {

namespace {

constexpr uint32_t kGpuLoadCounter = 7;             // the device counter sampled at each kgsl devfreq read
constexpr uint64_t kDeviceIds = uint64_t{1} << 63;  // device allocation ids never meet a scenario's

// The device's counters as GPU counters: forward-looking (each sample is the value from its
// moment on). Ids are fixed: a scenario's trace checks name the tracks by these names.
constexpr uint32_t kMapEntryCounter = 6;
constexpr uint32_t kFirstLayerCounter = 8;  // the layer's tracks follow the device's

tracer::CounterDescriptor device_counters(bool observed) {
  auto spec = [](uint32_t id, std::string name, std::string description, std::vector<tracer::MeasureUnit> units) {
    tracer::CounterSpec s;
    s.counter_id = id;
    s.name = std::move(name);
    s.description = std::move(description);
    s.numerator_units = std::move(units);
    s.groups = {5};  // MEMORY
    s.direction = tracer::ValueDirection::Forwards;
    return s;
  };
  constexpr tracer::MeasureUnit kByte = 7;
  constexpr tracer::MeasureUnit kPercent = 37;  // MeasureUnit PERCENT
  tracer::CounterDescriptor descriptor;
  descriptor.specs = {
      spec(1, "Live stores", "the records' current stores plus parked ones", {}),
      spec(2, "Parked bytes", "orphaned stores waiting for their proof", {kByte}),
      spec(3, "Forced syncs", "syncs a reclaim watermark forced", {}),
      spec(4, "Descriptor sets", "live descriptor sets", {}),
      spec(5, "Device bytes", "device memory held by the backend", {kByte}),
      spec(kMapEntryCounter, "Map entry", "the scenario pid's entry in the kernel's GPU memory map", {kByte}),
      spec(kGpuLoadCounter, "GPU load", "kgsl gpu_load: busy share since the last read", {kPercent})};
  descriptor.specs.back().groups = {1};  // SYSTEM
  if (observed) {                        // only with the layer on: every other run's trace keeps its bytes
    descriptor.specs.push_back(spec(kFirstLayerCounter, "VkBuffers", "live VkBuffers the layer saw", {}));
    descriptor.specs.push_back(spec(kFirstLayerCounter + 1, "VkDeviceMemory", "live allocations the layer saw", {}));
    descriptor.specs.push_back(
        spec(kFirstLayerCounter + 2, "Vulkan bytes", "device memory bytes the layer saw", {kByte}));
    descriptor.specs.push_back(spec(kFirstLayerCounter + 3, "Vulkan descriptor sets", "live sets the layer saw", {}));
  }
  return descriptor;
}

}  // namespace

ModelHost::ModelHost(const api::ModelConfig& config, MutantId mutant, Layer layer)
    : config_(config),
      mutant_(mutant),
      memory_(kernel::GpuMemMap::kDefaultCapacity, mutant),
      driver_(config.kmd, config.kgsl, mutant),
      layer_on_(layer) {}

int64_t ModelHost::map_entry() const {
  return static_cast<int64_t>(
      memory_.map().lookup(kernel::map_key(config_.kernel_gpu, config_.kernel_pid)).value_or(0));
}

// --- the device's events ------------------------------------------------------------------

// Every change becomes a kernel-model event for the scenario's pid; after each change the
// device's gauges count, its claim, the map's entry and the per-type views must agree (kbreaks
// counts where they did not).
void ModelHost::memory_changed(const api::MemoryChange& change) {
  const int64_t sign = change.allocated ? 1 : -1;
  claim_.allocs += sign;
  claim_.bytes += sign * static_cast<int64_t>(change.size);
  claim_.allocspk = std::max(claim_.allocspk, claim_.allocs);
  claim_.bytespk = std::max(claim_.bytespk, claim_.bytes);
  if (!config_.kernel_reports) return;  // a driver without the tracepoint
  const uint32_t gpu = config_.kernel_gpu, pid = config_.kernel_pid;
  if (change.allocated)
    memory_.allocate(gpu, pid, change.type, kDeviceIds | change.id, change.size);
  else if (change.traced)
    memory_.free(gpu, pid, kDeviceIds | change.id);
  if (!change.counted) return;
  int64_t entry = map_entry();
  if (entry != change.claimed_bytes || entry != static_cast<int64_t>(memory_.views().total(pid))) ++breaks_;
}

uint64_t ModelHost::queue_submitted() { return device_queue().submit_backend().value_or(0); }
bool ModelHost::retired(uint64_t fence) const { return fence <= device_queue().seen_fence(); }
void ModelHost::wait_retired(uint64_t fence, uint64_t budget_ns) {
  if (!retired(fence)) device_queue().wait(fence, budget_ns);
}
bool ModelHost::kick() { return device_queue().kick(); }
std::string ModelHost::queue_state() const {
  const auto& queue = device_queue();
  return fmt::format("the kernel's fence is {} (head {}, tail {}, doorbell {}, engine {})", queue.seen_fence(),
                     queue.head(), queue.tail(), queue.doorbell_register(), queue.engine_state());
}
void ModelHost::frame() { device_queue().frame(); }  // deferred recycling counts presents

// Trace time is the device queue's virtual clock, but two traced moments never share a
// nanosecond: calls between kernel clock steps are 1 ns apart, so a counter sample and a
// memory event are always ordered in the trace as they happened in the run.
uint64_t ModelHost::trace_now() {
  uint64_t now = device_queue().now();
  if (last_trace_ts_ && now <= *last_trace_ts_) now = *last_trace_ts_ + 1;
  last_trace_ts_ = now;
  return now;
}

void ModelHost::started(const api::DeviceCounters& counters) {
  uint64_t start = trace_now();
  trace_.emplace(device_counters(layer_on_ != Layer::Off), start);
  // The data source's snapshot: one packet per map entry, each stamped as the walk reaches it.
  if (config_.trace_memory != tracer::MemorySource::Ftrace) snapshot_memory(start, 1);
  if (config_.trace_memory != tracer::MemorySource::Snapshot)
    memory_.on_tracepoint([this](const kernel::GpuMemTotalEvent& event) {
      trace_->memory_change(trace_now(), config_.kernel_pid, event.gpu_id, event.pid, event.size);
    });
  sample(counters);
}

// One packet per map entry, the k-th stamped at `start + k * spacing` (the walk is not atomic).
void ModelHost::snapshot_memory(uint64_t start, uint64_t spacing) {
  uint64_t at = start;
  for (const auto& [key, size] : memory_.map().entries()) {
    trace_->memory_snapshot(at, static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), size);
    at += spacing;
  }
}

void ModelHost::sample(const api::DeviceCounters& counters) {
  if (!trace_) return;  // before the device is up
  if (mutant_is(mutant_, MutantId::GpuMemDataSourcePolls) && config_.trace_memory != tracer::MemorySource::Ftrace)
    snapshot_memory(trace_now(), 0);
  const tracer::CounterSample samples[] = {{1, counters.live_stores},  {2, counters.parked_bytes},
                                           {3, counters.forced_syncs}, {4, counters.descriptor_sets},
                                           {5, counters.device_bytes}, {kMapEntryCounter, map_entry()}};
  trace_->sample(trace_now(), samples);
}

void ModelHost::observed_sample(const ObservedGauges& g) {
  if (!trace_) return;
  const tracer::CounterSample samples[] = {{kFirstLayerCounter, g.vkbufs},
                                           {kFirstLayerCounter + 1, g.vkallocs},
                                           {kFirstLayerCounter + 2, g.vkbytes},
                                           {kFirstLayerCounter + 3, g.vkdsets},
                                           {kMapEntryCounter, map_entry()}};
  // Beneath a device that reports itself, the device samples the map at its own points.
  const size_t count = layer_on_ == Layer::Reports ? std::size(samples) : std::size(samples) - 1;
  trace_->sample(trace_now(), std::span(samples, count));
}

void ModelHost::layer_bytes_sample(int64_t vkbytes) {
  if (!trace_ || layer_on_ == Layer::Off) return;  // the layer's tracks are in the descriptor only with it on
  const tracer::CounterSample samples[] = {{kFirstLayerCounter + 2, vkbytes}, {kMapEntryCounter, map_entry()}};
  trace_->sample(trace_now(), samples);
}

void ModelHost::trace_track(const tracer::TrackDescriptor& track) {
  if (trace_) trace_->track(trace_now(), track);
}

void ModelHost::trace_instant(uint64_t track_uuid, std::string_view name,
                              std::span<const tracer::TrackEventArgument> arguments) {
  if (trace_) trace_->instant(trace_now(), track_uuid, name, arguments);
}

Result<NamedGauges> ModelHost::wire_gauges() {
  if (read_back_) TIDEMARK_CHECK(read_back_(*this));
  return wire_ ? wire_() : NamedGauges{};
}

Result<ObservedGauges> ModelHost::observed_gauges() {
  ObservedGauges g = layer_ ? layer_() : ObservedGauges{};
  g.claimallocs = claim_.allocs;
  g.claimallocspk = claim_.allocspk;
  g.claimbytes = claim_.bytes;
  g.claimbytespk = claim_.bytespk;
  return g;
}

// --- the scenario's model steps -----------------------------------------------------------

Status ModelHost::kernel_event(const kernel::GpuMemTotalEvent& event) {
  memory_.emit(event);
  return {};
}
Status ModelHost::kernel_allocate(uint32_t gpu, uint32_t pid, MemoryType type, uint64_t id, uint64_t size) {
  memory_.allocate(gpu, pid, type, id, size);
  return {};
}
Status ModelHost::kernel_free(uint32_t gpu, uint32_t pid, uint64_t id) {
  if (!memory_.free(gpu, pid, id))
    return fail(ErrorKind::BadInput, fmt::format("gpu_free: pid {} has no allocation {} on GPU {}", pid, id, gpu));
  return {};
}

// The gauges of kKernelGauges' memory half (KernelHalf::Memory); the driver fills its own half.
Result<KernelGauges> ModelHost::kernel_gauges() {
  const auto& counters = memory_.map().counters();
  KernelGauges g;
  g.kevents = static_cast<int64_t>(counters.events);
  g.kentries = memory_.map().size();
  g.kdropped = static_cast<int64_t>(counters.dropped);
  g.kdeleted = static_cast<int64_t>(counters.deletes);
  g.kpid = map_entry();
  g.kglobal = static_cast<int64_t>(memory_.map().lookup(kernel::map_key(config_.kernel_gpu, 0)).value_or(0));
  g.kviews = static_cast<int64_t>(memory_.views().total(config_.kernel_pid));
  g.kbreaks = breaks_;
  g.kreader = memory_.reader().initialised() ? 1 : 0;
  g.kattach = memory_.reader().attach_tries();
  g.kwalked = walk_.walked;
  g.kwalkmixed = walk_.mixed;
  g.kwalkcut = walk_.cut;
  g.ksamples = samples_.count;
  g.kfirst = samples_.first;
  g.klast = samples_.last;
  g.kstable = samples_.stable;
  driver_.fill(g);
  return g;
}

Status ModelHost::kernel_attach(const kernel::AttachScript& script) {
  memory_.reader().initialise(script);
  return {};
}
Result<std::string> ModelHost::kernel_dump() { return memory_.reader().dump(memory_.map()); }
Result<std::optional<std::string>> ModelHost::kernel_node(uint32_t pid, MemoryType type) {
  return memory_.views().node(pid, type);
}

Status ModelHost::kernel_walk(const api::WalkUpdates& updates) {
  auto entries = memory_.map().entries();
  std::unordered_map<uint64_t, uint64_t> before(entries.begin(), entries.end());
  auto walked = kernel::walk(
      memory_.map(),
      [&](size_t step) {
        for (const auto& [at, event] : updates)
          if (at == step) memory_.emit(event);
      },
      mutant_);
  walk_ = {static_cast<int64_t>(walked.entries.size()), 0, walked.ended_early ? 1 : 0};
  for (const auto& [key, value] : walked.entries) {
    auto start = before.find(key);
    if (start == before.end() || start->second != value) ++walk_.mixed;
  }
  return {};
}

Status ModelHost::kernel_sample() {
  int64_t value = map_entry();
  if (samples_.count == 0) samples_.first = value;
  samples_.stable = samples_.count > 0 && value == samples_.last ? samples_.stable + 1 : 1;
  samples_.last = value;
  ++samples_.count;
  return {};
}

Status ModelHost::kernel_op(const kernel::KernelOp& op) {
  TIDEMARK_CHECK(driver_.apply(op));
  if (trace_ && std::holds_alternative<kernel::KgslSampleOp>(op)) {
    const tracer::CounterSample load[] = {{kGpuLoadCounter, driver_.kgsl().load_percent()}};
    trace_->sample(trace_now(), load);
  }
  return {};
}
Result<kernel::KernelReport> ModelHost::kernel_report() { return driver_.report(); }

Result<std::string_view> ModelHost::run_trace() {
  if (!trace_) return std::string_view();
  return trace_->bytes();
}
Status ModelHost::save_run_trace(const std::filesystem::path& file) {
  if (!trace_) return write_file_atomically(file, {});
  return trace_->save(file);
}
Result<std::string> ModelHost::run_trace_hash() {
  if (!trace_) return trace_hash({});
  return trace_->hash();
}
Status ModelHost::trace_op(const tracer::TraceOp& op) {
  if (!trace_) return {};
  if (const auto* stream = std::get_if<tracer::CounterStreamOp>(&op))
    trace_->counter_stream(*stream, trace_now());
  else
    trace_->counter_sample(std::get<tracer::CounterSampleOp>(op));
  return {};
}

}  // namespace tidemark::host
