// The `vulkan` backend on lavapipe. Completion is observed only by really waiting on fences,
// at defined points (client wait with a timeout, watermark sync, present, finish, read back,
// retire lag), so every gauge is a pure function of the workload.
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <optional>
#include <tuple>

#include "backend/vulkan_backend.h"
#include "backend/band_pipeline.h"
#include "backend/descriptor_sets.h"
#include "backend/device.h"
#include "backend/host_buffer.h"
#include "backend/reclaim.h"
#include "backend/render_target.h"
#include "backend/submissions.h"
#include "backend/vk.h"
#include "core/gauges.h"
#include "core/limits.h"

namespace tidemark::backend {
namespace {

struct Store {
  // A constructor of its own: built as an aggregate from a buffer alone, the whole Store was
  // zeroed first (a `rep stos` of 112 bytes on every respecify).
  explicit Store(HostBuffer buffer) : memory(std::move(buffer)) {}
  HostBuffer memory;
  uint64_t last_use = 0;                         // submit index of the last GPU reference; 0 = none since mint
  std::vector<DescriptorSets::Allocation> sets;  // sets that point at this store
};

struct BufferRecord {
  std::optional<StoreHandle> current;
};

// Store handles are small integers reused last-in first-out, so a recycled handle is a
// deterministic event of the workload, not of the C allocator.
class HandleTable {
 public:
  StoreHandle acquire() {
    if (free_.empty()) return next_++;
    StoreHandle handle = free_.back();
    free_.pop_back();
    return handle;
  }
  void release(StoreHandle handle) { free_.push_back(handle); }

 private:
  std::vector<StoreHandle> free_;
  StoreHandle next_ = 1;
};

// What the backend keeps of its session's config.
struct Config {
  int width = 64;
  int height = 64;
  Knobs knobs;
  MutantId mutant = MutantId::None;
  std::function<void(const std::string&)> log;  // gauge lines and notes; may be empty
};

class VulkanBackend final : public api::Device {
 public:
  Identity identity() const override { return {.vulkan_driver = device_->driver_text()}; }
  VulkanBackend(const Config& config, api::DeviceEvents& events, std::unique_ptr<backend::Device> device)
      : config_(config),
        events_(events),
        device_(std::move(device)),
        submissions_(*device_, config.knobs.retire_lag,
                     mutant_is(config.mutant, MutantId::BackendSubmitsBypassKernel) ? nullptr : &events,
                     [this](VkCommandBuffer commands) { end_rendering(commands); }),
        reclaim_(policy_for(config), submissions_,
                 {[this](StoreHandle store) { destroy_store(store); }, nullptr, [this] { sample(); }}) {}

  static ReclaimPolicy policy_for(const Config& config) {
    ReclaimPolicy policy;
    policy.deferred_bytes = uint64_t{config.knobs.wire_deferred_mb} << 20;
    policy.frame_bucket = mutant_is(config.mutant, MutantId::ReclaimFrameBucket);
    policy.count_ceiling = !mutant_is(config.mutant, MutantId::ReclaimNoCountCeiling);
    policy.immediate_destroy = !mutant_is(config.mutant, MutantId::ReclaimNoImmediateDestroy);
    return policy;
  }

  ~VulkanBackend() override {
    if (!device_) return;
    vkDeviceWaitIdle(vk_device());
    reclaim_.destroy_all();
  }

  Status initialize();

  // api::Device
  Result<api::BufferId> create_buffer() override {
    buffers_.emplace_back();
    return static_cast<api::BufferId>(buffers_.size());
  }
  Status buffer_data(api::BufferId buffer, std::span<const uint8_t> data) override;
  Status buffer_sub_data(api::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) override;
  Status draw(const api::DrawCall& call) override;
  Result<api::FenceId> fence_sync() override {
    fences_.push_back(submissions_.fence_index());
    return static_cast<api::FenceId>(fences_.size());
  }
  Result<WaitStatus> client_wait(api::FenceId fence, bool flush, uint64_t timeout_ns) override;
  Status flush() override { return submissions_.submit(); }
  Status finish() override { return submissions_.sync("finish"); }
  Status present() override;
  Result<Image> read_pixels() override;
  Result<Gauges> gauges() override { return current_gauges(); }
  Result<std::vector<std::string>> validation_messages() override { return device_->validation_messages(); }

 private:
  VkDevice vk_device() const { return device_->device(); }
  Gauges current_gauges() const;
  api::DeviceCounters counters() const;
  void sample() { events_.sample(counters()); }

  Status create_target();
  void report(const MemoryAccount::Change& change);
  Status clear_target();
  void begin_rendering(VkCommandBuffer commands);
  void end_rendering(VkCommandBuffer commands);
  Result<VkDescriptorSet> descriptor_for(StoreHandle store);
  Result<StoreHandle> mint(std::span<const uint8_t> data);
  void destroy_store(StoreHandle store);
  Result<Store*> current_store(api::BufferId buffer, const char* op, const char* role);

  Config config_;
  api::DeviceEvents& events_;  // outlives the backend: HostBuffer members report to it as they die
  int64_t target_bytes_ = 0;   // reported beside the device-memory account, outside its gauges
  static constexpr uint64_t kTargetId = uint64_t{1} << 62;
  std::unique_ptr<backend::Device> device_;
  MemoryAccount account_;

  RenderTarget target_;
  BandPipeline pipeline_;
  HostBuffer zero_vertices_;

  Submissions submissions_;
  bool in_rendering_ = false;
  int64_t presents_ = 0;

  // Stores, records and fences.
  std::vector<std::optional<Store>> stores_;  // indexed by handle
  HandleTable handles_;
  std::vector<BufferRecord> buffers_;
  std::vector<uint64_t> fences_;  // the submit index each fence waits for
  int64_t live_stores_ = 0;
  int64_t live_stores_peak_ = 0;
  ReclaimQueue reclaim_;

  // Descriptor sets, memoised by (store handle, range, destroy epoch). The epoch moves on
  // every store destruction and never resets, so a recycled handle cannot hit a set that
  // still points at the store it replaced.
  uint64_t destroy_epoch_ = 0;
  DescriptorSets sets_;
  std::map<std::tuple<StoreHandle, uint64_t, uint64_t>, VkDescriptorSet> memo_;
  std::vector<HostBuffer> stale_stores_;   // memo.no_destroy_epoch only
  std::vector<HostBuffer> leaked_stores_;  // backend.leaks_device_memory only: freed with the device
};

// Every device allocation and free goes to the session's events, with what the backend then
// says it holds (device bytes and the target) for the host to reconcile. Backend ids never
// meet a scenario's: the host tags them. Descriptor pools are not reported: lavapipe gives
// them no device allocation to measure.
void VulkanBackend::report(const MemoryAccount::Change& change) {
  api::MemoryChange event{.allocated = change.allocated,
                          .type = change.type,
                          .id = change.id,
                          .size = static_cast<uint64_t>(change.size),
                          .claimed_bytes = account_.bytes + target_bytes_};
  if (!change.allocated && mutant_is(config_.mutant, MutantId::BackendForgetsFree) &&
      change.type == MemoryType::GlBuffer)
    event.traced = false;
  events_.memory_changed(event);
}

api::DeviceCounters VulkanBackend::counters() const {
  Gauges g = current_gauges();
  return {.live_stores = g.wlive,
          .parked_bytes = static_cast<int64_t>(reclaim_.parked_bytes()),
          .forced_syncs = g.wdefsync,
          .descriptor_sets = g.dsets,
          .device_bytes = g.devbytes};
}

Status VulkanBackend::initialize() {
  if (auto ok = submissions_.init(); !ok) return ok;
  account_.observer = [this](const MemoryAccount::Change& change) { report(change); };
  submissions_.on_submitted([this] { sample(); });  // the host traces from the device's start on

  TIDEMARK_TRY(zero, HostBuffer::create(*device_, account_, kVertexBytes, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                        MemoryType::GlBuffer));
  zero_vertices_ = std::move(zero);
  std::memset(zero_vertices_.bytes().data(), 0, kVertexBytes);

  if (auto ok = create_target(); !ok) return ok;
  TIDEMARK_TRY(pipeline, BandPipeline::create(vk_device()));
  pipeline_ = std::move(pipeline);
  sets_ = DescriptorSets(vk_device(), pipeline_.set_layout());
  return clear_target();
}

Status VulkanBackend::create_target() {
  TIDEMARK_TRY(target, RenderTarget::create(*device_, config_.width, config_.height));
  target_ = std::move(target);
  // The target's memory is not in the device-memory gauges (it never changes), but it is the
  // process's GPU memory all the same: the kernel model sees it as GL_TEXTURE.
  target_bytes_ = static_cast<int64_t>(target_.memory_bytes());
  events_.memory_changed({.allocated = true,
                          .type = MemoryType::GlTexture,
                          .id = kTargetId,
                          .size = target_.memory_bytes(),
                          .claimed_bytes = account_.bytes + target_bytes_,
                          .counted = false});
  return {};
}

Status VulkanBackend::clear_target() {
  TIDEMARK_TRY(commands, submissions_.open());
  target_.record_clear(commands);
  submissions_.recorded();
  if (auto ok = submissions_.sync("initialize"); !ok) return ok;  // start idle: nothing pending before the workload
  events_.started(counters());
  return {};
}

void VulkanBackend::begin_rendering(VkCommandBuffer commands) {
  if (in_rendering_) return;
  target_.record_begin_rendering(commands, pipeline_.pipeline());
  in_rendering_ = true;
}

void VulkanBackend::end_rendering(VkCommandBuffer commands) {
  if (!in_rendering_) return;
  vkCmdEndRendering(commands);
  in_rendering_ = false;
}

Result<Store*> VulkanBackend::current_store(api::BufferId buffer, const char* op, const char* role) {
  if (buffer == 0 || buffer > buffers_.size())
    return fail(ErrorKind::BadInput, fmt::format("{}: no buffer {}", op, buffer));
  auto& record = buffers_[buffer - 1];
  if (!record.current)
    return fail(
        ErrorKind::BadInput,
        fmt::format("{}: {} buffer {} has no store (never specified, or specified with size 0)", op, role, buffer));
  return &*stores_[*record.current];
}

Result<StoreHandle> VulkanBackend::mint(std::span<const uint8_t> data) {
  auto memory = HostBuffer::create(
      *device_, account_, data.size(),
      VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      MemoryType::GlBuffer);
  if (!memory) return std::unexpected(memory.error());
  std::memcpy(memory->bytes().data(), data.data(), data.size());  // a fresh store: no GPU use yet
  StoreHandle handle = handles_.acquire();
  if (handle >= stores_.size()) stores_.resize(handle + 1);
  stores_[handle].emplace(std::move(*memory));  // its slot is empty: built in place
  live_stores_peak_ = std::max(live_stores_peak_, ++live_stores_);
  return handle;
}

void VulkanBackend::destroy_store(StoreHandle store) {
  Store& dying = *stores_[store];
  if (mutant_is(config_.mutant, MutantId::MemoNoDestroyEpoch)) {
    // The memo does not notice the death: a stale set may still be bound to this store, so
    // its memory stays until the frame retires and the red run reads the dead store's bytes,
    // never freed memory.
    stale_stores_.push_back(std::move(dying.memory));
  } else if (mutant_is(config_.mutant, MutantId::BackendLeaksDeviceMemory)) {
    dying.memory.forget_account();
    leaked_stores_.push_back(std::move(dying.memory));
  } else {
    // Every submit that used these sets has retired (the store's own death proof), so they
    // die with it, mid-frame; a one-present workload keeps its sets bounded.
    memo_.erase(memo_.lower_bound({store, 0, 0}), memo_.lower_bound({store + 1, 0, 0}));
    if (!mutant_is(config_.mutant, MutantId::DescriptorsFrameBucket))
      for (const auto& allocation : dying.sets) sets_.free(allocation);
  }
  stores_[store].reset();
  handles_.release(store);
  --live_stores_;
  ++destroy_epoch_;
}

Status VulkanBackend::buffer_data(api::BufferId buffer, std::span<const uint8_t> data) {
  if (buffer == 0 || buffer > buffers_.size())
    return fail(ErrorKind::BadInput, fmt::format("buffer_data: no buffer {}", buffer));
  if (data.size() > static_cast<uint64_t>(kMaxStoreBytes))
    return fail(ErrorKind::BadInput, fmt::format("buffer_data: {} bytes, at most {}", data.size(), kMaxStoreBytes));
  auto& record = buffers_[buffer - 1];
  if (record.current) {
    StoreHandle old = *record.current;
    record.current.reset();
    const Store& store = *stores_[old];
    if (auto ok = reclaim_.park(old, store.memory.size(), store.last_use); !ok) return ok;
  }
  if (data.empty()) return {};
  auto minted = mint(data);
  if (!minted) return std::unexpected(minted.error());
  buffers_[buffer - 1].current = *minted;
  return {};
}

Status VulkanBackend::buffer_sub_data(api::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) {
  auto store = current_store(buffer, "buffer_sub_data", "the");
  if (!store) return std::unexpected(store.error());
  Store& target = **store;
  if (offset > target.memory.size() || data.size() > target.memory.size() - offset)
    return fail(ErrorKind::BadInput, fmt::format("buffer_sub_data: bytes {}..{} are outside the {}-byte store", offset,
                                                 offset + data.size(), target.memory.size()));
  if (data.empty()) return {};
  bool idle = target.last_use == 0 || submissions_.is_complete(target.last_use);
  if (mutant_is(config_.mutant, MutantId::BufferHostWriteWhenBusy)) idle = true;
  if (mutant_is(config_.mutant, MutantId::BufferStageWhenIdle)) idle = false;
  if (idle) {
    std::memcpy(target.memory.bytes().data() + offset, data.data(), data.size());
    return {};
  }
  // The GPU may still read this store: stage the bytes and copy in order on the queue.
  auto staging =
      HostBuffer::create(*device_, account_, data.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryType::Transient);
  if (!staging) return std::unexpected(staging.error());
  std::memcpy(staging->bytes().data(), data.data(), data.size());
  TIDEMARK_TRY(commands, submissions_.open());
  end_rendering(commands);
  memory_barrier(commands, kDrawReadStages | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  VkBufferCopy region{0, offset, data.size()};
  vkCmdCopyBuffer(commands, staging->buffer(), target.memory.buffer(), 1, &region);
  submissions_.recorded();
  target.last_use = submissions_.sync_point();
  submissions_.release_when_retired(std::move(*staging));
  return {};
}

Result<VkDescriptorSet> VulkanBackend::descriptor_for(StoreHandle store) {
  uint64_t epoch = mutant_is(config_.mutant, MutantId::MemoNoDestroyEpoch) ? 0 : destroy_epoch_;
  auto key = std::make_tuple(store, kUniformRange, epoch);
  if (auto hit = memo_.find(key); hit != memo_.end()) return hit->second;

  TIDEMARK_TRY(allocation, sets_.allocate());
  VkDescriptorSet set = allocation.set;
  stores_[store]->sets.push_back(allocation);

  VkDescriptorBufferInfo buffer_info{stores_[store]->memory.buffer(), 0, kUniformRange};
  VkWriteDescriptorSet write{};
  write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  write.dstSet = set;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  write.pBufferInfo = &buffer_info;
  vkUpdateDescriptorSets(vk_device(), 1, &write, 0, nullptr);
  memo_.emplace(key, set);
  return set;
}

Status VulkanBackend::draw(const api::DrawCall& call) {
  auto uniform = current_store(call.uniform, "draw", "uniform");
  if (!uniform) return std::unexpected(uniform.error());
  if ((*uniform)->memory.size() < kUniformRange)
    return fail(ErrorKind::BadInput, fmt::format("draw: the uniform store holds {} bytes, a colour needs {}",
                                                 (*uniform)->memory.size(), kUniformRange));
  Store* vertices = nullptr;
  if (call.vertices != 0) {
    auto found = current_store(call.vertices, "draw", "vertex");
    if (!found) return std::unexpected(found.error());
    vertices = *found;
    if (vertices->memory.size() < kVertexBytes)
      return fail(ErrorKind::BadInput, fmt::format("draw: the vertex store holds {} bytes, a draw reads {}",
                                                   vertices->memory.size(), kVertexBytes));
  }
  StoreHandle uniform_handle = *buffers_[call.uniform - 1].current;
  auto set = descriptor_for(uniform_handle);
  if (!set) return std::unexpected(set.error());

  TIDEMARK_TRY(commands, submissions_.open());
  begin_rendering(commands);
  vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_.layout(), 0, 1, &*set, 0, nullptr);
  VkBuffer vertex_buffer = vertices ? vertices->memory.buffer() : zero_vertices_.buffer();
  VkDeviceSize zero_offset = 0;
  vkCmdBindVertexBuffers(commands, 0, 1, &vertex_buffer, &zero_offset);
  PushConstants push{{call.rect.x0, call.rect.y0, call.rect.x1, call.rect.y1}, {config_.width, config_.height}};
  vkCmdPushConstants(commands, pipeline_.layout(), VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(push), &push);
  vkCmdDraw(commands, 4, 1, 0, 0);
  submissions_.recorded();
  (*uniform)->last_use = submissions_.sync_point();
  if (vertices) vertices->last_use = submissions_.sync_point();
  return {};
}

Result<WaitStatus> VulkanBackend::client_wait(api::FenceId fence, bool flush_first, uint64_t timeout_ns) {
  if (fence == 0 || fence > fences_.size())
    return fail(ErrorKind::BadInput, fmt::format("client_wait: no fence {}", fence));
  uint64_t index = fences_[fence - 1];
  if (submissions_.is_complete(index)) return WaitStatus::AlreadySignaled;
  if (mutant_is(config_.mutant, MutantId::FenceImplicitFlush) && timeout_ns > 0) flush_first = true;
  if (flush_first && index > submissions_.submitted()) {
    if (auto ok = submissions_.submit(); !ok) return std::unexpected(ok.error());
  }
  if (mutant_is(config_.mutant, MutantId::FenceZeroTimeoutBlocks) && timeout_ns == 0) timeout_ns = UINT64_MAX;
  // Timeout 0 never looks at the GPU; an unsubmitted fence can never signal.
  if (timeout_ns == 0 || index > submissions_.submitted()) return WaitStatus::TimeoutExpired;
  TIDEMARK_TRY(retired, submissions_.wait_for(index, "client-wait", timeout_ns));
  return retired ? WaitStatus::ConditionSatisfied : WaitStatus::TimeoutExpired;
}

Status VulkanBackend::present() {
  if (auto ok = submissions_.sync("present"); !ok) return ok;
  events_.frame();
  if (!mutant_is(config_.mutant, MutantId::PresentNoSweep)) reclaim_.sweep();
  ++presents_;
  if (!mutant_is(config_.mutant, MutantId::PresentKeepsDescriptorSets)) {
    // The frame has retired: its descriptor sets and their memo go with it.
    sets_.reset();
    for (auto& store : stores_)
      if (store) store->sets.clear();
    memo_.clear();
    stale_stores_.clear();
  }
  sample();
  if (config_.log) config_.log(fmt::format("present {}: {}", presents_, gauge_line(current_gauges())));
  return {};
}

Result<Image> VulkanBackend::read_pixels() {
  const uint64_t bytes = uint64_t(config_.width) * uint64_t(config_.height) * 4;
  auto readback =
      HostBuffer::create(*device_, account_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryType::Transient);
  if (!readback) return std::unexpected(readback.error());
  TIDEMARK_TRY(commands, submissions_.open());
  end_rendering(commands);
  target_.record_copy_out(commands, readback->buffer());
  submissions_.recorded();
  if (auto ok = submissions_.sync("host-read"); !ok) return std::unexpected(ok.error());
  Image image;
  image.width = config_.width;
  image.height = config_.height;
  image.pixels.assign(readback->bytes().begin(), readback->bytes().end());
  return image;
}

Gauges VulkanBackend::current_gauges() const {
  Gauges g;
  g.wbufs = static_cast<int64_t>(buffers_.size());
  g.wlive = live_stores_;
  g.wlivepk = live_stores_peak_;
  g.wdefn = static_cast<int64_t>(reclaim_.parked_count());
  g.wdefpk = static_cast<int64_t>(reclaim_.parked_bytes_peak());
  g.wdefsync = static_cast<int64_t>(reclaim_.forced_syncs());
  g.wdefmb = config_.knobs.wire_deferred_mb;
  g.dsets = sets_.live();
  g.dsetspk = sets_.live_peak();
  g.dsetsalloc = sets_.allocated_total();
  g.devallocs = account_.allocations;
  g.devallocspk = account_.allocations_peak;
  g.devbytes = account_.bytes;
  g.devbytespk = account_.bytes_peak;
  g.submits = static_cast<int64_t>(submissions_.submitted());
  g.presents = presents_;
  if (mutant_is(config_.mutant, MutantId::GaugesNoRunningMax)) {
    g.wlivepk = g.wlive;
    g.wdefpk = static_cast<int64_t>(reclaim_.parked_bytes());
    g.dsetspk = g.dsets;
    g.devallocspk = g.devallocs;
    g.devbytespk = g.devbytes;
  }
  return g;
}

}  // namespace

Knobs knobs_from(const KnobValues& values) {
  Knobs knobs;
  knobs.wire_deferred_mb = static_cast<uint32_t>(values.at("wire_deferred_mb"));
  knobs.retire_lag = static_cast<uint32_t>(values.at("retire_lag"));
  return knobs;
}

Result<std::unique_ptr<api::Device>> create_vulkan_device(const api::SessionConfig& session,
                                                          const api::DeviceContext& context) {
  if (session.width < 1 || session.height < 1)
    return fail(ErrorKind::BadInput, fmt::format("target {}x{} is empty", session.width, session.height));
  Config config{.width = session.width,
                .height = session.height,
                .knobs = knobs_from(context.knobs),
                .mutant = context.mutant,
                .log = context.log};
  auto device = backend::Device::create(session.validation, session.layer.on);
  if (!device) return std::unexpected(device.error());
  auto backend = std::make_unique<VulkanBackend>(config, *context.events, std::move(*device));
  if (auto ok = backend->initialize(); !ok) return std::unexpected(ok.error());
  return std::unique_ptr<api::Device>(std::move(backend));
}

}  // namespace tidemark::backend
