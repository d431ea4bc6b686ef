// The scenario schema: what each key of a scenario file means and which values it takes.
// This file reads the top-level map; each family of keys has its reader (schema_reader.h).
#include "scenario/schema.h"

#include "scenario/schema_reader.h"

namespace tidemark::scenario {

namespace fs = std::filesystem;
using yaml::Value;

Result<Scenario> read_scenario(const yaml::Source& source, const Value& root, const fs::path& file) {
  using namespace schema;
  if (root.node.IsNull())
    return yaml::error_at(root.where, "a scenario map (name, group, workload, expect, ...)", "an empty document");
  yaml::Reader read(source);
  TIDEMARK_TRY(top, read.fields(root, "the scenario",
                                {"name", "group", "description", "knobs", "target", "kernel", "kmd", "kgsl", "tracing",
                                 "layer", "backends", "counters", "buffers", "workload", "expect", "controls",
                                 "unproven", "timeout", "inactivity_timeout"}));
  Scenario scenario;
  scenario.file = file;
  Declared declared{.file = file, .session = &scenario.session};
  ValueReader values(read, declared);
  SectionReader sections(values);
  auto kebab = [&](const Value& v) { return read.kebab_name(v); };
  TIDEMARK_CHECK(yaml::required(top, "name", scenario.name, kebab));
  TIDEMARK_CHECK(yaml::required(top, "group", scenario.group, kebab));
  TIDEMARK_CHECK(yaml::optional(top, "description", scenario.description,
                                [&](const Value& v) { return read.text(v, "a description"); }));
  api::SessionConfig& session = scenario.session;
  TIDEMARK_CHECK(yaml::optional(top, "knobs", session.knobs, [&](const Value& v) { return sections.knobs(v); }));
  if (auto target = top.optional("target")) TIDEMARK_CHECK(sections.target(*target, session));
  if (auto kernel = top.optional("kernel")) TIDEMARK_CHECK(sections.kernel(*kernel, session.model));
  TIDEMARK_CHECK(yaml::optional(top, "kmd", session.model.kmd, [&](const Value& v) { return sections.kmd(v); }));
  TIDEMARK_CHECK(yaml::optional(top, "kgsl", session.model.kgsl, [&](const Value& v) { return sections.kgsl(v); }));
  scenario.written = {.kernel = top.optional("kernel").has_value(),
                      .kmd = top.optional("kmd").has_value(),
                      .kgsl = top.optional("kgsl").has_value()};
  TIDEMARK_CHECK(yaml::optional(top, "counters", scenario.counters,
                                [&](const Value& v) { return CounterReader(values).section(v); }));
  declared.counters = scenario.counters ? &*scenario.counters : nullptr;
  TIDEMARK_CHECK(
      yaml::optional(top, "tracing", session.model.trace_memory, [&](const Value& v) { return sections.tracing(v); }));
  TIDEMARK_CHECK(yaml::optional(top, "layer", session.layer, [&](const Value& v) { return sections.layer(v); }));
  if (auto listed = top.optional("backends")) {
    scenario.backends_where = listed->where;
    TIDEMARK_TRY(names, read.non_empty_list(*listed, "a list of backend names such as [vulkan, gl]"));
    for (const auto& name : names) {
      TIDEMARK_TRY(backend, read.kebab_name(name));
      scenario.backends.push_back(backend);
    }
  }
  TIDEMARK_CHECK(
      yaml::optional(top, "buffers", declared.buffers, [&](const Value& v) { return sections.buffers(v, declared); }));
  scenario.buffers = declared.buffers;
  TIDEMARK_CHECK(yaml::required(top, "workload", scenario.workload,
                                [&](const Value& v) { return StepReader(values, declared).steps(v, "workload"); }));
  if (auto calls = StepReader::within_call_budget(scenario.workload); !calls) return std::unexpected(calls.error());
  scenario.fences = declared.fences;
  TIDEMARK_TRY(expect_value, top.required("expect"));
  TIDEMARK_CHECK(CheckReader(values).expect(expect_value, scenario));
  // After expect wherever it sits in the file: a control names checks of this scenario.
  TIDEMARK_CHECK(yaml::optional(top, "controls", scenario.controls,
                                [&](const Value& v) { return ControlReader(values).controls(v, scenario); }));
  TIDEMARK_CHECK(yaml::optional(top, "unproven", scenario.unproven,
                                [&](const Value& v) { return ControlReader(values).unproven(v, scenario); }));
  TIDEMARK_TRY(bounds, yaml::time_bounds(read, top));
  scenario.time_bounds = bounds;
  return scenario;
}

}  // namespace tidemark::scenario
