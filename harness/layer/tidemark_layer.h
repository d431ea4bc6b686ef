// The C interface of VK_LAYER_TIDEMARK_observe for a program that hosts it (a session, the layer's
// tests): attach a sink for the devices made from then on and read what the layer counted. Plain C
// types: the layer and its host are built apart. Under TIDEMARK_COMPLETION_DETERMINISTIC a poll shows
// work done only once a blocking wait established it (or at the 32nd busy poll, a reveal point), so
// every run shows the same progress; the layer may delay an answer, never advance it.
#ifndef TIDEMARK_LAYER_H_
#define TIDEMARK_LAYER_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIDEMARK_LAYER_NAME "VK_LAYER_TIDEMARK_observe"
#define TIDEMARK_LAYER_LIBRARY "libVkLayer_tidemark_observe.so"

enum { TIDEMARK_COMPLETION_DETERMINISTIC = 0, TIDEMARK_COMPLETION_REAL = 1 };

// Faults at the Vulkan boundary, for code no one here can put a mutant into.
typedef struct TidemarkLayerSettings {
  uint32_t completion;       // TIDEMARK_COMPLETION_*
  uint32_t hold_frees;       // destroys and frees are held until the device goes: a driver that never reclaims
  uint32_t never_done;       // polls never show work done; only a blocking wait shows what it waited on
  uint64_t fail_allocation;  // N > 0: the device's Nth vkAllocateMemory returns VK_ERROR_OUT_OF_DEVICE_MEMORY
  uint32_t shadow_copies;  // every buffer and allocation is made twice, the copy going with it: a driver keeping a copy
                           // of each
  uint64_t exit_at_call;   // N > 0: the process ends (_exit(TIDEMARK_EXIT_AT_CALL_STATUS)) at the layer's Nth
                           // intercepted call: a driver's process (a renderer server) that dies mid-run
  uint64_t crash_at_call;  // N > 0: SIGSEGV is raised beneath the layer's Nth intercepted call on a device: a driver
                           // that crashes
  uint64_t hang_at_call;   // N > 0: the layer's Nth intercepted call on a device never returns: a driver that hangs
  uint32_t unbuffered_events;  // each event reaches events.bin as it is recorded, not a block at a time: a
                               // renderer server's, read by its session at each read-back while it runs
  uint64_t device_lost_at;  // N > 0: the device's Nth submit or wait (vkQueueSubmit, vkQueueSubmit2, vkWaitForFences,
                            // vkQueueWaitIdle, vkDeviceWaitIdle, polls included) answers VK_ERROR_DEVICE_LOST without
                            // reaching the driver, and so does every submit, wait and poll after it: a lost device
  uint64_t drop_draw;       // N > 0: the device's Nth draw command recorded (vkCmdDraw*) never reaches the driver: a
                            // driver that loses a draw, so what it draws changes
  uint32_t first_device_only;  // the faults above strike the first device a process makes only: a driver that
                               // fails cold and then works (a flake, for `run --retry`)
} TidemarkLayerSettings;
#define TIDEMARK_EXIT_AT_CALL_STATUS 70

typedef struct TidemarkLayerCount {
  int64_t live, peak, total;  // peak: a running maximum (the defect can live inside one frame)
} TidemarkLayerCount;

typedef struct TidemarkLayerGauges {
  TidemarkLayerCount buffers, images, memory, memory_bytes, bound_bytes;
  TidemarkLayerCount descriptor_pools, descriptor_sets, command_buffers;
  int64_t submits;                                  // vkQueueSubmit and vkQueueSubmit2 calls
  int64_t polls_done, polls_busy;                   // polls, by what the client was shown
  int64_t waits_done, waits_timed_out, waits_lost;  // blocking waits; lost: the kernel never saw the work
  int64_t frees_held;                               // destroys and frees hold_frees kept back
  int64_t allocations_refused;                      // by fail_allocation
  int64_t polls_revealed;                           // objects the layer waited for at a poll's reveal point
  // Submits, waits and polls answered VK_ERROR_DEVICE_LOST, by the driver or by device_lost_at (not
  // the completion rule's lost waits: waits_lost), and the first of them: which call
  // (TIDEMARK_LOST_*) and which of its device's submits and waits it was (from 1).
  int64_t lost_answers, first_lost_call, first_lost_at;
} TidemarkLayerGauges;

// The calls whose VK_ERROR_DEVICE_LOST the layer notes (names: core/gauges.h, lost_call_name).
enum {
  TIDEMARK_LOST_QUEUE_SUBMIT = 1,
  TIDEMARK_LOST_QUEUE_SUBMIT2 = 2,
  TIDEMARK_LOST_WAIT_FOR_FENCES = 3,
  TIDEMARK_LOST_QUEUE_WAIT_IDLE = 4,
  TIDEMARK_LOST_DEVICE_WAIT_IDLE = 5,
  TIDEMARK_LOST_GET_FENCE_STATUS = 6,
  TIDEMARK_LOST_WAIT_SEMAPHORES = 7,
  TIDEMARK_LOST_GET_SEMAPHORE_COUNTER_VALUE = 8,
};

// One change of device memory, reported at its first bind (typed by what is bound: an image is
// a texture, a buffer a GL buffer, a transfer-only buffer transient) and at its free.
typedef struct TidemarkLayerMemoryChange {
  uint32_t allocated;  // 0: freed
  uint32_t type;       // tidemark::MemoryType's value
  uint64_t id;         // the VkDeviceMemory handle
  uint64_t size;
  int64_t reported_bytes;  // what the layer has reported live after this change
} TidemarkLayerMemoryChange;

// Where the layer reports; any function may be null (not reported). Calls are made under the
// layer's lock, one at a time, in the order things happened.
typedef struct TidemarkLayerSink {
  void* context;
  void (*memory_changed)(void* context, const TidemarkLayerMemoryChange* change);
  // A queue submit is one packet in the kernel model's ring: its kernel fence, 0 if refused.
  uint64_t (*queue_submitted)(void* context);
  uint32_t (*retired)(void* context, uint64_t kernel_fence);
  void (*wait_retired)(void* context, uint64_t kernel_fence, uint64_t budget_ns);
  uint32_t (*kick)(void* context);
  // The device's gauges after each submit: counter tracks in the run trace.
  void (*sample)(void* context, const TidemarkLayerGauges* gauges);
  // The device's first call answered VK_ERROR_DEVICE_LOST (TIDEMARK_LOST_*), as it happens: a
  // process that dies after it still tells of it.
  void (*device_lost)(void* context, uint32_t call, uint64_t submit_or_wait);
} TidemarkLayerSink;

// Devices created from now until the detach report to `sink` (may be null) and run under
// `settings`. Returns the attachment's id (never 0). One attachment at a time per process.
typedef uint64_t (*PFN_tidemarkLayerAttach)(const TidemarkLayerSink* sink, const TidemarkLayerSettings* settings);
typedef void (*PFN_tidemarkLayerDetach)(uint64_t attachment);
// The gauges summed over the attachment's devices (destroyed ones keep their last counts);
// returns how many devices it had.
typedef uint32_t (*PFN_tidemarkLayerGauges)(uint64_t attachment, TidemarkLayerGauges* gauges);

// What the layer last did, for a process watching it from outside (a run's bounds): the count of
// intercepted calls and the name of the last ("vkQueueSubmit"), updated with relaxed atomics at
// each call (the name copied only when it changes). Lives in the status file under `tidemark
// observe`, and wherever a host points the layer with tidemarkLayerActivity. A process with no
// such host whose environment names a folder in TIDEMARK_LAYER_ACTIVITY (a server an isolated
// subject's child started: a lane's tidemark-server, a renderer server) notes it in a status file of
// its own there, <folder>/<pid>-<program>/status, from its first intercepted call (a forked copy
// in one of its own), where the run's bounds read it (observe::ActivityReader); a device it sees
// lost puts its gauges in its slot there too (observe::noted_lost_device).
#define TIDEMARK_LAYER_ACTIVITY_VARIABLE "TIDEMARK_LAYER_ACTIVITY"
typedef struct TidemarkLayerActivity {
  uint64_t calls;
  uint64_t device_call;  // the last call's number on its device (hang_at_call's and crash_at_call's N)
  char last_call[48];    // NUL-terminated
  // What a run's inactivity limit reads: the calls that changed something, every call but a wait
  // or poll answered as the last one on its object was (a poller spinning on work that never
  // finishes makes no progress).
  uint64_t progress;
  // While the calls since the last progress are such waits or polls, what they asked again
  // ("fence 0x55d0c0a1b2c0, answered VK_NOT_READY"); empty after progress. NUL-terminated.
  char asked_again[96];
} TidemarkLayerActivity;
// From now on the process's intercepted calls are also noted in `activity` (memory the host may
// share with another process); null stops it. A layer built before this entry lacks the symbol.
typedef void (*PFN_tidemarkLayerActivity)(TidemarkLayerActivity* activity);

// The Vulkan driver beneath an attachment's first device, as it described itself
// (VkPhysicalDeviceProperties and VkPhysicalDeviceDriverProperties, read at vkCreateDevice): a
// run on a named driver build is held to it. Strings are NUL-terminated.
typedef struct TidemarkLayerDriver {
  uint32_t vendor_id, device_id, driver_id, api_version, driver_version;
  char device_name[256];
  char driver_name[256];
  char driver_info[256];
} TidemarkLayerDriver;
// Fills `driver` and returns 1 when a device of the attachment was made (0: none yet). A layer
// built before this entry lacks the symbol: the host treats that as "not known".
typedef uint32_t (*PFN_tidemarkLayerDriver)(uint64_t attachment, TidemarkLayerDriver* driver);

// What a process under `tidemark observe` shows while it runs: its folder's `status` file, mapped
// by the layer and read by the observer (updated with relaxed atomics; a reading is a moment's).
// Each device's gauges are copied into its slot after each change, so a process that is killed,
// or ends by _exit, leaves its counts as of its last intercepted call instead of its layer.json.
#define TIDEMARK_STATUS_DEVICES 64
typedef struct TidemarkLayerStatus {
  uint64_t calls;            // intercepted calls so far
  uint32_t devices;          // devices made so far (slots beyond TIDEMARK_STATUS_DEVICES are not kept)
  uint32_t driver_known;     // 1 once `driver` holds the driver beneath its first device
  TidemarkLayerGauges gone;  // the sums of its destroyed devices
  TidemarkLayerGauges live[TIDEMARK_STATUS_DEVICES];  // by device number - 1; a destroyed device's slot is zero
  // Read by a run whose driver's Vulkan device lives in another process (a renderer server's),
  // to hold it to the build's identity while the run goes on.
  TidemarkLayerDriver driver;
  TidemarkLayerActivity activity;  // read by the observer's bounds: no call for N seconds is a hang
} TidemarkLayerStatus;

// Without an attachment (a program run by `tidemark observe`), the settings come from
// TIDEMARK_LAYER_SETTINGS ("completion=real,hold_frees,never_done,fail_allocation=N") and, when
// TIDEMARK_LAYER_REPORT names a folder, each process writes a folder of its own there
// (process_record.h): `process.json`, `layer.json` (its gauges, per device and in all, when the
// process's last device goes and at exit), `status`, and `events.bin`: these records, in the
// order they happened, for the observer to replay into its model host. TIDEMARK_LAYER_ONLY (an
// fnmatch pattern on the executable's or argv[0]'s file name) leaves every other process
// unobserved: the layer passes its calls through and records only its process.json.
enum {
  TIDEMARK_EVENT_DEVICE = 1,     // a device was created (id: its number in the process)
  TIDEMARK_EVENT_ALLOCATED = 2,  // memory reported at its first bind (type, id, size)
  TIDEMARK_EVENT_FREED = 3,      // memory reported freed (type, id, size)
  TIDEMARK_EVENT_SUBMITTED = 4,  // a queue submit (id: the queue, size: the device's memory bytes then)
  TIDEMARK_EVENT_RETIRED = 5,    // a blocking wait showed a queue's submits done (id: the queue, size: up to which)
};
typedef struct TidemarkLayerEvent {
  uint32_t kind;
  uint32_t type;
  uint64_t id;
  uint64_t size;
} TidemarkLayerEvent;

#ifdef __cplusplus
}
#endif

#endif  // TIDEMARK_LAYER_H_
