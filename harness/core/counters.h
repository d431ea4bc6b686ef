// GPU counter descriptors as the `gpu.counters` data source declares them: specs (id, name,
// units, groups, peak), blocks with capacities, the sampling-period range. Field numbers and
// enum values: ../shared/specs/perfetto.md. Shared by the writer, the importer, scenarios and
// the client API (a scenario's own counter stream), so they live in core/, in the tracer's namespace.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tidemark::tracer {

// MeasureUnit, by its proto value (NONE = 0 ... INSTRUCTION = 40).
using MeasureUnit = uint32_t;
inline constexpr MeasureUnit kMaxMeasureUnit = 40;
// The importer's abbreviation of a unit ("B", "Hz", "s", "Pixel", "%"); "" for NONE or unknown.
std::string_view unit_abbreviation(MeasureUnit unit);
// The proto enum name in lower case ("byte", "second", "pixel"), for scenarios; nullopt if unknown.
std::optional<MeasureUnit> parse_measure_unit(std::string_view name);
std::string_view measure_unit_name(MeasureUnit unit);
// Numerators joined by ':', then '/' and the denominators joined by ':' (NONE skipped): "Vertex/s".
std::string unit_string(const std::vector<MeasureUnit>& numerator, const std::vector<MeasureUnit>& denominator);

// GpuCounterGroup, by its proto value (UNCLASSIFIED 0 ... RAY_TRACING 7).
using CounterGroup = uint32_t;
inline constexpr CounterGroup kMaxCounterGroup = 7;
std::optional<CounterGroup> parse_counter_group(std::string_view name);

// How Trace Processor reads a sample: backwards-looking (the default) writes it into the
// previous row; forward-looking pushes it at its own timestamp.
enum class ValueDirection : uint32_t { Unspecified = 0, Backwards = 1, Forwards = 2 };

struct CounterSpec {
  std::optional<uint32_t> counter_id;  // optional as on the wire: a spec without one is rejected
  std::optional<std::string> name;
  std::string description;
  std::variant<std::monostate, int64_t, double> peak;
  std::vector<MeasureUnit> numerator_units;
  std::vector<MeasureUnit> denominator_units;
  bool select_by_default = false;
  std::vector<CounterGroup> groups;
  ValueDirection direction = ValueDirection::Unspecified;
  static auto fields(auto& m) {
    return std::tie(m.counter_id, m.name, m.description, m.peak, m.numerator_units, m.denominator_units,
                    m.select_by_default, m.groups, m.direction);
  }
  bool operator==(const CounterSpec&) const = default;
};

struct CounterBlock {
  uint32_t block_id = 0;
  std::optional<uint32_t> capacity;  // unset: no limit
  std::string name;
  std::string description;
  std::vector<uint32_t> counter_ids;
  static auto fields(auto& m) { return std::tie(m.block_id, m.capacity, m.name, m.description, m.counter_ids); }
  bool operator==(const CounterBlock&) const = default;
};

struct CounterDescriptor {
  std::vector<CounterSpec> specs;
  std::vector<CounterBlock> blocks;
  std::optional<uint64_t> min_sampling_period_ns;
  std::optional<uint64_t> max_sampling_period_ns;
  bool supports_instrumented_sampling = false;
  static auto fields(auto& m) {
    return std::tie(m.specs, m.blocks, m.min_sampling_period_ns, m.max_sampling_period_ns,
                    m.supports_instrumented_sampling);
  }
  bool operator==(const CounterDescriptor&) const = default;
};

// One sample of one counter: an int or a double value.
struct CounterSample {
  uint32_t counter_id = 0;
  std::variant<int64_t, double> value;
  static auto fields(auto& m) { return std::tie(m.counter_id, m.value); }
  bool operator==(const CounterSample&) const = default;
};

// A scenario's own counter stream in the run trace: its descriptor, inline on GPU 0's sequence
// (mode 1) or interned on each GPU's sequence (mode 2); and one moment's samples on a GPU.
struct CounterStreamOp {
  CounterDescriptor descriptor;
  std::vector<uint32_t> gpus;  // mode 2: one sequence per GPU
  bool interned = false;
  static auto fields(auto& m) { return std::tie(m.descriptor, m.gpus, m.interned); }
};
struct CounterSampleOp {
  uint64_t ts = 0;
  uint32_t gpu = 0;
  std::vector<CounterSample> samples;
  static auto fields(auto& m) { return std::tie(m.ts, m.gpu, m.samples); }
};
using TraceOp = std::variant<CounterStreamOp, CounterSampleOp>;

}  // namespace tidemark::tracer
