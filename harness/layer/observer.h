// Inside the layer (harness/layer/): the state every intercepted call reads and changes — the
// next layer's tables, one DeviceState per device (its gauges, its objects, its completion
// rule, its faults), the attachments of hosts in this process — and the one lock over it
// (biased_mutex.h).
// The intercepts live in memory_calls.cpp, object_calls.cpp and completion_calls.cpp; the
// loader's entry points and the host's interface in observe_layer.cpp.
#pragma once

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <source_location>
#include <sys/syscall.h>
#include <unistd.h>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/die_by_signal.h"
#include "core/mapped_files.h"
#include "core/memory_type.h"
#include "layer/biased_mutex.h"
#include "layer/completion.h"
#include "layer/kernel_channel.h"
#include "layer/handle_map.h"
#include "layer/process_record.h"
#include "layer/records.h"
#include "layer/settings.h"
#include "layer/tidemark_layer.h"

namespace tidemark::layer {

inline void add(TidemarkLayerCount& count, int64_t n = 1) {
  count.live += n;
  count.total += n;
  count.peak = std::max(count.peak, count.live);
}
inline void remove(TidemarkLayerCount& count, int64_t n = 1) { count.live -= n; }

template <class T>
inline uint64_t key(T handle) {
  return reinterpret_cast<uint64_t>(handle);  // non-dispatchable handles are 64-bit here
}

// Dispatchable handles share their loader dispatch pointer with the object that made them:
// a queue's and a command buffer's key is their device's.
inline void* dispatch_key(const void* dispatchable) { return *static_cast<void* const*>(dispatchable); }

// The X-macro lists are laid out by hand: clang-format takes each for one expression and indents
// it ever deeper.
// clang-format off
#define TIDEMARK_DEVICE_FUNCTIONS(X)                                                                 \
  X(DestroyDevice) X(CreateBuffer) X(DestroyBuffer) X(CreateImage) X(DestroyImage)                   \
  X(AllocateMemory) X(FreeMemory) X(BindBufferMemory) X(BindImageMemory) X(BindBufferMemory2)        \
  X(BindImageMemory2) X(CreateDescriptorPool) X(DestroyDescriptorPool) X(ResetDescriptorPool)        \
  X(AllocateDescriptorSets) X(FreeDescriptorSets) X(CreateCommandPool) X(DestroyCommandPool)         \
  X(AllocateCommandBuffers) X(FreeCommandBuffers) X(QueueSubmit) X(QueueSubmit2) X(CreateFence)      \
  X(ResetFences) X(DestroyFence) X(GetFenceStatus) X(WaitForFences) X(AcquireNextImageKHR)           \
  X(AcquireNextImage2KHR) X(QueueBindSparse) X(ImportFenceFdKHR) X(CreateSemaphore)                  \
  X(DestroySemaphore) X(SignalSemaphore) X(WaitSemaphores) X(GetSemaphoreCounterValue)               \
  X(QueueWaitIdle) X(DeviceWaitIdle)

// Other names of intercepted functions: (the name, the intercept).
#define TIDEMARK_DEVICE_ALIASES(X)                                                                   \
  X("vkBindBufferMemory2KHR", BindBufferMemory2) X("vkBindImageMemory2KHR", BindImageMemory2)        \
  X("vkQueueSubmit2KHR", QueueSubmit2) X("vkSignalSemaphoreKHR", SignalSemaphore)                    \
  X("vkWaitSemaphoresKHR", WaitSemaphores) X("vkGetSemaphoreCounterValueKHR", GetSemaphoreCounterValue)

// The draw commands, intercepted only on a device whose settings drop a draw (drop_draw): on
// every other device the driver's own functions are handed out, at no cost per draw.
#define TIDEMARK_DRAW_FUNCTIONS(X)                                                                   \
  X(CmdDraw) X(CmdDrawIndexed) X(CmdDrawIndirect) X(CmdDrawIndexedIndirect) X(CmdDrawIndirectCount)  \
  X(CmdDrawIndexedIndirectCount) X(CmdDrawMultiEXT) X(CmdDrawMultiIndexedEXT)
#define TIDEMARK_DRAW_ALIASES(X)                                                                     \
  X("vkCmdDrawIndirectCountKHR", CmdDrawIndirectCount)                                               \
  X("vkCmdDrawIndexedIndirectCountKHR", CmdDrawIndexedIndirectCount)
// clang-format on

// The next layer's functions for one device. A core name missing from a 1.1 driver is taken
// by its extension name.
struct DeviceTable {
  PFN_vkGetDeviceProcAddr GetDeviceProcAddr = nullptr;
  PFN_vkGetImageMemoryRequirements GetImageMemoryRequirements = nullptr;  // an image's bound size
#define TIDEMARK_FIELD(name) PFN_vk##name name = nullptr;
  TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_FIELD)
  TIDEMARK_DRAW_FUNCTIONS(TIDEMARK_FIELD)
#undef TIDEMARK_FIELD
  void load(VkDevice device, PFN_vkGetDeviceProcAddr next) {
    GetDeviceProcAddr = next;
    auto get = [&](const char* core, const char* extension) {
      PFN_vkVoidFunction found = next(device, core);
      return found || !extension ? found : next(device, extension);
    };
#define TIDEMARK_LOAD(name) name = reinterpret_cast<PFN_vk##name>(get("vk" #name, nullptr));
    TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_LOAD)
    TIDEMARK_DRAW_FUNCTIONS(TIDEMARK_LOAD)
    TIDEMARK_LOAD(GetImageMemoryRequirements)
#undef TIDEMARK_LOAD
    BindBufferMemory2 = reinterpret_cast<PFN_vkBindBufferMemory2>(get("vkBindBufferMemory2", "vkBindBufferMemory2KHR"));
    BindImageMemory2 = reinterpret_cast<PFN_vkBindImageMemory2>(get("vkBindImageMemory2", "vkBindImageMemory2KHR"));
    QueueSubmit2 = reinterpret_cast<PFN_vkQueueSubmit2>(get("vkQueueSubmit2", "vkQueueSubmit2KHR"));
    SignalSemaphore = reinterpret_cast<PFN_vkSignalSemaphore>(get("vkSignalSemaphore", "vkSignalSemaphoreKHR"));
    WaitSemaphores = reinterpret_cast<PFN_vkWaitSemaphores>(get("vkWaitSemaphores", "vkWaitSemaphoresKHR"));
    GetSemaphoreCounterValue = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(
        get("vkGetSemaphoreCounterValue", "vkGetSemaphoreCounterValueKHR"));
    CmdDrawIndirectCount =
        reinterpret_cast<PFN_vkCmdDrawIndirectCount>(get("vkCmdDrawIndirectCount", "vkCmdDrawIndirectCountKHR"));
    CmdDrawIndexedIndirectCount = reinterpret_cast<PFN_vkCmdDrawIndexedIndirectCount>(
        get("vkCmdDrawIndexedIndirectCount", "vkCmdDrawIndexedIndirectCountKHR"));
  }
};

struct InstanceTable {
  PFN_vkGetInstanceProcAddr get_proc = nullptr;
  PFN_vkDestroyInstance destroy = nullptr;
  VkInstance instance = VK_NULL_HANDLE;  // for the instance-level queries made at vkCreateDevice
};

struct Attachment {
  uint64_t id = 0;
  std::optional<TidemarkLayerSink> sink;
  TidemarkLayerSettings settings{};
  int64_t devices = 0;
  TidemarkLayerGauges gone{};                 // the summed gauges of its destroyed devices
  std::optional<TidemarkLayerDriver> driver;  // the driver beneath its first device
};

struct Memory {
  VkDeviceSize size = 0;
  MemoryType type = MemoryType::Unknown;
  bool reported = false;  // reported to the host (at its first bind)
};
struct Resource {
  VkDeviceSize size = 0;  // what a bind puts on memory: a buffer's size, an image's requirement
  MemoryType type = MemoryType::GlBuffer;
  bool bound = false;
};
struct Held {
  enum { Buffer, Image, Memory } kind;
  uint64_t handle;
  const VkAllocationCallbacks* allocator;
};

struct DeviceState {
  DeviceTable next;
  uint64_t number = 0;                     // in the process, from 1
  std::string driver;                      // driver_text() of the driver beneath it, for its record; empty: not known
  std::shared_ptr<Attachment> attachment;  // none: the process's own settings, the events file
  TidemarkLayerSettings settings{};
  uint64_t calls = 0;  // intercepted calls on this device: crash_at_call and hang_at_call count them
  // Its submits and waits (device_lost_at counts them, without the lock), and whether that fault made it lost.
  std::atomic<uint64_t> submits_and_waits{0};
  std::atomic<bool> lost{false};
  CompletionRule completion{{}};
  // Its gauges: in its slot of the process's status map under `tidemark observe` (so a killed
  // process leaves them as of its last call, with no copy per call), else its own.
  TidemarkLayerGauges& gauges() { return *gauges_; }
  const TidemarkLayerGauges& gauges() const { return *gauges_; }
  void keep_gauges_in(TidemarkLayerGauges* slot) {
    *slot = *gauges_;
    gauges_ = slot;
  }
  void keep_gauges_own() {
    own_gauges_ = *gauges_;
    gauges_ = &own_gauges_;
  }
  HandleMap<Memory> memory;
  HandleMap<Resource> buffers, images;
  HandleMap<int64_t> pool_sets, pool_commands;  // what a pool's reset or destroy frees
  std::vector<Held> held;                       // hold_frees
  HandleMap<uint64_t> shadows;                  // shadow_copies: each buffer's and allocation's copy
  HandleMap<int64_t> answers;                   // each waited or polled object's last answer (progress)
  uint64_t allocations_tried = 0;
  int64_t reported_bytes = 0;
  // drop_draw: the draw commands recorded so far, from any thread of the driver's (counted only
  // under that fault, without the lock: a draw is never a state change the report reads).
  mutable std::atomic<uint64_t> draws_recorded{0};

  // Without an attachment, the kernel channel's sink (a renderer server's layer), if it has one.
  const TidemarkLayerSink* process_sink = nullptr;
  const TidemarkLayerSink* sink() const {
    if (!attachment) return process_sink;
    return attachment->sink ? &*attachment->sink : nullptr;
  }

 private:
  TidemarkLayerGauges own_gauges_{};
  TidemarkLayerGauges* gauges_ = &own_gauges_;
};

class Observer {
 public:
  static Observer& get() {
    static Observer observer;  // lives as long as the library
    return observer;
  }

  BiasedMutex mutex;   // the program's calling thread takes it without an atomic operation
  uint64_t calls = 0;  // intercepted calls that changed a device's state, in the process
  std::unordered_map<void*, InstanceTable> instances;
  std::unordered_map<void*, std::unique_ptr<DeviceState>> devices;
  std::shared_ptr<Attachment> attached;                                   // where devices created now report
  std::unordered_map<uint64_t, std::shared_ptr<Attachment>> attachments;  // until their detach
  uint64_t next_attachment = 0, devices_made = 0;
  // Without an attachment: the process's settings and its report folder (tidemark observe).
  std::optional<TidemarkLayerSettings> process_settings;
  std::string settings_error;
  std::filesystem::path report_root, report_dir;  // report_dir: this process's folder in the root
  bool observing = true;  // false: --only names other programs; the layer passes every call through
  std::unordered_map<void*, PFN_vkGetDeviceProcAddr> passed_through;  // a process not observed: its devices
  std::unique_ptr<EventLog> events;
  std::unique_ptr<StatusMap> status;
  std::vector<LayerReport::Device> finished;  // the process's destroyed devices
  // A process with no host whose environment names a kernel channel (kernel_channel.h): its
  // devices ask the session's kernel model through it. Connected at the first device.
  std::unique_ptr<KernelChannelClient> channel;
  bool channel_tried = false;

  Observer() {
    if (const char* text = std::getenv("TIDEMARK_LAYER_SETTINGS")) {
      auto parsed = tidemark::layer::parse_settings(text);
      if (parsed)
        process_settings = *parsed;
      else
        settings_error = parsed.error();
    } else {
      process_settings = TidemarkLayerSettings{};
    }
    if (const char* dir = std::getenv(TIDEMARK_LAYER_ACTIVITY_VARIABLE); dir && *dir) activity_root = dir;
    if (const char* dir = std::getenv("TIDEMARK_LAYER_REPORT"); dir && *dir) {
      report_root = dir;
      const char* only = std::getenv("TIDEMARK_LAYER_ONLY");
      observing = process_matches(only ? only : "");
      open_record(0);
    }
    // A forked copy is a process of its own: its record starts in a folder of its own, and
    // the events the parent had buffered are written once, by the parent; its activity is its own.
    if (!report_root.empty() || !activity_root.empty())
      ::pthread_atfork([] { Observer::get().fork_prepare(); }, [] { Observer::get().mutex.unlock(); },
                       [] { Observer::get().fork_child(); });
  }

  // The kernel channel's sink for a device made with no attachment (caller holds the lock); null
  // when the environment names none or it cannot be reached.
  const TidemarkLayerSink* kernel_channel_sink() {
    if (!std::exchange(channel_tried, true))
      if (const char* path = std::getenv(kKernelChannelVariable); path && *path)
        channel = KernelChannelClient::connect(path);
    return channel ? channel->sink() : nullptr;
  }

  // Without an attachment, under `tidemark observe`: this process's folder and its files.
  void open_record(uint64_t forked_from) {
    events.reset();
    status.reset();
    report_dir = make_process_folder(report_root, observing, forked_from);
    if (report_dir.empty() || !observing) return;
    events = std::make_unique<EventLog>(report_dir / "events.bin");
    status = std::make_unique<StatusMap>(report_dir / "status");
  }
  void fork_prepare() {
    mutex.lock();
    if (events) events->flush();
  }
  void fork_child() {
    mutex.after_fork_in_child();
    for (auto& [dispatch, device] : devices) device->keep_gauges_own();  // the parent's status map is the parent's
    finished.clear();
    finished_sum = {};
    if (!report_root.empty()) open_record(static_cast<uint64_t>(::getppid()));
    watched.reset();
    watched_tried = false;
    // A forked copy answers its kernel questions itself: the channel is its parent's.
    for (auto& [dispatch, device] : devices) device->process_sink = nullptr;
    channel.reset();
    channel_tried = true;
    mutex.unlock();
  }
  // Each intercepted call that changes a device's state (caller holds the lock): the count the
  // observer's status line reads, and the activity a run's bounds read (core/time_bounds.h): the
  // count and the call's name, copied only when it changes.
  // `progressed`: whether it changed something (a wait's or poll's is told by its answer: answered()).
  void count_call(const char* function, uint64_t device_call, bool progressed) {
    ++calls;
    if (status) status->call();
    for (TidemarkLayerActivity* activity : activities()) {
      if (!activity) continue;
      if (function != last_function) note_call_name(*activity, function);
      __atomic_store_n(&activity->device_call, device_call, __ATOMIC_RELAXED);
      __atomic_store_n(&activity->calls, calls, __ATOMIC_RELAXED);
    }
    last_function = function;
    if (progressed) note_progress();
  }
  // A wait or poll (`what`: "polled fence", "waited on semaphore") on `object` was answered `answer`:
  // progress when the object's last answer was another; else it was asked again, which the
  // activity names until the next progress.
  void answered(DeviceState& device, const char* what, uint64_t object, int64_t answer, const char* text) {
    auto [last, first] = device.answers.try_emplace(object, answer);
    if (first || last->second != answer) {
      last->second = answer;
      note_progress();
      return;
    }
    if (asking_again) return;  // named already
    asking_again = true;
    char again[sizeof TidemarkLayerActivity::asked_again];
    std::snprintf(again, sizeof again, "%s 0x%llx, answered %s", what, static_cast<unsigned long long>(object), text);
    for (TidemarkLayerActivity* activity : activities())
      if (activity) note_text(activity->asked_again, sizeof again, again);
  }
  void note_progress() {
    ++progress;
    for (TidemarkLayerActivity* activity : activities()) {
      if (!activity) continue;
      if (asking_again) __atomic_store_n(&activity->asked_again[0], '\0', __ATOMIC_RELAXED);
      __atomic_store_n(&activity->progress, progress, __ATOMIC_RELAXED);
    }
    asking_again = false;
  }
  std::array<TidemarkLayerActivity*, 2> activities() {
    return {status ? status->activity() : nullptr, host_activity ? host_activity : watched_activity()};
  }
  // Copied a character at a time: the observer reads it while it changes.
  static void note_text(char* into, size_t room, std::string_view text) {
    size_t at = 0;
    for (; at < text.size() && at + 1 < room; ++at) __atomic_store_n(&into[at], text[at], __ATOMIC_RELAXED);
    __atomic_store_n(&into[at], '\0', __ATOMIC_RELAXED);
  }
  // "vkQueueSubmit" from the intercept's signature as the compiler spells it
  // ("VkResult tidemark::layer::QueueSubmit(VkQueue, ...)"); a helper keeps its own name.
  static void note_call_name(TidemarkLayerActivity& activity, const char* function) {
    std::string_view text(function);
    text = text.substr(0, text.find('('));
    if (size_t last = text.find_last_of(": "); last != std::string_view::npos) text.remove_prefix(last + 1);
    const bool intercept = !text.empty() && text[0] >= 'A' && text[0] <= 'Z';
    size_t at = 0;
    for (char c : std::string_view(intercept ? "vk" : ""))
      __atomic_store_n(&activity.last_call[at++], c, __ATOMIC_RELAXED);
    note_text(activity.last_call + at, sizeof activity.last_call - at, text);
  }
  // A process with no host's activity notes its own under TIDEMARK_LAYER_ACTIVITY's folder, in a
  // status file made at its first call (only its activity is written there, and a lost device's
  // gauges: completion_calls.cpp's note_lost).
  TidemarkLayerActivity* watched_activity() {
    if (activity_root.empty()) return nullptr;
    if (!watched_tried) {
      watched_tried = true;
      std::error_code ec;
      const std::filesystem::path folder =
          activity_root / (std::to_string(::getpid()) + "-" + program_invocation_short_name);
      std::filesystem::create_directories(folder, ec);
      watched = std::make_unique<StatusMap>(folder / "status");
      last_function = nullptr;  // the name is written afresh there
    }
    return watched->activity();
  }
  TidemarkLayerActivity* host_activity = nullptr;  // tidemarkLayerActivity's
  std::filesystem::path activity_root;             // TIDEMARK_LAYER_ACTIVITY's folder
  std::unique_ptr<StatusMap> watched;
  bool watched_tried = false;
  const char* last_function = nullptr;
  uint64_t progress = 0;      // intercepted calls that changed something (count_call, answered)
  bool asking_again = false;  // the calls since the last progress only asked again: named in asked_again

  // Every intercepted call finds its device: a few live devices in fixed slots, read without
  // the lock (a device's slot is filled before the loader hands it out and emptied when it is
  // destroyed), so passing a call down costs no lock; more devices than slots use the map.
  static constexpr size_t kSlots = 16;
  struct Slot {
    std::atomic<void*> key{nullptr};
    std::atomic<DeviceState*> state{nullptr};
  };
  std::array<Slot, kSlots> slots;
  void publish(void* key, DeviceState* state) {  // caller holds the lock
    for (Slot& slot : slots)
      if (!slot.key.load(std::memory_order_relaxed)) {
        slot.state.store(state, std::memory_order_relaxed);
        slot.key.store(key, std::memory_order_release);
        return;
      }
  }
  void withdraw(void* key) {  // caller holds the lock
    for (Slot& slot : slots)
      if (slot.key.load(std::memory_order_relaxed) == key) slot.key.store(nullptr, std::memory_order_release);
  }
  DeviceState* find_unlocked(const void* dispatchable) {
    void* key = dispatch_key(dispatchable);
    for (Slot& slot : slots)
      if (slot.key.load(std::memory_order_acquire) == key) return slot.state.load(std::memory_order_relaxed);
    return nullptr;
  }
  DeviceState* find(const void* dispatchable) {  // caller holds the lock
    if (DeviceState* state = find_unlocked(dispatchable)) return state;
    auto found = devices.find(dispatch_key(dispatchable));
    return found == devices.end() ? nullptr : found->second.get();
  }

  void event(const DeviceState& device, uint32_t kind, uint32_t type, uint64_t id, uint64_t size) {
    if (device.attachment || !events) return;
    events->write(kind, type, id, size);
    if (device.settings.unbuffered_events) events->flush();
  }

  // The process's report, rewritten each time its last device goes and at exit (caller holds
  // the lock): a program that never destroys its device (eglretrace) still gets its counts.
  void write_report() {
    if (report_dir.empty() || !observing) return;
    LayerReport report{static_cast<uint32_t>(::getpid()), finished, finished_sum, {}};
    for (const auto& file : mapped_files())
      if (file.filename().string().find(".so") != std::string::npos) report.libraries.push_back(file.string());
    for (const auto& [dispatch, device] : devices) {
      report.devices.push_back({device->number, false, device->gauges(), device->driver});
      sum_into(report.all, device->gauges());
    }
    if (events) events->flush();
    write_record(report_dir / "layer.json", to_json(report).dump(2) + '\n');
  }
  ~Observer() {
    std::unique_lock lock(mutex, std::try_to_lock);  // a thread stopped mid-call at exit keeps it
    if (lock.owns_lock() && !devices.empty()) write_report();
  }
  TidemarkLayerGauges finished_sum{};
};

// The state of the device a call is on. The loader hands a layer only the devices it created;
// anything else has no next function to call, so it ends the process with a line rather than
// an exception through the C interface.
inline DeviceState& device_of(Observer& o, const void* dispatchable) {
  DeviceState* device = o.find(dispatchable);
  if (!device) {
    std::fputs(TIDEMARK_LAYER_NAME ": a call on a device the layer did not see created\n", stderr);
    std::abort();
  }
  return *device;
}

// The next layer's table (it never changes once the device is made): from the device's slot
// without the lock, else under it.
inline const DeviceTable& next_of(const void* dispatchable) {
  Observer& o = Observer::get();
  if (DeviceState* state = o.find_unlocked(dispatchable)) return state->next;
  std::lock_guard lock(o.mutex);
  return device_of(o, dispatchable).next;
}

// The device's state for what never changes once it is made (its settings) and its atomics,
// without the lock.
inline DeviceState& unlocked_state(const void* dispatchable) {
  Observer& o = Observer::get();
  if (DeviceState* state = o.find_unlocked(dispatchable)) return *state;
  std::lock_guard lock(o.mutex);
  return device_of(o, dispatchable);
}
inline const DeviceState& next_state(const void* dispatchable) { return unlocked_state(dispatchable); }

// Runs `change` on the device's state under the lock; `progressed`: the call changed something.
// `where` names the intercept for the activity a run's bounds read.
template <class Change>
inline auto in_device(const void* dispatchable, bool progressed, Change change, std::source_location where) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  DeviceState& device = device_of(o, dispatchable);
  o.count_call(where.function_name(), ++device.calls, progressed);
  // A process that dies here, records unwritten (its status file keeps its counts so far).
  if (device.settings.exit_at_call != 0 && o.calls >= device.settings.exit_at_call)
    ::_exit(TIDEMARK_EXIT_AT_CALL_STATUS);
  // A driver that crashes here, at its device's Nth call (the same call whatever the process ran
  // before): the process dies by SIGSEGV whatever handler it set, a sanitizer's included.
  if (device.settings.crash_at_call != 0 && device.calls >= device.settings.crash_at_call) die_by_signal(SIGSEGV);
  // A driver that hangs here, at its device's Nth call: the call never returns (the layer's lock
  // held, as a driver stuck under its own lock would hold it). Only a kill ends the process.
  if (device.settings.hang_at_call != 0 && device.calls == device.settings.hang_at_call)
    for (;;) ::pause();
  return change(o, device);
}
template <class Change>
inline auto with_device(const void* dispatchable, Change change,
                        std::source_location where = std::source_location::current()) {
  return in_device(dispatchable, true, change, where);
}
// The same for a wait or poll: whether it made progress is told by its answer (Observer::answered).
template <class Change>
inline auto with_device_asking(const void* dispatchable, Change change,
                               std::source_location where = std::source_location::current()) {
  return in_device(dispatchable, false, change, where);
}

template <class T>
inline const T* find_in_chain(const void* next, VkStructureType type) {
  for (auto* item = static_cast<const VkBaseInStructure*>(next); item; item = item->pNext)
    if (item->sType == type) return reinterpret_cast<const T*>(item);
  return nullptr;
}

// The intercepts, declared by their Vulkan function types (a definition that strays from the
// driver's signature fails to compile).
#define TIDEMARK_DECLARE(name) std::remove_pointer_t<PFN_vk##name> name;
TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_DECLARE)
TIDEMARK_DRAW_FUNCTIONS(TIDEMARK_DECLARE)
#undef TIDEMARK_DECLARE

}  // namespace tidemark::layer
