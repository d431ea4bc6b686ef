// A scenario file, typed: the workload to drive and the checks it must pass.
// Schema and examples: docs/scenarios.md.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/session_config.h"
#include "core/time_bounds.h"
#include "core/completion.h"
#include "core/error.h"
#include "core/gauges.h"
#include "core/expr.h"
#include "core/knobs.h"
#include "core/wait_status.h"
#include "kernel/driver.h"
#include "kernel/gpu_mem.h"
#include "scenario/check_kinds.h"
#include "scenario/steps.h"
#include "tracer/run_trace.h"

namespace tidemark::scenario {

// An integer field of a workload step: a literal, a size, or an expression over loop
// variables (`i`, `i + 1`), evaluated when the step runs.
struct IntField {
  Expression expr;
  SourceLocation where;
};

// How a store is filled: every 4-byte word holds one RGBA8 colour.
struct Fill {
  enum class Kind { Zero, Rgba, Palette };
  Kind kind = Kind::Zero;
  std::array<uint8_t, 4> rgba{};          // Kind::Rgba
  std::optional<IntField> palette_index;  // Kind::Palette
};

struct BufferData {
  std::string buffer;
  IntField size;
  Fill fill;
};

struct BufferSubData {
  std::string buffer;
  IntField offset;
  IntField size;
  Fill fill;
};

// A draw covers a rectangle of the target; `band` = vertical band `index` of `of` equal bands.
struct Band {
  IntField index;
  IntField of;
};

struct Draw {
  std::string uniform;                  // buffer whose store holds the colour (first 4 bytes)
  std::optional<std::string> vertices;  // buffer whose store is bound as the vertex stream
  std::optional<Band> band;             // absent: the whole target
};

struct FenceSync {
  std::string name;
};

struct ClientWait {
  std::string fence;
  bool flush = false;
  uint64_t timeout_ns = 0;
  std::optional<WaitStatus> expect;  // when set, a different status fails the `waits` check
};

}  // namespace tidemark::scenario

// The steps that are one call with its arguments (flush, finish, present, the kernel model's
// tracepoint hit, allocation, free, attach and sample), generated from api/calls.yaml.
#include "calls/step_types.h"

namespace tidemark::scenario {

// A first-key/next-key walk of the map while tracepoint hits land between its reads: each
// update at walk step `at` (step 2k reads entry k's value, step 2k+1 asks for the next key).
struct WalkUpdate {
  IntField at;
  IntField gpu;
  IntField pid;
  IntField size;
};
struct GpuMemWalk {
  std::vector<WalkUpdate> updates;
};

// The kernel driver's submission path: a submit ioctl (faults for it beside its commands),
// time passing, a fence wait, a frame boundary, a semaphore another engine signals, faults
// armed for the next submit (the backend's too), and a diagnosis kept under a name.
// The kernel driver's steps that hold no expression are its operations themselves: one type
// from the file to the model host (and, as the operation's own fields, on the wire).
using KmdSubmit = kernel::KmdSubmitOp;
using KmdAdvance = kernel::KmdAdvanceOp;
using KmdFrame = kernel::KmdFrameOp;
using KmdFault = kernel::KmdFaultOp;
using KmdDiagnose = kernel::KmdDiagnoseOp;
using KgslPower = kernel::KgslPowerOp;
using KgslRead = kernel::KgslReadOp;
struct KmdWait {
  IntField fence;
  uint64_t timeout_ns = 0;
};
struct KmdSignal {
  IntField semaphore;
};
// kgsl: one devfreq status sample, the AXI power flag, a node read kept under a name.
struct KgslSample {
  IntField busy_us;
  IntField total_us;
  uint64_t freq_hz = 0;
};

// One moment of the scenario's own GPU counters: at a virtual timestamp, on a GPU of the
// stream, counter id -> value (an integer expression over loop variables, or a decimal).
struct CounterSampleStep {
  IntField at;
  uint32_t gpu = 0;
  std::vector<std::pair<uint32_t, std::variant<IntField, double>>> values;
};

struct Repeat;

// Every step of the registry (scenario/steps.h), then Repeat.
#define TIDEMARK_STEP_TYPE(type, name, reader, target, fields) type,
using StepKind = std::variant<TIDEMARK_STEPS(TIDEMARK_STEP_TYPE) Repeat>;
#undef TIDEMARK_STEP_TYPE

// What each step drives, from its registry row (Repeat: what its steps drive, asked of them).
template <class Kind>
inline constexpr StepTarget kStepTarget = StepTarget::Device;
#define TIDEMARK_STEP_TARGET(type, name, reader, target, fields) \
  template <>                                                    \
  inline constexpr StepTarget kStepTarget<type> = StepTarget::target;
TIDEMARK_STEPS(TIDEMARK_STEP_TARGET)
#undef TIDEMARK_STEP_TARGET

struct Step {
  // Recursive through Repeat; held by value in a vector.
  std::shared_ptr<StepKind> kind;
  SourceLocation where;
  std::string label;  // e.g. "buffer_data" — for error messages naming the running step
};

struct Repeat {
  IntField count;
  std::string variable;  // empty: no loop variable
  std::vector<Step> steps;
};

struct GaugeCheck {
  Expression expr;
  SourceLocation where;
};

struct ProbeCheck {
  int x = 0;
  int y = 0;
  std::array<uint8_t, 4> rgba{};
  int tolerance = 0;
  SourceLocation where;
};

struct BandsCheck {
  int count = 0;
  bool palette = false;                        // band k must be palette colour k
  std::vector<std::array<uint8_t, 4>> colors;  // or these colours, one per band
  int tolerance = 0;
  SourceLocation where;
};

struct GoldenCheck {
  std::filesystem::path file;  // resolved against the scenario's folder
  int tolerance = 0;           // per channel
  int max_mismatch = 0;        // pixels allowed beyond tolerance
  std::optional<double> ssim;  // the least structural similarity allowed (check/ssim.h)
  bool per_pixel = true;       // judged by tolerance and max_mismatch: without `ssim`, or with them written
  SourceLocation where;
};

using PixelCheck = std::variant<ProbeCheck, BandsCheck, GoldenCheck>;

// What `dumpsys gpu --gpumem` prints at the end of the workload: exactly `text`, or lines it
// must and must not contain.
struct KernelDumpCheck {
  std::optional<std::string> text;
  std::vector<std::string> has;
  std::vector<std::string> lacks;
  SourceLocation where;
};

// A per-type node (root/<pid>/<type>) at the end of the workload; nullopt value: no node.
struct KernelNodeCheck {
  uint32_t pid = 0;
  kernel::MemoryType type = kernel::MemoryType::Unknown;
  std::optional<std::string> value;
  SourceLocation where;
};

// A named diagnosis at the end of the workload: each listed field must read as written.
struct DiagnosisCheck {
  std::string name;
  std::vector<std::pair<std::string, std::string>> fields;  // field -> expected text
  SourceLocation where;
};

// A named kgsl node read: its exact text.
struct KgslReadCheck {
  std::string name;
  std::string text;
  SourceLocation where;
};

// A track of the run's trace as Trace Processor imports it (tracer/importer.h), by its label
// ("Parked bytes (gpu 0)", "GPU Memory (gpu 0, pid 1000)"): its rows exactly (inline or a file
// beside the scenario), and/or its row count and last value.
struct TraceRow {
  uint64_t ts = 0;
  double value = 0;
  bool operator==(const TraceRow&) const = default;
};
struct TraceCheck {
  std::string track;
  std::optional<std::vector<TraceRow>> rows;
  std::optional<int64_t> count;
  std::optional<double> last;
  bool absent = false;              // the importer must make no such track
  std::optional<std::string> unit;  // the track's unit string as imported ("Pixel/s")
  std::optional<bool> flagged;      // whether the name and the units disagree
  SourceLocation where;
};

// A check, as controls, results, reports and the ledger name it. Gauge and pixel checks are
// the scenario's k-th of their kind; `waits` covers every client_wait's expected status; the
// runner adds `lane`, `validation` and `determinism` outcomes of its own.
// The kinds are the registry's rows (scenario/check_kinds.h): the scenario's, then the runner's.
#define TIDEMARK_CHECK_KIND(kind, name, ...) kind,
enum class CheckKind { TIDEMARK_SCENARIO_CHECKS(TIDEMARK_CHECK_KIND) TIDEMARK_RUN_CHECKS(TIDEMARK_CHECK_KIND) };
#undef TIDEMARK_CHECK_KIND
std::string_view to_string(CheckKind kind);  // "gauge", "pixels", ...
// The order a scenario's checks are listed, evaluated and reported in (the registry's report
// column: the pixel checks last).
inline constexpr auto kCheckReportOrder = [] {
  struct Placed {
    CheckKind kind;
    int place;
  };
#define TIDEMARK_PLACED(kind, name, indexed, key, reader, written, meaning, place, read_back) \
  Placed{CheckKind::kind, place},
  std::array rows = {TIDEMARK_SCENARIO_CHECKS(TIDEMARK_PLACED)};
#undef TIDEMARK_PLACED
  std::array<CheckKind, rows.size()> order{};
  for (const auto& row : rows) order[row.place] = row.kind;
  return order;
}();

struct CheckId {
  CheckKind kind = CheckKind::Gauge;
  size_t index = 0;         // gauge and pixel checks only
  std::string str() const;  // "gauge[2]", "pixels[0]", "waits"
  auto operator<=>(const CheckId&) const = default;
};

// A negative control: a mutant, a knob setting, or both, under which exactly the named
// checks must fail (red-once).
struct Control {
  std::string mutant;                    // empty: none; a name from the mutant catalogue
  std::map<std::string, int64_t> knobs;  // overrides over the scenario's knobs
  // Checks that must fail, resolved at load from what the file wrote: a gauge check's
  // expression (spaces ignored), `pixels[k]`, or `waits`.
  std::vector<CheckId> fails;
  std::map<std::string, std::string> skip_lanes;  // lane name -> why the control cannot apply there
  // The backends it proves the checks on (a reclaim-model mutant: vulkan; a layer fault: the GL
  // drivers above the layer); empty: every backend the scenario lists.
  std::vector<std::string> backends;
  SourceLocation where;
};

// "mutant=reclaim.frame_bucket knobs=wire_deferred_mb:0": how messages and the ledger name it.
std::string describe_control(const Control& control);

// Which of the sections that configure the session the file wrote: a `kernel:`, `kmd:` or `kgsl:`
// section makes the run use the kernel model even with the defaults.
struct SectionsWritten {
  bool kernel = false;
  bool kmd = false;
  bool kgsl = false;
};

// The scenario's own GPU counter stream (`counters:`): its descriptor, the GPUs it is interned
// on (mode 2) or GPU 0 inline (mode 1), and the selection a `gpu.counters` config would make,
// validated against the descriptor when the file loads.
struct CounterSection {
  tracer::CounterDescriptor descriptor;
  std::vector<uint32_t> gpus = {0};
  bool interned = false;
};

// Every check a scenario declares (its `expect:` section), one member per kind of the registry
// (scenario/check_kinds.h); `waits` is written in the steps and counted by the scenario.
struct Checks {
  std::vector<GaugeCheck> gauges;
  std::vector<PixelCheck> pixels;
  std::optional<KernelDumpCheck> dump;
  std::vector<KernelNodeCheck> nodes;
  std::vector<DiagnosisCheck> kmd;
  std::vector<KgslReadCheck> kgsl;
  std::vector<TraceCheck> trace;
  // The backend's bytes for kernel.pid (device bytes plus the target), the kernel map's entry
  // and the last value of the trace's GPU Memory track for the pid agree at the end.
  std::optional<SourceLocation> reconcile;
  // The device's self-report and the layer's observation agree (`expect: observed: true`).
  std::optional<SourceLocation> observed;
};

struct Scenario {
  std::filesystem::path file;
  std::string name;                                      // kebab-case sentence, unique within the group
  std::string group;                                     // e.g. "reclaim": label integration-magma-reclaim
  std::string id() const { return group + "/" + name; }  // "group/name": expectations, ledgers, recordings
  std::string description;
  // The session as the file configures it, over api::SessionConfig's own defaults: `knobs:`
  // (validated against the known knob table), `target:`, `kernel:`, `kmd:`, `kgsl:`, `tracing:`
  // and `layer:`. The backend, mutant and validation are each run's (runner::prepare).
  api::SessionConfig session;
  SectionsWritten written;
  // The backends that can judge it, the first the default (`backends: [gl]`); empty: vulkan,
  // or any backend the command line names that gives the gauges its checks read.
  std::vector<std::string> backends;
  SourceLocation backends_where;
  std::optional<CounterSection> counters;
  std::vector<std::string> buffers;  // declared buffer names, created in this order
  std::vector<std::string> fences;   // fence names in first-definition order
  std::vector<Step> workload;
  Checks expect;  // `expect:`: every check the file declares, by kind
  std::vector<Control> controls;
  // Backends the scenario runs on where no control can prove a check (`unproven:`), each with why:
  // red-once and lint name them rather than count them proven.
  std::map<std::string, std::string> unproven;
  // Its own time limits (`timeout:`, `inactivity_timeout:`), over the defaults (core/time_bounds.h).
  TimeBoundsOverride time_bounds;

  // Every check the scenario declares, in report order; the ones a control may name.
  std::vector<CheckId> checks() const;
  // How many checks of a kind it declares (`waits`: 1 when any client_wait has an expect).
  size_t count(CheckKind kind) const;
  // Whether any of its checks needs `what` read back at the end of the run (the registry's
  // read-back column).
  bool reads_back(ReadBack what) const;
  bool expects_wait_statuses() const;
  // A `kernel:` section, a kernel step, or a check naming a kernel gauge: the run then reads
  // the kernel model's gauges, checks them and digests them.
  bool uses_kernel() const;
  // Whether a workload step (at any depth) is a step of the kernel model's; with `memory_only`,
  // of its GPU-memory half (gpu_*, gpumem_*), not of its kernel driver's (kmd_*, kgsl_*).
  bool has_kernel_step(bool memory_only = false) const;
  // The first gauge of each kind the checks read, and where: the kinds a backend must give.
  struct GaugeUse {
    std::string name;
    SourceLocation where;
  };
  std::map<GaugeKind, GaugeUse> gauge_uses() const;
  // What the file wrote for a check: the gauge expression, `pixels[k]`, `waits`, `kmd.NAME`.
  std::string check_text(const CheckId& id) const;
  // The check a control names by what the file wrote (a gauge check's expression with its
  // spaces ignored), or nullopt.
  std::optional<CheckId> find_check(std::string_view written) const;
};

// Loads and validates one file. Every error is one line:
//   file:line:column: expected <what>, found <what>
// and carries ErrorKind::BadInput (or Io when the file cannot be read).
Result<Scenario> load(const std::filesystem::path& file);
// The same from text already read; `file` names it in messages and anchors relative paths.
Result<Scenario> load_text(std::string_view text, const std::filesystem::path& file);

// Expands files and directories (recursively, *.yaml, sorted) into scenario files.
Result<std::vector<std::filesystem::path>> collect_files(const std::vector<std::filesystem::path>& inputs);

}  // namespace tidemark::scenario
