// Mutants: named fault switches compiled into the code under test, each reverting one fix
// or skipping one proof, so a check can be shown red for the reason it exists. A component
// asks `mutant == MutantId::X`; the release build (TIDEMARK_MUTANTS=0) compiles every such
// test to false and carries no mutant names at all.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#ifndef TIDEMARK_MUTANTS
#define TIDEMARK_MUTANTS 1
#endif

namespace tidemark {

enum class MutantId {
  None,
  ReclaimFrameBucket,
  ReclaimNoCountCeiling,
  ReclaimNoImmediateDestroy,
  MemoNoDestroyEpoch,
  WireDropKnobs,
  BufferHostWriteWhenBusy,
  BufferStageWhenIdle,
  PresentKeepsDescriptorSets,
  FenceImplicitFlush,
  DescriptorsFrameBucket,
  PresentNoSweep,
  GaugesNoRunningMax,
  FenceZeroTimeoutBlocks,
  GpuMemZeroKeepsEntry,
  GpuMemGlobalNotCounted,
  GpuMemDeltaEvents,
  GpuMemNoAttachRetry,
  GpuMemDumpIgnoresInit,
  GpuMemAtomicWalk,
  BackendForgetsFree,
  GpuMemTransientFreeUntraced,
  GpuMemOneFreeUntraced,
  GpuMemDataSourcePolls,
  TracerFtraceKeepsUnseenPids,
  TracerForwardImport,
  TracerEventGpuWins,
  TracerRepairsUnits,
  BackendSubmitsBypassKernel,
  KmdRecycleOnSubmit,
  KmdRecycleAtCompletion,
  KmdNoMagicCheck,
  KmdNoFullCheck,
  KmdDoorbellMerged,
  KmdDoorbellWakesEngine,
  KmdNoDoorbellReadback,
  KmdNarrowFence,
  KmdFenceIgnoresPermission,
  KmdDiagnosisReadsFenceOnly,
  KmdFreeSubmits,
  KgslLoadReadKeeps,
  KgslGpubusyAlwaysResets,
  KgslNoOverflowShift,
  KgslLoadUnscaled,
  KgslSeedTraceFormat,
  KgslSeedBusyVal,
  KgslGpubusyNeverResets,
  BackendLeaksDeviceMemory,
  LayerHoldFrees,
  LayerRealCompletion,
  LayerShadowCopies,
};

// True when `active` is `id`; constant false in a release build.
constexpr bool mutant_is(MutantId active, MutantId id) {
#if TIDEMARK_MUTANTS
  return id != MutantId::None && active == id;
#else
  (void)active;
  (void)id;
  return false;
#endif
}

struct MutantInfo {
  MutantId id;
  std::string_view name;       // component.what, e.g. reclaim.frame_bucket
  std::string_view component;  // backend, wire
  std::string_view breaks;     // what goes wrong under it
  std::string_view reverts;    // the fix or proof it takes away
};

// The mutants this build carries; empty in a release build.
std::span<const MutantInfo> mutant_catalogue();
// nullopt: not in this build's catalogue. The empty name is MutantId::None.
std::optional<MutantId> find_mutant(std::string_view name);
std::string_view mutant_name(MutantId id);

// A mutant as a run names it, looked up once where the name enters (the command line, a control,
// a batch): the name for records and the wire, the id for the session (nullopt: not in this build).
struct MutantChoice {
  std::string name;  // empty: none
  std::optional<MutantId> id = MutantId::None;
  static MutantChoice named(std::string name);
  bool empty() const { return name.empty(); }
};

}  // namespace tidemark
