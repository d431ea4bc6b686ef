#include "core/mutants.h"

namespace tidemark {

#if TIDEMARK_MUTANTS
namespace {
constexpr MutantInfo kCatalogue[] = {
    {MutantId::ReclaimFrameBucket, "reclaim.frame_bucket", "backend",
     "orphaned stores wait for the frame boundary: live stores grow without bound inside a frame",
     "reclaim by proof (the pre-fix defer into a per-frame bucket; no proofs, no watermarks)"},
    {MutantId::ReclaimNoCountCeiling, "reclaim.no_count_ceiling", "backend",
     "many small orphans never reach the byte budget and pile up",
     "the 1024-store count ceiling (only the byte watermark is left)"},
    {MutantId::ReclaimNoImmediateDestroy, "reclaim.no_immediate_destroy", "backend",
     "stores no GPU command referenced are parked while the renderer is busy",
     "proof 1: lastUse == 0 destroys at once"},
    {MutantId::MemoNoDestroyEpoch, "memo.no_destroy_epoch", "backend",
     "a recycled store handle hits a descriptor set of the dead store: the draw reads its old colour",
     "the store-destroy epoch in the descriptor memo key (review must-fix ID-P7-43)"},
    {MutantId::WireDropKnobs, "wire.drop_knobs", "wire",
     "the session handshake carries no knobs: the server runs with defaults",
     "knobs travel in the handshake (the spawn launcher that scrubbed them)"},
    {MutantId::BufferHostWriteWhenBusy, "buffer.host_write_when_busy", "backend",
     "sub-data into a store a recorded draw still reads changes what that draw sees",
     "the staged GPU copy for busy stores"},
    {MutantId::BufferStageWhenIdle, "buffer.stage_when_idle", "backend",
     "every sub-data pays a staging allocation and a GPU copy, even into an idle store",
     "the direct host write into idle stores"},
    {MutantId::PresentKeepsDescriptorSets, "present.keeps_descriptor_sets", "backend",
     "descriptor sets outlive their frame: the pools are never rewound",
     "the descriptor-pool rewind at the frame boundary"},
    {MutantId::FenceImplicitFlush, "fence.implicit_flush", "backend",
     "a wait without FLUSH on an unsubmitted fence submits the batch behind the client's back",
     "waits that observe only what was flushed (deterministic fence status)"},
    {MutantId::DescriptorsFrameBucket, "descriptors.frame_bucket", "backend",
     "descriptor sets are freed only at the frame boundary: a one-present workload grows them without bound",
     "submit-gated descriptor-set reclaim (sets die with their store, mid-frame)"},
    {MutantId::PresentNoSweep, "present.no_sweep", "backend",
     "parked stores outlive the frame that retired them: they wait for the next park",
     "the sweep of parked stores at the frame boundary"},
    {MutantId::GaugesNoRunningMax, "gauges.no_running_max", "backend",
     "peak gauges report the value at read time: a defect that lives inside a frame is gone when anyone looks",
     "running maxima for the peak gauges (wlivepk, wdefpk, dsetspk, devallocspk, devbytespk)"},
    {MutantId::GpuMemZeroKeepsEntry, "gpumem.zero_keeps_entry", "kernel",
     "size 0 leaves the entry in the map: a process that freed everything keeps its slot and shows total 0",
     "the BPF program's delete on size 0"},
    {MutantId::GpuMemGlobalNotCounted, "gpumem.global_not_counted", "kernel",
     "the global entries are not counted against the 1024-entry capacity: the map holds pairs the real one drops",
     "GPU_MEM_TOTAL_MAP_SIZE counting every (gpu, pid) key, pid 0 included"},
    {MutantId::GpuMemDeltaEvents, "gpumem.delta_events", "kernel",
     "the driver reports the change instead of the new total: the map holds the last delta",
     "the tracepoint ABI: size is the total after the change"},
    {MutantId::GpuMemNoAttachRetry, "gpumem.no_attach_retry", "kernel",
     "the reader gives up at the first failed attach: a GPU driver that starts late is never traced",
     "GpuMem's 30 s of attach retries, 1 s apart"},
    {MutantId::GpuMemDumpIgnoresInit, "gpumem.dump_ignores_init", "kernel",
     "the dump reads the map without asking whether the reader initialised: a tracepoint never attached looks healthy",
     "GpuMem::dump's check of mInitialized first"},
    {MutantId::GpuMemAtomicWalk, "gpumem.atomic_walk", "kernel",
     "a walk of the map reads a frozen snapshot: a model that hides what a reader really sees mid-update",
     "first-key/next-key walks that race the BPF program (best effort, entries from different moments)"},
    {MutantId::BackendForgetsFree, "backend.forgets_free", "backend",
     "freed stores are never reported to the kernel: the map's entry only grows while device bytes fall",
     "a gpu_mem_total event after every free"},
    {MutantId::GpuMemTransientFreeUntraced, "gpumem.transient_free_untraced", "kernel",
     "a free of TRANSIENT memory never hits the tracepoint: the read-back buffer's free is the one event lost",
     "a gpu_mem_total event after every free, whatever its type"},
    {MutantId::GpuMemOneFreeUntraced, "gpumem.one_free_untraced", "kernel",
     "the first GL buffer free misses the tracepoint; the next change's total repairs the map and the trace, "
     "so only a check between the two sees it",
     "a gpu_mem_total event after every free"},
    {MutantId::GpuMemDataSourcePolls, "gpumem.data_source_polls", "tracer",
     "the GPU-memory data source re-reads the map at every counter sample: a snapshot-only trace grows a series",
     "one snapshot when the data source starts; later changes come only from the tracepoint"},
    {MutantId::TracerFtraceKeepsUnseenPids, "tracer.ftrace_keeps_unseen_pids", "tracer",
     "the importer keeps gpu_mem_total ftrace events of processes the trace never saw: no baseline looks complete",
     "Trace Processor's drop of ftrace events for pids it has not seen"},
    {MutantId::TracerForwardImport, "tracer.forward_import", "tracer",
     "backwards-looking samples are imported at their own timestamps: every value sits one row early",
     "Trace Processor's placeholder row: a sample's value goes into the previous row"},
    {MutantId::TracerEventGpuWins, "tracer.event_gpu_wins", "tracer",
     "the counter event's gpu_id wins over the interned descriptor's: two GPUs' counters merge into one track",
     "the interned descriptor's GPU deciding the track"},
    {MutantId::TracerRepairsUnits, "tracer.repairs_units", "tracer",
     "a counter whose name and units disagree is repaired from its name and no longer flagged",
     "keeping both as written and flagging the disagreement"},
    {MutantId::BackendSubmitsBypassKernel, "backend.submits_bypass_kernel", "backend",
     "queue submits go straight to the queue: the kernel model sees no ring entries and no fences",
     "one ring entry per queue submit, fence = the submit's index"},
    {MutantId::KmdRecycleOnSubmit, "kmd.recycle_on_submit", "kernel",
     "a command buffer returns to the pool when it is submitted: the engine then reads a recycled buffer",
     "recycling only after the fence passed (use-after-free)"},
    {MutantId::KmdRecycleAtCompletion, "kmd.recycle_at_completion", "kernel",
     "command buffers are recycled the moment the driver sees them complete",
     "deferred recycling: a buffer is kept for recycle_frames frames after completion"},
    {MutantId::KmdNoMagicCheck, "kmd.no_magic_check", "kernel",
     "a half-written command buffer reaches the engine: it decodes stale ring bytes",
     "the header magic checked before the tail moves"},
    {MutantId::KmdNoFullCheck, "kmd.no_full_check", "kernel",
     "the submitter writes over commands the engine has not consumed when the ring is full",
     "waiting for space when the tail would catch the head"},
    {MutantId::KmdDoorbellMerged, "kmd.doorbell_merged", "kernel",
     "each doorbell write is merged into the next one: the last submit never reaches the engine",
     "the doorbell written as an ordered, uncombined register write"},
    {MutantId::KmdDoorbellWakesEngine, "kmd.doorbell_wakes_engine", "kernel",
     "a doorbell written to a powered-down engine is delivered: the model hides the lost-doorbell scene",
     "posted doorbell writes to a sleeping or waking engine are lost"},
    {MutantId::KmdNoDoorbellReadback, "kmd.no_doorbell_readback", "kernel",
     "the driver trusts its doorbell write: one lost inside the wake window stalls the queue",
     "write, read back, and rewrite the doorbell when the value did not land"},
    {MutantId::KmdNarrowFence, "kmd.narrow_fence", "kernel",
     "the fence is written as 8 bits: after 255 it goes back to 0", "a 64-bit monotonic fence"},
    {MutantId::KmdFenceIgnoresPermission, "kmd.fence_ignores_permission", "kernel",
     "a fence write to a read-only page lands: the unwritable-fence scene cannot be seen",
     "fence writes honouring the page's write permission"},
    {MutantId::KmdDiagnosisReadsFenceOnly, "kmd.diagnosis_reads_fence_only", "kernel",
     "the observer looks only at the fence: every late fence is called a stuck command",
     "a diagnosis from head motion, the command at head and the doorbell register"},
    {MutantId::KmdFreeSubmits, "kmd.free_submits", "kernel",
     "the model charges no CPU time for a submit: thousands of tiny submits look free",
     "submit_cpu_ns of driver time per submit ioctl"},
    {MutantId::KgslLoadReadKeeps, "kgsl.load_read_keeps", "kernel",
     "reading gpu_load keeps the accumulators: a second read shows the load since boot",
     "gpu_load_show's reset of acc_total and acc_relative_busy on every read"},
    {MutantId::KgslGpubusyAlwaysResets, "kgsl.gpubusy_always_resets", "kernel",
     "reading gpubusy resets busy_old and total_old even while the AXI power flag is on",
     "the reset only when KGSL_PWRFLAGS_AXI_ON is off"},
    {MutantId::KgslNoOverflowShift, "kgsl.no_overflow_shift", "kernel",
     "busy and total of 2^24 us or more are accumulated unshifted",
     "the governor's shift right by 7 when either time reaches 2^24"},
    {MutantId::KgslLoadUnscaled, "kgsl.load_unscaled", "kernel",
     "busy time is accumulated without scaling to the maximum frequency: load at a low clock reads too high",
     "acc_relative_busy += busy * current_freq / freq_table[0]"},
    {MutantId::KgslSeedTraceFormat, "kgsl.seed_trace_format", "kernel",
     "the kgsl_gpubusy line says device_name= as seed 002 shows it: a parser of real traces finds nothing",
     "the source's TP_printk format, d_name=%s busy=%u elapsed=%d"},
    {MutantId::KgslSeedBusyVal, "kgsl.seed_busy_val", "kernel",
     "UPDATE_BUSY_VAL at the seed's 1 ms: the gpubusy window moves at nearly every sample",
     "the msm source's 1 000 000 us"},
    {MutantId::KgslGpubusyNeverResets, "kgsl.gpubusy_never_resets", "kernel",
     "reading gpubusy never clears the window, even with the AXI power flag off",
     "gpubusy_show's reset of busy_old and total_old when the GPU's AXI power is off"},
    {MutantId::FenceZeroTimeoutBlocks, "fence.zero_timeout_blocks", "backend",
     "a wait with timeout 0 blocks until the batch retires (0 read as no limit)",
     "timeout 0 never waits: it reports what earlier waits observed"},
    {MutantId::BackendLeaksDeviceMemory, "backend.leaks_device_memory", "backend",
     "a destroyed store is reported freed but its VkBuffer and memory live on: the gauges, the map and the trace "
     "all agree, and only the layer beneath sees the driver still holding it",
     "destroying a store's buffer and freeing its memory when it is reported freed"},
    {MutantId::LayerHoldFrees, "layer.hold_frees", "layer",
     "the layer holds every destroy and free until the device goes: a driver that never reclaims, for code no "
     "mutant can be compiled into",
     "destroys and frees passed to the driver when the client makes them"},
    {MutantId::LayerRealCompletion, "layer.real_completion", "layer",
     "the layer passes the driver's completion through: a kernel fault (a lost doorbell) never reaches the "
     "program's own waits, and what they see depends on the driver's timing",
     "the deterministic completion rule: a blocking wait also needs the kernel model to have seen the work"},
    {MutantId::LayerShadowCopies, "layer.shadow_copies", "layer",
     "the layer makes a second buffer or allocation beside each the driver makes: a driver holding twice what it "
     "should, beneath any GL driver (in-process or a renderer server's), for code no mutant can be compiled into",
     "one driver object for each the client's calls make"},
};
}  // namespace

std::span<const MutantInfo> mutant_catalogue() { return kCatalogue; }
#else
std::span<const MutantInfo> mutant_catalogue() { return {}; }
#endif

std::optional<MutantId> find_mutant(std::string_view name) {
  if (name.empty()) return MutantId::None;
  for (const auto& mutant : mutant_catalogue())
    if (mutant.name == name) return mutant.id;
  return std::nullopt;
}

MutantChoice MutantChoice::named(std::string name) {
  std::optional<MutantId> id = find_mutant(name);
  return {.name = std::move(name), .id = id};
}

std::string_view mutant_name(MutantId id) {
  for (const auto& mutant : mutant_catalogue())
    if (mutant.id == id) return mutant.name;
  return "";
}

}  // namespace tidemark
