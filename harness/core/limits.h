// Limits that several layers enforce (the scenario loader, the runner, the wire, the
// backend), written once. Each bounds what one scenario may ask for, so that a hostile or
// mistaken file fails at load with a clear message instead of exhausting the machine, and so
// that every lane accepts exactly the same scenarios.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tidemark {

inline constexpr int32_t kMaxTargetSide = 4096;         // each side of the offscreen target
inline constexpr int64_t kMaxRepeatCount = 10'000'000;  // iterations of one repeat step
// Backend calls one run may make, repeats expanded: 100x the 1.3M-call soak of the source report.
inline constexpr int64_t kMaxWorkloadCalls = 100'000'000;
// Steps one file may spell out, aliases expanded: far beyond any hand-written scenario, and
// small enough that loading stays well under a second.
inline constexpr int64_t kMaxWrittenSteps = 50'000;
// Records a run keeps per kind until something reads them (kgsl_gpubusy events waiting for a
// trace_pipe read, semaphores the scene has signalled, the kernel's findings, mismatched waits):
// reaching the bound is a clear error naming the step, or for texts kept only as evidence a
// truncation that says how many were left out. Nothing a run keeps grows with its length alone.
inline constexpr size_t kMaxKeptRecords = 100'000;
inline constexpr int64_t kMaxStoreBytes = int64_t{128} << 20;  // one buffer_data or sub-data
inline constexpr int64_t kMaxBuffers = 65'536;
inline constexpr size_t kMaxNameLength = 100;       // scenario and group names: file names, test names
inline constexpr size_t kMaxIdentifierLength = 64;  // buffer, fence and loop variable names

// What a file given to a command may hold, checked before any work that grows with it (README,
// "Input bounds"). A document (a scenario, a summary, a run record, expectations, digests, a
// ledger, gauge bounds, a layer record, a bench history): 16 MiB, many times the summary of the
// whole suite in every lane, and small enough that merging one takes seconds.
inline constexpr uint64_t kMaxDocumentBytes = uint64_t{16} << 20;
// Nesting of a JSON document: Tidemark's own go 5 deep; a parser or a reader that recurses must
// never meet 100 000 (that crashed merge).
inline constexpr int kMaxJsonDepth = 64;
// A Perfetto trace a command reads (trace, the summary's plots): a 100 000-respecify soak
// writes about 12 MB.
inline constexpr uint64_t kMaxTraceBytes = uint64_t{256} << 20;
// Shards of one run: more machines than any CI gives one job; the split's arithmetic and the
// per-shard tables stay small.
inline constexpr uint64_t kMaxShards = 10'000;

// A drivers file's entries (drivers/driver_builds.h), checked at load (an identity pattern is a
// user's pattern, bounded in core/user_pattern.h). What a build or its server puts into a process it starts
// is bounded below what the kernel takes in an exec ("Argument list too long": one argument or
// NAME=VALUE over 128 KiB, or all of them over a quarter of the stack limit, commonly 2 MiB).
inline constexpr size_t kMaxEnvironmentEntryBytes = size_t{32} << 10;   // one NAME=VALUE or command word
inline constexpr size_t kMaxBuildEnvironmentBytes = size_t{256} << 10;  // all one entry sets, or a server's command

}  // namespace tidemark
