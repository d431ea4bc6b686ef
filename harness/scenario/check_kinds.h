// The registry of check kinds, one row per kind. From it come CheckKind and its names, the
// `expect:` keys and reader table (schema_checks.cpp), kCheckReportOrder, Scenario::reads_back and
// kCheckDocs (registry_test.cpp holds it to docs/scenarios.md's check table). A row without a
// reader, or a kind without its evaluate_kind (check/evaluate.cpp), fails to compile. `waits` is a
// client_wait's `expect` (no key, no reader); the run checks are the runner's (check/run_checks.h).
#pragma once

#include <string_view>

namespace tidemark::scenario {

// What a run must read back at its end for a kind of check, beyond what it always reads (the
// backend's gauges, the image, the trace, the validation messages).
enum class ReadBack {
  Nothing,
  KernelGauges,    // the kernel model's gauges (also whenever the scenario uses the kernel model)
  KernelDump,      // GpuMem's dump
  KernelNodes,     // each per-type node a check names
  KernelReport,    // the kernel driver's report: its kept diagnoses and kgsl reads
  ObservedGauges,  // the layer's gauges (also whenever the layer is on)
};

}  // namespace tidemark::scenario

// X(Kind, "name", indexed, "expect key", reader, "written as", "what must hold", report place, read back)
#define TIDEMARK_SCENARIO_CHECKS(X)                                                                                \
  X(Gauge, "gauge", true, "gauges", &CheckReader::gauges, "`expect: gauges`, named by its expression",             \
    "the comparison holds over the gauges and knobs at the end of the workload", 0, ReadBack::Nothing)             \
  X(Pixels, "pixels", true, "pixels", &CheckReader::pixel_checks, "`expect: pixels`, named `pixels[k]`",           \
    "the final image: bands, a probe or a golden, within the tolerance", 9, ReadBack::Nothing)                     \
  X(Waits, "waits", false, "", nullptr, "a `client_wait`'s `expect`, named `waits`",                               \
    "every `client_wait` that has an `expect` returned that status", 1, ReadBack::Nothing)                         \
  X(KernelDump, "dump", false, "kernel", &CheckReader::kernel_checks,                                              \
    "`expect: kernel: dump`, `dump_file`, `dump_has`, `dump_lacks`, named `dump`",                                 \
    "GpuMem's dump at the end of the workload is the text, or has and lacks the lines", 2, ReadBack::KernelDump)   \
  X(KernelNode, "nodes", true, "kernel", &CheckReader::kernel_checks, "`expect: kernel: nodes`, named `nodes[k]`", \
    "a per-type node reads as written, or is absent", 3, ReadBack::KernelNodes)                                    \
  X(Diagnosis, "kmd", true, "kmd", &CheckReader::diagnoses, "`expect: kmd`, named `kmd.<name>`",                   \
    "each listed field of the diagnosis a `kmd_diagnose` step kept under the name", 4, ReadBack::KernelReport)     \
  X(KgslRead, "kgsl", true, "kgsl", &CheckReader::kgsl_reads, "`expect: kgsl`, named `kgsl.<name>`",               \
    "the exact text of the node a `kgsl_read` step kept under the name", 5, ReadBack::KernelReport)                \
  X(Trace, "trace", true, "trace", &CheckReader::trace_checks, "`expect: trace`, named `trace[k]`",                \
    "a track of the run's trace as Trace Processor imports it", 6, ReadBack::Nothing)                              \
  X(Reconcile, "reconcile", false, "reconcile", &CheckReader::reconcile,                                           \
    "`expect: reconcile: true`, named `reconcile`",                                                                \
    "the backend, the kernel map and the trace agree on `kernel.pid`'s GPU memory at every sampled point", 7,      \
    ReadBack::KernelGauges)                                                                                        \
  X(Observed, "observed", false, "observed", &CheckReader::observed,                                               \
    "`expect: observed: true` (with `layer: true`), named `observed`",                                             \
    "what the device reported of its memory, descriptor sets and submits is what the layer saw beneath it", 8,     \
    ReadBack::ObservedGauges)

// X(Kind, "name", "written as", "what must hold"): outcomes the runner adds of its own.
#define TIDEMARK_RUN_CHECKS(X)                                                                             \
  X(Lane, "lane", "added in the wire lanes",                                                               \
    "frames crossed the wire, to a server in another process in spawn and tcp")                            \
  X(Validation, "validation", "added under `--validation`", "VK_LAYER_KHRONOS_validation reports nothing") \
  X(Determinism, "determinism", "added under `--repeat N` when the runs differ", "every run gives one digest")

// X(type, "key", reader, "fields", "default"): the one-key checks of a `pixels` list, each a
// PixelCheck alternative (scenario.h), its reader (a CheckReader member) and its row of the
// README's pixel table; check::check_pixels evaluates each (a type it lacks fails to compile).
#define TIDEMARK_PIXEL_CHECKS(X)                                                                                   \
  X(BandsCheck, "bands", bands,                                                                                    \
    "`count` (1..width), and either `palette: true` (band k is palette colour k) or `colors: [[r,g,b,a], ...]` "   \
    "(exactly `count` entries), `tolerance`",                                                                      \
    "tolerance 0")                                                                                                 \
  X(ProbeCheck, "probe", probe, "`x` (0..width-1), `y` (0..height-1), `rgba: [r, g, b, a]`, `tolerance`",          \
    "tolerance 0")                                                                                                 \
  X(GoldenCheck, "golden", golden,                                                                                 \
    "`file` (relative to this scenario's folder; must exist), `tolerance`, `max_mismatch` (pixels allowed "        \
    "beyond tolerance), `ssim` (the least structural similarity, such as 0.998; with it alone, only SSIM judges)", \
    "tolerance and max_mismatch 0")

namespace tidemark::scenario {

// A check kind's row of the README's check table.
struct CheckDoc {
  std::string_view name;
  std::string_view written;
  std::string_view meaning;
};

#define TIDEMARK_SCENARIO_CHECK_DOC(kind, name, indexed, key, reader, written, meaning, ...) \
  CheckDoc{name, written, meaning},
#define TIDEMARK_RUN_CHECK_DOC(kind, name, written, meaning) CheckDoc{name, written, meaning},
inline constexpr CheckDoc kCheckDocs[] = {TIDEMARK_SCENARIO_CHECKS(TIDEMARK_SCENARIO_CHECK_DOC)
                                              TIDEMARK_RUN_CHECKS(TIDEMARK_RUN_CHECK_DOC)};
#undef TIDEMARK_SCENARIO_CHECK_DOC
#undef TIDEMARK_RUN_CHECK_DOC

// The `expect:` key a check kind is written under ("" for `waits`, written in its step), by the
// kind's name: what `tidemark reduce` keeps of a scenario's expectations for one check.
constexpr std::string_view expect_key_of(std::string_view check_name) {
#define TIDEMARK_EXPECT_KEY(kind, name, indexed, key, ...) \
  if (check_name == name) return key;
  TIDEMARK_SCENARIO_CHECKS(TIDEMARK_EXPECT_KEY)
#undef TIDEMARK_EXPECT_KEY
  return "";
}

// A pixel check's row of the README's pixel table.
struct PixelCheckDoc {
  std::string_view name;
  std::string_view fields;
  std::string_view defaults;
};

#define TIDEMARK_PIXEL_CHECK_DOC(type, name, reader, fields, defaults) PixelCheckDoc{name, fields, defaults},
inline constexpr PixelCheckDoc kPixelCheckDocs[] = {TIDEMARK_PIXEL_CHECKS(TIDEMARK_PIXEL_CHECK_DOC)};
#undef TIDEMARK_PIXEL_CHECK_DOC

}  // namespace tidemark::scenario
