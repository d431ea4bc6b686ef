// The registry of workload steps, one row per step: its C++ type (scenario.h), YAML key, reader
// (schema_steps.cpp), what it drives (StepTarget) and its fields as docs/scenarios.md writes them.
// From it come kStepTarget, StepKind, the reader table and kStepDocs (registry_test.cpp holds it to
// the README both ways); a row without a reader, or a type without its Executor::execute overload,
// fails to compile. `repeat`, read apart (StepReader::repeat), is the last row.
#pragma once

#include <string_view>

// X(type, "yaml_key", reader, target, "fields, as the README row writes them")
#define TIDEMARK_STEPS(X)                                                                                          \
  X(BufferData, "buffer_data", buffer_data, Device, "`buffer` (declared), `size`, `fill` = zero")                  \
  X(BufferSubData, "buffer_sub_data", buffer_sub_data, Device, "`buffer`, `offset`, `size`, `fill` = zero")        \
  X(Draw, "draw", draw, Device,                                                                                    \
    "`uniform` (buffer; its first 4 bytes are the colour), `vertices` (buffer, optional; its first 8 bytes are a " \
    "float2 pixel offset for the rectangle, so zeros draw it in place), `band: {index, of}` (optional; default "   \
    "the whole target)")                                                                                           \
  X(FenceSync, "fence", fence, Device, "a name, `[a-z_][a-z0-9_]*`")                                               \
  X(ClientWait, "client_wait", client_wait, Device,                                                                \
    "`fence` (defined by an earlier `fence` step), `flush` = false, `timeout` = 0, `expect` (optional)")           \
  X(Flush, "flush", no_fields<Flush>, Device, "none")                                                              \
  X(Finish, "finish", no_fields<Finish>, Device, "none")                                                           \
  X(Present, "present", no_fields<Present>, Device, "none")                                                        \
  X(GpuMemTotal, "gpu_mem_total", gpu_mem_total, KernelMemory, "`gpu` (0), `pid`, `size`")                         \
  X(GpuAlloc, "gpu_alloc", gpu_alloc, KernelMemory,                                                                \
    "`gpu` (0), `pid`, `type` (`UNKNOWN`, `SHADER`, `COMMAND`, `VULKAN`, `GL_TEXTURE`, `GL_BUFFER`, `QUERY`, "     \
    "`DESCRIPTOR`, `TRANSIENT`), `id`, `size`")                                                                    \
  X(GpuFree, "gpu_free", gpu_free, KernelMemory, "`gpu` (0), `pid`, `id`")                                         \
  X(GpuMemAttach, "gpumem_attach", gpumem_attach, KernelMemory, "`failures` (0..1000), `stop` (false)")            \
  X(GpuMemWalk, "gpumem_walk", gpumem_walk, KernelMemory, "`updates`: a list of `{at, gpu (0), pid, size}`")       \
  X(GpuMemSample, "gpumem_sample", no_fields<GpuMemSample>, KernelMemory, "none")                                  \
  X(KmdSubmit, "kmd_submit", kmd_submit, KernelDriver,                                                             \
    "`commands`; `half_written`, `doorbell` (`none`, `not_written`, `merged`), `fence_unwritable`")                \
  X(KmdAdvance, "kmd_advance", kmd_advance, KernelDriver, "a time")                                                \
  X(KmdWait, "kmd_wait", kmd_wait, KernelDriver, "`fence` (expression), `timeout`")                                \
  X(KmdFrame, "kmd_frame", no_fields<KmdFrame>, KernelDriver, "none")                                              \
  X(KmdSignal, "kmd_signal", kmd_signal, KernelDriver, "a semaphore (expression)")                                 \
  X(KmdFault, "kmd_fault", kmd_fault, KernelDriver,                                                                \
    "`queue` (`scene`), `half_written`, `doorbell`, `fence_unwritable`")                                           \
  X(KmdDiagnose, "kmd_diagnose", kmd_diagnose, KernelDriver, "a name, or `{as, queue}`")                           \
  X(KgslSample, "kgsl_sample", kgsl_sample, KernelDriver, "`busy_us`, `total_us` (expressions), `freq`")           \
  X(KgslPower, "kgsl_power", kgsl_power, KernelDriver, "`axi: on` or `off`")                                       \
  X(KgslRead, "kgsl_read", kgsl_read, KernelDriver, "`node` (`gpubusy`, `gpu_load`, `trace_pipe`), `as`")          \
  X(CounterSampleStep, "counter_sample", counter_sample, Trace,                                                    \
    "`at` (expression, virtual ns), `gpu` (the stream's first), `values`: a map counter id → an integer "        \
    "expression or a decimal")

namespace tidemark::scenario {

// What a step drives: the device through the client API, the kernel model (its gauges are then
// read) in its GPU-memory half or its kernel driver, or the scenario's own counter stream in the
// trace. The halves differ on a build with a renderer server, whose layer reaches the kernel
// driver live but its memory only at the run's read-backs (runner/kinds/scenario_subject.cpp).
enum class StepTarget { Device, KernelMemory, KernelDriver, Trace };
constexpr bool targets_kernel(StepTarget target) {
  return target == StepTarget::KernelMemory || target == StepTarget::KernelDriver;
}

// A step's YAML key and its fields, as the README's step tables write them.
struct StepDoc {
  std::string_view name;
  std::string_view fields;
};

#define TIDEMARK_STEP_DOC(type, name, reader, target, fields) StepDoc{name, fields},
inline constexpr StepDoc kStepDocs[] = {
    TIDEMARK_STEPS(TIDEMARK_STEP_DOC)  //
    StepDoc{"repeat", "count, `as` (loop variable, optional), `steps` (non-empty)"},
};
#undef TIDEMARK_STEP_DOC

}  // namespace tidemark::scenario
