// The schema of the counters: section: the scenario's own GPU counter descriptor, the GPUs it
// streams for, and the selection a session would send.
#include <fmt/format.h>

#include <algorithm>

#include "scenario/schema_reader.h"

namespace tidemark::scenario::schema {

namespace {

using yaml::error_at;
using yaml::join;
using yaml::quote;

std::string join_ids(const std::map<uint32_t, std::string>& declared) {
  std::vector<std::string> out;
  for (const auto& [id, name] : declared) out.push_back(fmt::format("{} {}", id, name));
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

Result<std::vector<uint32_t>> CounterReader::ids(const Value& value, std::string_view what) const {
  TIDEMARK_TRY(items, read_.list(value, what));
  std::vector<uint32_t> out;
  for (const auto& item : items) {
    TIDEMARK_TRY(id, values_.id32(item));
    out.push_back(id);
  }
  return out;
}

// A list of names, each read by `parse` (a name -> optional value), or an error naming `what`.
template <class T>
Result<std::vector<T>> CounterReader::names(const Value& value, std::string_view list, std::string_view what,
                                            std::optional<T> (*parse)(std::string_view)) const {
  TIDEMARK_TRY(items, read_.list(value, list));
  std::vector<T> out;
  for (const auto& item : items) {
    TIDEMARK_TRY(name, read_.text(item, what));
    auto parsed = parse(name);
    if (!parsed) return error_at(item.where, what, quote(name));
    out.push_back(*parsed);
  }
  return out;
}

Result<std::vector<tracer::MeasureUnit>> CounterReader::units(const Value& value) const {
  return names<tracer::MeasureUnit>(value, "a list of units",
                                    "a unit such as byte, second, pixel, percent (MeasureUnit, lower case)",
                                    tracer::parse_measure_unit);
}

Result<tracer::CounterSpec> CounterReader::counter_spec(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "counter spec",
                                     {"id", "name", "description", "units", "per", "groups", "peak", "direction",
                                      "select_by_default"}));
  tracer::CounterSpec spec;
  uint32_t id = 0;
  TIDEMARK_CHECK(yaml::required(entries, "id", id, [&](const Value& v) { return values_.id32(v); }));
  spec.counter_id = id;
  std::string name;
  TIDEMARK_CHECK(
      yaml::required(entries, "name", name, [&](const Value& v) { return read_.text(v, "a counter name"); }));
  spec.name = name;
  TIDEMARK_CHECK(yaml::optional(entries, "description", spec.description,
                                [&](const Value& v) { return read_.text(v, "a description"); }));
  TIDEMARK_CHECK(yaml::optional(entries, "units", spec.numerator_units, [&](const Value& v) { return units(v); }));
  TIDEMARK_CHECK(yaml::optional(entries, "per", spec.denominator_units, [&](const Value& v) { return units(v); }));
  TIDEMARK_CHECK(yaml::optional(entries, "groups", spec.groups, [&](const Value& v) {
    return names<tracer::CounterGroup>(
        v, "a list of groups",
        "a group (unclassified, system, vertices, fragments, primitives, memory, compute, ray_tracing)",
        tracer::parse_counter_group);
  }));
  if (auto peak = entries.optional("peak")) {
    const std::string& text = peak->node.IsScalar() ? peak->node.Scalar() : std::string();
    if (text.find('.') == std::string::npos) {
      TIDEMARK_TRY(whole, read_.integer(*peak, yaml::kNoMin, yaml::kNoMax));
      spec.peak = whole;
    } else {
      TIDEMARK_TRY(decimal, values_.number(*peak));
      spec.peak = decimal;
    }
  }
  TIDEMARK_CHECK(
      yaml::optional(entries, "direction", spec.direction, [&](const Value& v) -> Result<tracer::ValueDirection> {
        TIDEMARK_TRY(word, read_.text(v, "backwards or forwards"));
        if (word == "backwards") return tracer::ValueDirection::Backwards;
        if (word == "forwards") return tracer::ValueDirection::Forwards;
        return error_at(v.where, "backwards or forwards", quote(word));
      }));
  TIDEMARK_CHECK(yaml::optional(entries, "select_by_default", spec.select_by_default,
                                [&](const Value& v) { return read_.boolean(v); }));
  return spec;
}

Result<CounterSection> CounterReader::section(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "counters",
                                     {"specs", "blocks", "period", "instrumented", "gpus", "interned", "select"}));
  CounterSection section;
  auto& d = section.descriptor;
  TIDEMARK_CHECK(yaml::required(entries, "specs", d.specs, [&](const Value& v) {
    return values_.each(v, "a list of counter specs such as '- {id: 1, name: Load, units: [percent]}'",
                        [&](const Value& item) { return counter_spec(item); });
  }));
  std::map<uint32_t, std::string> declared;
  for (size_t k = 0; k < d.specs.size(); ++k)
    if (!declared.emplace(*d.specs[k].counter_id, *d.specs[k].name).second)
      return error_at(entries.find("specs")->value.where, "counter ids declared once",
                      fmt::format("id {} again", *d.specs[k].counter_id));
  auto known_ids = [&](const Value& v, std::string_view what) -> Result<std::vector<uint32_t>> {
    TIDEMARK_TRY(list, ids(v, what));
    for (uint32_t id : list)
      if (!declared.contains(id))
        return error_at(v.where, fmt::format("counter ids the specs declare ({})", join_ids(declared)),
                        fmt::format("{}", id));
    return list;
  };
  TIDEMARK_CHECK(yaml::optional(entries, "blocks", d.blocks, [&](const Value& v) {
    return values_.each(
        v, "a list of blocks such as '- {id: 1, name: shader, capacity: 2, counters: [1, 2]}'",
        [&](const Value& item) -> Result<tracer::CounterBlock> {
          TIDEMARK_TRY(fields, read_.fields(item, "block", {"id", "name", "description", "capacity", "counters"}));
          tracer::CounterBlock block;
          TIDEMARK_CHECK(yaml::required(fields, "id", block.block_id, [&](const Value& x) { return values_.id32(x); }));
          TIDEMARK_CHECK(yaml::optional(fields, "name", block.name,
                                        [&](const Value& x) { return read_.text(x, "a block name"); }));
          TIDEMARK_CHECK(yaml::optional(fields, "description", block.description,
                                        [&](const Value& x) { return read_.text(x, "a description"); }));
          TIDEMARK_CHECK(yaml::optional(fields, "capacity", block.capacity, [&](const Value& x) -> Result<uint32_t> {
            TIDEMARK_TRY(number, read_.integer(x, 1, 0xffffffff));
            return static_cast<uint32_t>(number);
          }));
          TIDEMARK_CHECK(yaml::required(fields, "counters", block.counter_ids,
                                        [&](const Value& x) { return known_ids(x, "a list of counter ids"); }));
          return block;
        });
  }));
  if (auto period = entries.optional("period")) {
    TIDEMARK_TRY(range, read_.fields(*period, "period", {"min", "max"}));
    auto time = [&](const Value& v) { return values_.timeout_ns(v); };
    TIDEMARK_CHECK(yaml::optional(range, "min", d.min_sampling_period_ns, time));
    TIDEMARK_CHECK(yaml::optional(range, "max", d.max_sampling_period_ns, time));
  }
  TIDEMARK_CHECK(yaml::optional(entries, "instrumented", d.supports_instrumented_sampling,
                                [&](const Value& v) { return read_.boolean(v); }));
  TIDEMARK_CHECK(yaml::optional(entries, "gpus", section.gpus, [&](const Value& v) -> Result<std::vector<uint32_t>> {
    TIDEMARK_TRY(list, ids(v, "a list of GPU ids"));
    if (list.empty()) return error_at(v.where, "at least one GPU", "an empty list");
    return list;
  }));
  TIDEMARK_CHECK(
      yaml::optional(entries, "interned", section.interned, [&](const Value& v) { return read_.boolean(v); }));
  if (!section.interned && section.gpus.size() > 1)
    return error_at(entries.find("gpus")->key_where, "one GPU for an inline descriptor (interned: true for several)",
                    fmt::format("{} GPUs", section.gpus.size()));
  if (auto select = entries.optional("select")) TIDEMARK_CHECK(selection(*select, d, known_ids));
  return section;
}

// The gpu.counters config a session would send: its counters fit each block's capacity, its
// period lies in the descriptor's range, instrumented sampling only where supported.
template <class KnownIds>
Status CounterReader::selection(const Value& value, const tracer::CounterDescriptor& d, KnownIds known_ids) const {
  TIDEMARK_TRY(entries, read_.fields(value, "select", {"counters", "period", "instrumented"}));
  std::vector<uint32_t> chosen;
  TIDEMARK_CHECK(yaml::required(entries, "counters", chosen,
                                [&](const Value& v) { return known_ids(v, "a list of counter ids"); }));
  const Value& where = entries.find("counters")->value;
  for (const auto& block : d.blocks) {
    if (!block.capacity) continue;
    std::vector<uint32_t> in_block;
    for (uint32_t id : chosen)
      if (std::find(block.counter_ids.begin(), block.counter_ids.end(), id) != block.counter_ids.end())
        in_block.push_back(id);
    if (in_block.size() > *block.capacity)
      return error_at(where.where,
                      fmt::format("at most {} counters of block {} '{}' (its capacity)", *block.capacity,
                                  block.block_id, block.name),
                      fmt::format("{} ({})", in_block.size(), fmt::join(in_block, ", ")));
  }
  if (auto period = entries.optional("period")) {
    TIDEMARK_TRY(ns, values_.timeout_ns(*period));
    uint64_t low = d.min_sampling_period_ns.value_or(0), high = d.max_sampling_period_ns.value_or(UINT64_MAX);
    if (ns < low || ns > high)
      return error_at(period->where,
                      fmt::format("a sampling period from {} ns to {} ns (the descriptor's range)", low,
                                  high == UINT64_MAX ? std::string("no limit") : std::to_string(high)),
                      fmt::format("{} ns", ns));
  }
  if (auto instrumented = entries.optional("instrumented")) {
    TIDEMARK_TRY(on, read_.boolean(*instrumented));
    if (on && !d.supports_instrumented_sampling)
      return error_at(instrumented->where,
                      "instrumented: false (the descriptor does not support instrumented sampling)", "true");
  }
  return {};
}

}  // namespace tidemark::scenario::schema
