// Private to the schema (schema*.cpp): the readers of a scenario file's families of keys (values,
// sections, counters, steps, checks, controls, each in its schema_<family>.cpp), each a small class
// over the YAML reader and what the file has declared so far. schema.cpp reads the top-level map
// with them, in the order the keys depend on each other.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/limits.h"
#include "scenario/scenario.h"
#include "scenario/yaml_reader.h"

namespace tidemark::scenario::schema {

using yaml::Fields;
using yaml::Value;

// How an integer field of a step is written and bounded.
struct IntRule {
  std::string_view what;   // the accepted forms, e.g. "an integer or a size such as 4KiB"
  std::string_view bound;  // e.g. "a size >= 0"
  int64_t min = 0;
  int64_t max = yaml::kNoMax;
};

inline constexpr IntRule kSizeRule{"an integer or a size such as 4KiB", "a size from 0 to 128MiB", 0, kMaxStoreBytes};
inline constexpr IntRule kOffsetRule{"an integer or a size such as 4KiB", "an offset from 0 to 128MiB", 0,
                                     kMaxStoreBytes};
static_assert(kMaxStoreBytes == int64_t{128} << 20, "the rules above spell the limit out");
inline constexpr IntRule kPaletteRule{"an integer", "a palette index >= 0"};
inline constexpr IntRule kBandIndexRule{"an integer", "a band index >= 0"};
inline constexpr IntRule kBandCountRule{"an integer", "a band count >= 1", 1};
inline constexpr IntRule kGpuRule{"an integer", "a GPU id from 0 to 4294967295", 0, 0xffffffff};
inline constexpr IntRule kPidRule{"an integer", "a pid from 0 to 4294967295", 0, 0xffffffff};
inline constexpr IntRule kBytesRule{"an integer or a size such as 4KiB", "a size >= 0"};
inline constexpr IntRule kAllocationIdRule{"an integer", "an allocation id >= 0"};
inline constexpr IntRule kAttachFailuresRule{"an integer", "a count of failed attaches from 0 to 1000", 0, 1000};
inline constexpr IntRule kWalkStepRule{"an integer", "a walk step from 0 to 4096", 0, 4096};
inline constexpr IntRule kFenceRule{"an integer", "a fence value from 1", 1};
inline constexpr IntRule kSemaphoreRule{"an integer", "a semaphore id >= 0"};
inline constexpr IntRule kMicrosecondsRule{"an integer", "a time in microseconds >= 0"};
inline constexpr IntRule kTimestampRule{"an integer (virtual ns)", "a timestamp >= 0"};
inline constexpr IntRule kCounterValueRule{"an integer, a decimal such as 15.5, or an expression", "any value",
                                           yaml::kNoMin};
inline constexpr IntRule kRepeatRule{"an integer", "a repeat count from 1 to 10000000", 1, kMaxRepeatCount};

std::vector<std::string_view> knob_names();
std::vector<std::string_view> lane_names();

// What the file has declared so far, in document order: later keys are checked against it.
struct Declared {
  std::filesystem::path file;                   // the scenario file; files it names are read beside it
  const api::SessionConfig* session = nullptr;  // the scenario's, as read so far (its target first)
  std::vector<std::string> buffers;             // in declaration order
  std::unordered_set<std::string> buffer_set;
  std::vector<std::string> fences;           // defined so far, in document order
  std::vector<std::string> loop_variables;   // of the enclosing repeats, outermost first
  std::vector<std::string> result_names;     // named by kmd_diagnose and kgsl_read steps, in document order
  const CounterSection* counters = nullptr;  // the file's counters: section, once read
};

// Readers of single values, used as one-line field parsers by every family.
class ValueReader {
 public:
  ValueReader(const yaml::Reader& read, const Declared& declared) : read_(read), declared_(declared) {}
  const yaml::Reader& read() const { return read_; }
  const Declared& declared() const { return declared_; }

  // A literal, a size or an expression over loop variables in scope; constant values are
  // range-checked now, the rest when the step runs.
  struct IntFieldParser {
    const ValueReader& values;
    const IntRule& rule;
    Result<IntField> operator()(const Value& value) const;
  };
  IntFieldParser int_field(const IntRule& rule) const { return {*this, rule}; }

  Result<std::string> buffer_name(const Value& value) const;
  auto buffer_name() const {
    return [this](const Value& value) { return buffer_name(value); };
  }
  Result<Fill> fill(const Value& value) const;
  auto fill() const {
    return [this](const Value& value) { return fill(value); };
  }
  auto tolerance() const {
    return [this](const Value& v) { return read_.small_integer(v, 0, 255); };
  }
  // `585MHz`, `300000kHz`, `1GHz`, or Hz; above 0.
  Result<uint64_t> frequency(const Value& value) const;
  Result<uint64_t> timeout_ns(const Value& value) const;
  Result<double> number(const Value& v) const;
  Result<WaitStatus> wait_status(const Value& value) const;
  Result<kernel::MemoryType> memory_type(const Value& v) const;
  Result<kernel::Queue> queue(const Value& v) const;
  Result<uint32_t> id32(const Value& v) const;  // an integer from 0 to 4294967295

  // One of `names`, as the enum value at its index.
  template <class Enum, size_t N>
  Result<Enum> named_value(const Value& value, std::string_view what, const std::string_view (&names)[N], Enum) const {
    std::string expected = fmt::format("{} ({})", what, yaml::join(std::vector<std::string_view>(names, names + N)));
    TIDEMARK_TRY(word, read_.text(value, expected));
    for (size_t k = 0; k < N; ++k)
      if (names[k] == word) return static_cast<Enum>(k);
    return yaml::error_at(value.where, expected, yaml::quote(word));
  }

  // Reads every item of a list with `read`.
  template <class Read>
  auto each(const Value& value, std::string_view what, Read read) const
      -> Result<std::vector<typename decltype(read(value))::value_type>> {
    TIDEMARK_TRY(items, read_.list(value, what));
    std::vector<typename decltype(read(value))::value_type> out;
    for (const auto& item : items) {
      TIDEMARK_TRY(parsed, read(item));
      out.push_back(std::move(parsed));
    }
    return out;
  }

  // GPU 0 when a step does not name one.
  static IntField zero_field(const Value& value) { return IntField{*Expression::parse("0"), value.where}; }

 private:
  const yaml::Reader& read_;
  const Declared& declared_;
};

// The top-level sections that configure the run: target, knobs, kernel, kmd, kgsl, tracing, buffers.
class SectionReader {
 public:
  explicit SectionReader(const ValueReader& values) : values_(values), read_(values.read()) {}
  Result<std::map<std::string, int64_t>> knobs(const Value& value) const;
  // `target:` and `kernel:` set their fields of the session the file configures.
  Status target(const Value& value, api::SessionConfig& session) const;
  Status kernel(const Value& value, api::ModelConfig& model) const;
  Result<kernel::KmdConfig> kmd(const Value& value) const;
  Result<kernel::KgslConfig> kgsl(const Value& value) const;
  Result<tracer::MemorySource> tracing(const Value& value) const;
  Result<api::LayerConfig> layer(const Value& value) const;
  // The buffer names, each also added to `declared.buffer_set` as it is read.
  Result<std::vector<std::string>> buffers(const Value& value, Declared& declared) const;

 private:
  const ValueReader& values_;
  const yaml::Reader& read_;
};

// The scenario's own GPU counters (the counters: section).
class CounterReader {
 public:
  explicit CounterReader(const ValueReader& values) : values_(values), read_(values.read()) {}
  Result<CounterSection> section(const Value& value) const;

 private:
  Result<std::vector<uint32_t>> ids(const Value& value, std::string_view what) const;
  template <class T>
  Result<std::vector<T>> names(const Value& value, std::string_view list, std::string_view what,
                               std::optional<T> (*parse)(std::string_view)) const;
  Result<std::vector<tracer::MeasureUnit>> units(const Value& value) const;
  Result<tracer::CounterSpec> counter_spec(const Value& value) const;
  template <class KnownIds>
  Status selection(const Value& value, const tracer::CounterDescriptor& d, KnownIds known_ids) const;

  const ValueReader& values_;
  const yaml::Reader& read_;
};

// The workload: a list of steps, each a row of the step registry (scenario/steps.h) and its reader.
class StepReader {
 public:
  StepReader(const ValueReader& values, Declared& declared)
      : values_(values), read_(values.read()), declared_(declared) {}
  Result<std::vector<Step>> steps(const Value& value, std::string_view context);
  // The backend calls `steps` make, repeats expanded, within kMaxWorkloadCalls.
  static Result<int64_t> within_call_budget(const std::vector<Step>& steps);

 private:
  using Read = Result<StepKind> (StepReader::*)(const Value&);
  struct StepSchema {
    std::string_view name;
    Read read;
  };
  static std::span<const StepSchema> step_schemas();
  static std::vector<std::string_view> step_names();

  Result<Step> step(const Value& item);
  Result<Step> repeat(const Value& item);
  Result<StepKind> buffer_data(const Value& value);
  Result<StepKind> buffer_sub_data(const Value& value);
  Result<StepKind> draw(const Value& value);
  Result<Band> band(const Value& value) const;
  Result<StepKind> fence(const Value& value);
  Result<StepKind> client_wait(const Value& value);
  Result<StepKind> gpumem_walk(const Value& value);
  Result<StepKind> kmd_submit(const Value& value);
  Result<StepKind> kmd_fault(const Value& value);
  Status submit_faults(const Fields& entries, kernel::SubmitFaults& faults) const;
  Result<std::vector<kernel::Command>> commands(const Value& value) const;
  Result<uint64_t> command_arg(const Value& value) const;
  Result<StepKind> kmd_advance(const Value& value);
  Result<StepKind> kmd_wait(const Value& value);
  Result<StepKind> kmd_signal(const Value& value);
  Result<StepKind> kmd_diagnose(const Value& value);
  Result<StepKind> kgsl_sample(const Value& value);
  Result<StepKind> kgsl_power(const Value& value);
  Result<StepKind> kgsl_read(const Value& value);
  Result<StepKind> counter_sample(const Value& value);
  Result<std::string> result_name(const Value& value, std::string_view what);
  template <class Kind>
  Result<StepKind> no_fields(const Value& value);
  // A step that is one call with its arguments: generated (calls/step_readers.h).
  template <class Kind>
  Result<StepKind> plain(const Value& value);

  const ValueReader& values_;
  const yaml::Reader& read_;
  Declared& declared_;
  int64_t written_steps_ = 0;
  std::string_view step_name_;  // the step being read
};

// expect: what the run must show, each check where the file wrote it.
class CheckReader {
 public:
  explicit CheckReader(const ValueReader& values)
      : values_(values), read_(values.read()), declared_(values.declared()) {}
  Status expect(const Value& value, Scenario& scenario) const;

 private:
  // A row of the check registry (scenario/check_kinds.h): the key it is written under, its reader.
  using ReadCheck = Status (CheckReader::*)(const Value&, Scenario&) const;
  struct CheckSchema {
    CheckKind kind;
    std::string_view key;  // empty: not written under expect (waits)
    ReadCheck read;
    // The reader as the registry spells it ("nullptr": none): what the compile-time checks
    // compare, since GCC does not compare member pointers in a constant expression at -O0.
    std::string_view reader_name;
  };
  static std::span<const CheckSchema> check_schemas();
  static std::vector<std::string_view> expect_keys();
  // The order expect's keys are read in: which error a file with two of them shows.
  static constexpr std::string_view kReadOrder[] = {"observed", "reconcile", "trace",  "kernel",
                                                    "kmd",      "kgsl",      "gauges", "pixels"};
  static constexpr bool read_in_order(std::span<const CheckSchema> schemas);

  Status reconcile(const Value& value, Scenario& scenario) const;
  Status observed(const Value& value, Scenario& scenario) const;
  Status trace_checks(const Value& value, Scenario& scenario) const;
  Status diagnoses(const Value& value, Scenario& scenario) const;
  Status kgsl_reads(const Value& value, Scenario& scenario) const;
  Status gauges(const Value& value, Scenario& scenario) const;
  Status pixel_checks(const Value& value, Scenario& scenario) const;
  template <class Check, class Read>
  Result<std::vector<Check>> named_checks(const Value& value, std::string_view what, Read read) const;
  Result<TraceCheck> trace_check(const Value& value) const;
  Result<std::vector<TraceRow>> trace_rows(const Value& value) const;
  Result<std::vector<TraceRow>> rows_from_text(const Value& where, const std::string& text) const;
  Status diagnosis_fields(DiagnosisCheck& check, const Value& value) const;
  Result<GaugeCheck> gauge(const Value& value) const;
  Result<PixelCheck> pixels(const Value& item) const;
  Result<PixelCheck> bands(const Value& value, const SourceLocation& where) const;
  Result<PixelCheck> probe(const Value& value, const SourceLocation& where) const;
  Result<PixelCheck> golden(const Value& value, const SourceLocation& where) const;
  Status kernel_checks(const Value& value, Scenario& scenario) const;
  Result<KernelNodeCheck> kernel_node(const Value& value) const;
  Status each_check_once(const Scenario& scenario, const std::vector<Value>& pixel_values) const;

  // How a key that names a file beside the scenario words its errors.
  struct FileRule {
    std::string_view name;     // what the value is, e.g. "a text file name"
    std::string_view inside;   // e.g. "a file inside the scenario's folder"
    std::string_view missing;  // e.g. "an existing file (looked for {})", {} the path looked for
    std::string_view file;     // what a folder or a device is not, e.g. "a file"
  };
  // The file `value` names, inside the scenario's folder, existing, and a file (not a folder).
  Result<std::filesystem::path> file_beside(const Value& value, const FileRule& rule) const;
  Result<std::string> text_file(const Value& value) const;
  Result<std::filesystem::path> golden_file(const Value& value) const;

  const ValueReader& values_;
  const yaml::Reader& read_;
  const Declared& declared_;
};

// controls: the red-once controls, each naming checks of this scenario that it must turn red.
class ControlReader {
 public:
  explicit ControlReader(const ValueReader& values) : values_(values), read_(values.read()) {}
  Result<std::vector<Control>> controls(const Value& value, const Scenario& scenario) const;
  // unproven: backend -> why no control proves the checks there; each a backend the scenario lists
  // on which none of its controls applies.
  Result<std::map<std::string, std::string>> unproven(const Value& value, const Scenario& scenario) const;

 private:
  Result<Control> control(const Value& value, const Scenario& scenario) const;
  Result<std::vector<CheckId>> check_references(const Value& value, const Scenario& scenario) const;
  Result<std::map<std::string, std::string>> skip_lanes(const Value& value) const;
  Result<std::vector<std::string>> backends(const Value& value, const Scenario& scenario) const;

  const ValueReader& values_;
  const yaml::Reader& read_;
};

}  // namespace tidemark::scenario::schema
