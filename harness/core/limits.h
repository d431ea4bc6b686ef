// Limits that several layers enforce (the scenario loader, the runner, the wire, the
// backend), written once. Each bounds what one scenario may ask for, so that a hostile or
// mistaken file fails at load with a clear message instead of exhausting the machine, and so
// that every lane accepts exactly the same scenarios.
#pragma once

#include <cstdint>

namespace tidemark {

inline constexpr int32_t kMaxTargetSide = 4096;             // each side of the offscreen target
inline constexpr int64_t kMaxRepeatCount = 10'000'000;      // iterations of one repeat step
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
inline constexpr size_t kMaxNameLength = 100;        // scenario and group names: file names, test names
inline constexpr size_t kMaxIdentifierLength = 64;  // buffer, fence and loop variable names

}  // namespace tidemark
