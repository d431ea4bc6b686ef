// The schema of expect: the checks a run must pass (gauges, pixels, trace tracks, the kernel
// model's dump and nodes, kmd diagnoses, kgsl reads, reconcile), and the files they name.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <type_traits>
#include <variant>

#include "core/gauges.h"
#include "core/files.h"
#include "scenario/schema_reader.h"

namespace tidemark::scenario::schema {

namespace fs = std::filesystem;
using yaml::error_at;
using yaml::join;
using yaml::quote;

// Every row with a key has a reader, rows sharing a key share it, kReadOrder reads each key
// once, and waits (no key) has none.
constexpr bool CheckReader::read_in_order(std::span<const CheckSchema> schemas) {
  auto read_once = [](std::string_view key) {
    return std::count(std::begin(kReadOrder), std::end(kReadOrder), key) == 1;
  };
  for (const auto& schema : schemas) {
    bool has_reader = schema.reader_name != "nullptr";
    if (schema.key.empty() == has_reader || (!schema.key.empty() && !read_once(schema.key))) return false;
    for (const auto& other : schemas)
      if (other.key == schema.key && other.reader_name != schema.reader_name) return false;
  }
  for (std::string_view key : kReadOrder)
    if (std::none_of(schemas.begin(), schemas.end(), [&](const CheckSchema& s) { return s.key == key; })) return false;
  return true;
}

// The registry's rows (scenario/check_kinds.h), each with the reader of its expect: key; a
// row naming no reader fails to compile.
std::span<const CheckReader::CheckSchema> CheckReader::check_schemas() {
#define TIDEMARK_CHECK_SCHEMA(kind, name, indexed, key, reader, ...) CheckSchema{CheckKind::kind, key, reader, #reader},
  static constexpr CheckSchema kChecks[] = {TIDEMARK_SCENARIO_CHECKS(TIDEMARK_CHECK_SCHEMA)};
#undef TIDEMARK_CHECK_SCHEMA
  static_assert(read_in_order(kChecks), "every key of the registry is read once, in kReadOrder, by one reader");
  return kChecks;
}

// Each key once, as the registry orders them: what `expect:` may hold.
std::vector<std::string_view> CheckReader::expect_keys() {
  std::vector<std::string_view> keys;
  for (const auto& schema : check_schemas())
    if (!schema.key.empty() && !yaml::contains(keys, schema.key)) keys.push_back(schema.key);
  return keys;
}

Status CheckReader::expect(const Value& value, Scenario& scenario) const {
  TIDEMARK_TRY(entries, read_.fields(value, "expect", expect_keys()));
  for (std::string_view key : kReadOrder) {
    auto written = entries.optional(key);
    if (!written) continue;
    const auto& schemas = check_schemas();
    auto schema = std::find_if(schemas.begin(), schemas.end(), [&](const CheckSchema& s) { return s.key == key; });
    TIDEMARK_CHECK((this->*schema->read)(*written, scenario));
  }
  if (scenario.checks().empty())
    return error_at(value.where, "at least one check (gauges, pixels, or a client_wait's expect)", "none");
  std::vector<Value> pixel_values;
  if (auto pixels = entries.optional("pixels")) {
    TIDEMARK_TRY(items, read_.list(*pixels, "a list of pixel checks"));
    pixel_values = std::move(items);
  }
  return each_check_once(scenario, pixel_values);
}

Status CheckReader::reconcile(const Value& value, Scenario& scenario) const {
  TIDEMARK_TRY(on, read_.boolean(value));
  if (!on) return error_at(value.where, "true (or no reconcile key)", "false");
  if (!scenario.session.model.kernel_reports)
    return error_at(value.where, "a kernel the backend reports to (kernel.reports: true) to reconcile",
                    "kernel.reports: false");
  if (scenario.session.model.trace_memory != tracer::MemorySource::Both)
    return error_at(value.where,
                    "a trace of the GPU memory snapshot and every change (tracing.gpu_memory: both) to reconcile",
                    fmt::format("gpu_memory: {}",
                                tracer::kMemorySourceNames[static_cast<size_t>(scenario.session.model.trace_memory)]));
  scenario.expect.reconcile = value.where;
  return {};
}

Status CheckReader::observed(const Value& value, Scenario& scenario) const {
  TIDEMARK_TRY(on, read_.boolean(value));
  if (!on) return error_at(value.where, "true (or no observed key)", "false");
  if (!scenario.session.layer.on)
    return error_at(value.where, "the layer beneath the backend (layer: true) to compare with", "no layer key");
  scenario.expect.observed = value.where;
  return {};
}

namespace {

// The checks of one kind a reader read, into the scenario; or its error.
template <class Checks>
Status assign(Checks& out, Result<Checks> read) {
  if (!read) return std::unexpected(std::move(read.error()));
  out = std::move(*read);
  return {};
}

}  // namespace

Status CheckReader::trace_checks(const Value& value, Scenario& scenario) const {
  return assign(scenario.expect.trace,
                values_.each(value, "a list of trace checks such as '- {track: Parked bytes (gpu 0), last: 0}'",
                             [&](const Value& item) { return trace_check(item); }));
}

Status CheckReader::diagnoses(const Value& value, Scenario& scenario) const {
  return assign(scenario.expect.kmd,
                named_checks<DiagnosisCheck>(
                    value, "diagnoses by name, such as 'stuck: {scene: stuck_command}'",
                    [&](DiagnosisCheck& check, const Value& fields) { return diagnosis_fields(check, fields); }));
}

Status CheckReader::kgsl_reads(const Value& value, Scenario& scenario) const {
  return assign(scenario.expect.kgsl,
                named_checks<KgslReadCheck>(value, "node reads by name, such as 'first: \"25\\n\"'",
                                            [&](KgslReadCheck& check, const Value& text) -> Status {
                                              TIDEMARK_TRY(read, read_.text(text, "the node's text"));
                                              check.text = std::move(read);
                                              return {};
                                            }));
}

Status CheckReader::gauges(const Value& value, Scenario& scenario) const {
  return assign(scenario.expect.gauges, values_.each(value, "a list of gauge comparisons", [&](const Value& item) {
    auto check = gauge(item);
    if (check && !scenario.session.layer.on)  // the layer's gauges exist only with the layer beneath
      for (const auto& name : check->expr.identifiers())
        if (is_observed_gauge(name))
          return Result<GaugeCheck>(
              error_at(read_.source().inside(item, yaml::word_offset(check->expr.text(), name)),
                       fmt::format("the layer beneath the backend (layer: true) to read {}", name), "no layer key"));
    return check;
  }));
}

Status CheckReader::pixel_checks(const Value& value, Scenario& scenario) const {
  return assign(scenario.expect.pixels, values_.each(value, "a list of pixel checks (bands, probe, golden)",
                                                     [&](const Value& item) { return pixels(item); }));
}

// A map of result names (each defined by a step) to what a check expects of them.
template <class Check, class Read>
Result<std::vector<Check>> CheckReader::named_checks(const Value& value, std::string_view what, Read read) const {
  if (!value.node.IsMap() || value.node.size() == 0)
    return error_at(value.where, fmt::format("a map of {}", what), yaml::describe(value.node));
  std::vector<std::string_view> defined(declared_.result_names.begin(), declared_.result_names.end());
  TIDEMARK_TRY(entries, read_.fields(value, what, defined));
  std::vector<Check> checks;
  for (const auto& entry : entries.entries()) {
    Check check;
    check.name = entry.key;
    check.where = entry.key_where;
    TIDEMARK_CHECK(read(check, entry.value));
    checks.push_back(std::move(check));
  }
  return checks;
}

Result<TraceCheck> CheckReader::trace_check(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "trace check",
                                     {"track", "rows", "rows_file", "count", "last", "absent", "unit", "flagged"}));
  TraceCheck check;
  check.where = value.where;
  TIDEMARK_CHECK(yaml::required(entries, "track", check.track, [&](const Value& v) {
    return read_.text(v, "a track label such as 'Parked bytes (gpu 0)'");
  }));
  if (entries.find("rows") && entries.find("rows_file"))
    return error_at(entries.find("rows_file")->key_where, "rows or rows_file", "both");
  TIDEMARK_CHECK(yaml::optional(entries, "rows", check.rows, [&](const Value& v) { return trace_rows(v); }));
  TIDEMARK_CHECK(yaml::optional(entries, "rows_file", check.rows, [&](const Value& v) -> Result<std::vector<TraceRow>> {
    TIDEMARK_TRY(text, text_file(v));
    return rows_from_text(v, text);
  }));
  TIDEMARK_CHECK(
      yaml::optional(entries, "count", check.count, [&](const Value& v) { return read_.integer(v, 0, yaml::kNoMax); }));
  TIDEMARK_CHECK(yaml::optional(entries, "last", check.last, [&](const Value& v) { return values_.number(v); }));
  TIDEMARK_CHECK(yaml::optional(entries, "absent", check.absent, [&](const Value& v) -> Result<bool> {
    TIDEMARK_TRY(on, read_.boolean(v));
    if (!on) return error_at(v.where, "true (or no absent key)", "false");
    return true;
  }));
  TIDEMARK_CHECK(yaml::optional(entries, "unit", check.unit,
                                [&](const Value& v) { return read_.text(v, "a unit string such as Pixel/s"); }));
  TIDEMARK_CHECK(yaml::optional(entries, "flagged", check.flagged, [&](const Value& v) { return read_.boolean(v); }));
  bool expects_rows = check.rows || check.count || check.last || check.unit || check.flagged;
  if (check.absent && expects_rows)
    return error_at(entries.find("absent")->key_where, "absent: true or expectations of rows", "both");
  if (!check.absent && !expects_rows)
    return error_at(value.where, "rows, rows_file, count, last or absent: true in a trace check", "none");
  return check;
}

// `[[17000, 0], [22000, 9437184]]`: timestamp and value pairs.
Result<std::vector<TraceRow>> CheckReader::trace_rows(const Value& value) const {
  constexpr std::string_view kWhat = "a row [timestamp, value]";
  TIDEMARK_TRY(items, read_.list(value, "a list of rows [timestamp, value]"));
  std::vector<TraceRow> rows;
  for (const auto& item : items) {
    TIDEMARK_TRY(pair, read_.list(item, kWhat));
    if (pair.size() != 2) return error_at(item.where, kWhat, fmt::format("{} entries", pair.size()));
    TIDEMARK_TRY(ts, read_.integer(pair[0], 0, yaml::kNoMax));
    TIDEMARK_TRY(row_value, values_.number(pair[1]));
    rows.push_back({static_cast<uint64_t>(ts), row_value});
  }
  return rows;
}

// A rows file: "timestamp value" per line, as `tidemark trace` prints a track's rows.
Result<std::vector<TraceRow>> CheckReader::rows_from_text(const Value& where, const std::string& text) const {
  std::vector<TraceRow> rows;
  size_t line_number = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++line_number;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    uint64_t ts = 0;
    double row_value = 0;
    auto [middle, ts_error] = std::from_chars(line.data(), line.data() + line.size(), ts);
    const char* rest = middle;
    while (rest < line.data() + line.size() && *rest == ' ') ++rest;
    auto [last, value_error] = std::from_chars(rest, line.data() + line.size(), row_value);
    if (ts_error != std::errc() || value_error != std::errc() || last != line.data() + line.size() || rest == middle)
      return error_at(where.where, fmt::format("lines 'timestamp value' in the rows file (line {})", line_number),
                      quote(std::string(line)));
    rows.push_back({ts, row_value});
  }
  return rows;
}

Status CheckReader::diagnosis_fields(DiagnosisCheck& check, const Value& value) const {
  std::vector<std::string_view> names(std::begin(kernel::kDiagnosisFields), std::end(kernel::kDiagnosisFields));
  TIDEMARK_TRY(entries, read_.fields(value, "a diagnosis", names));
  if (entries.entries().empty())
    return error_at(value.where, fmt::format("fields of a diagnosis ({})", join(names)), "none");
  for (const auto& entry : entries.entries()) {
    if (!entry.value.node.IsScalar())
      return error_at(entry.value.where, "a scalar such as stuck_command or 40", yaml::describe(entry.value.node));
    check.fields.emplace_back(entry.key, entry.value.node.Scalar());
  }
  return {};
}

Result<GaugeCheck> CheckReader::gauge(const Value& value) const {
  constexpr std::string_view kWhat = "a comparison such as 'wlivepk <= 4'";
  TIDEMARK_TRY(expression, read_.expression(value, kWhat));
  if (!expression.is_comparison()) return error_at(value.where, kWhat, quote(expression.text()));
  for (const auto& name : expression.identifiers()) {
    if (find_gauge(name) || is_kernel_gauge(name) || is_observed_gauge(name) || is_wire_gauge(name) || find_knob(name))
      continue;
    std::vector<std::string_view> readable;
    for (const auto& spec : kGauges) readable.push_back(spec.name);
    for (const auto& spec : kKernelGauges) readable.push_back(spec.name);
    for (const auto& spec : kObservedGauges) readable.push_back(spec.name);
    for (const auto& spec : kWireGauges) readable.push_back(spec.name);
    for (const auto& knob : known_knobs()) readable.push_back(knob.name);
    // 60-odd names: show the ones that share the found name's first letter.
    std::vector<std::string_view> alike;
    for (auto known : readable)
      if (known.front() == name.front()) alike.push_back(known);
    std::string listed = alike.empty() ? join(readable)
                                       : fmt::format("starting with '{}': {}; {} in all, see docs/gauges.md",
                                                     name.front(), join(alike), readable.size());
    return error_at(read_.source().inside(value, yaml::word_offset(expression.text(), name)),
                    fmt::format("a gauge or knob name ({})", listed), quote(name));
  }
  return GaugeCheck{std::move(expression), value.where};
}

// One of the registry's pixel checks (scenario/check_kinds.h), read by its reader.
Result<PixelCheck> CheckReader::pixels(const Value& item) const {
#define TIDEMARK_PIXEL_CHECK_ALTERNATIVE(type, ...) \
  static_assert(std::is_constructible_v<PixelCheck, type>, "a pixel check of the registry is a PixelCheck");
  TIDEMARK_PIXEL_CHECKS(TIDEMARK_PIXEL_CHECK_ALTERNATIVE)
#undef TIDEMARK_PIXEL_CHECK_ALTERNATIVE
  static_assert(std::size(kPixelCheckDocs) == std::variant_size_v<PixelCheck>, "every PixelCheck is registered");
  std::vector<std::string_view> names;
  for (const auto& doc : kPixelCheckDocs) names.push_back(doc.name);
  TIDEMARK_TRY(entry, read_.single_key(item, "a pixel check such as '- probe: {x: 0, y: 0, rgba: [0, 0, 0, 255]}'",
                                       "one key per pixel check", names));
#define TIDEMARK_PIXEL_CHECK_READ(type, name, reader, ...) \
  if (entry.key == name) return reader(entry.value, entry.key_where);
  TIDEMARK_PIXEL_CHECKS(TIDEMARK_PIXEL_CHECK_READ)
#undef TIDEMARK_PIXEL_CHECK_READ
  return error_at(entry.key_where, "a pixel check", quote(entry.key));  // unreachable: single_key checked the key
}

Result<PixelCheck> CheckReader::bands(const Value& value, const SourceLocation& where) const {
  TIDEMARK_TRY(entries, read_.fields(value, "bands", {"count", "palette", "colors", "tolerance"}));
  BandsCheck check;
  check.where = where;
  TIDEMARK_CHECK(yaml::required(entries, "count", check.count,
                                [&](const Value& v) { return read_.small_integer(v, 1, declared_.session->width); }));
  TIDEMARK_CHECK(yaml::optional(entries, "palette", check.palette, [&](const Value& v) { return read_.boolean(v); }));
  auto colors_value = entries.optional("colors");
  if (check.palette && colors_value) return error_at(colors_value->where, "either palette: true or colors", "both");
  if (!check.palette && !colors_value) return error_at(value.where, "palette: true or colors in bands", "neither");
  if (colors_value) {
    std::string what = fmt::format("a list of {} colours, one per band", check.count);
    TIDEMARK_TRY(colors, values_.each(*colors_value, what, [&](const Value& v) { return read_.rgba(v); }));
    if (colors.size() != static_cast<size_t>(check.count))
      return error_at(colors_value->where, what, fmt::format("a list of {}", colors.size()));
    check.colors = std::move(colors);
  }
  TIDEMARK_CHECK(yaml::optional(entries, "tolerance", check.tolerance, values_.tolerance()));
  return check;
}

Result<PixelCheck> CheckReader::probe(const Value& value, const SourceLocation& where) const {
  TIDEMARK_TRY(entries, read_.fields(value, "probe", {"x", "y", "rgba", "tolerance"}));
  ProbeCheck check;
  check.where = where;
  TIDEMARK_CHECK(yaml::required(
      entries, "x", check.x, [&](const Value& v) { return read_.small_integer(v, 0, declared_.session->width - 1); }));
  TIDEMARK_CHECK(yaml::required(
      entries, "y", check.y, [&](const Value& v) { return read_.small_integer(v, 0, declared_.session->height - 1); }));
  TIDEMARK_CHECK(yaml::required(entries, "rgba", check.rgba, [&](const Value& v) { return read_.rgba(v); }));
  TIDEMARK_CHECK(yaml::optional(entries, "tolerance", check.tolerance, values_.tolerance()));
  return check;
}

Result<PixelCheck> CheckReader::golden(const Value& value, const SourceLocation& where) const {
  TIDEMARK_TRY(entries, read_.fields(value, "golden", {"file", "tolerance", "max_mismatch", "ssim"}));
  GoldenCheck check;
  check.where = where;
  TIDEMARK_CHECK(yaml::optional(entries, "ssim", check.ssim, [&](const Value& v) -> Result<double> {
    TIDEMARK_TRY(least, values_.number(v));
    if (!(least > 0 && least <= 1))
      return error_at(v.where, "an SSIM above 0 and at most 1, such as 0.998", yaml::quote(v.node.Scalar()));
    // The window is 11x11 (check/ssim.h): a smaller target has no SSIM.
    if (declared_.session->width < 11 || declared_.session->height < 11)
      return error_at(v.where, "a target of at least 11x11 pixels for an SSIM",
                      yaml::quote(fmt::format("{}x{}", declared_.session->width, declared_.session->height)));
    return least;
  }));
  check.per_pixel = !check.ssim || entries.find("tolerance") || entries.find("max_mismatch");
  TIDEMARK_CHECK(yaml::required(entries, "file", check.file, [&](const Value& v) { return golden_file(v); }));
  TIDEMARK_CHECK(yaml::optional(entries, "tolerance", check.tolerance, values_.tolerance()));
  TIDEMARK_CHECK(yaml::optional(entries, "max_mismatch", check.max_mismatch, [&](const Value& v) {
    return read_.small_integer(v, 0, int64_t{declared_.session->width} * declared_.session->height);
  }));
  return check;
}

// expect: kernel: what the kernel model shows at the end of the workload.
Status CheckReader::kernel_checks(const Value& value, Scenario& scenario) const {
  TIDEMARK_TRY(entries, read_.fields(value, "kernel checks", {"dump", "dump_file", "dump_has", "dump_lacks", "nodes"}));
  if (entries.find("dump") && entries.find("dump_file"))
    return error_at(entries.find("dump_file")->key_where, "dump or dump_file", "both");
  bool any_dump =
      entries.find("dump") || entries.find("dump_file") || entries.find("dump_has") || entries.find("dump_lacks");
  if (any_dump) {
    KernelDumpCheck dump;
    dump.where = entries.entries().front().key_where;
    auto text = [&](const Value& v) { return read_.text(v, "the dump's text"); };
    TIDEMARK_CHECK(yaml::optional(entries, "dump", dump.text, text));
    TIDEMARK_CHECK(yaml::optional(entries, "dump_file", dump.text, [&](const Value& v) { return text_file(v); }));
    auto lines = [&](const Value& v) {
      return values_.each(v, "a list of lines",
                          [&](const Value& item) { return read_.text(item, "a line of the dump"); });
    };
    TIDEMARK_CHECK(yaml::optional(entries, "dump_has", dump.has, lines));
    TIDEMARK_CHECK(yaml::optional(entries, "dump_lacks", dump.lacks, lines));
    scenario.expect.dump = std::move(dump);
  }
  TIDEMARK_CHECK(yaml::optional(entries, "nodes", scenario.expect.nodes, [&](const Value& v) {
    return values_.each(v, "a list of per-type nodes such as '- {pid: 7, type: VULKAN, value: \"4096\"}'",
                        [&](const Value& item) { return kernel_node(item); });
  }));
  return {};
}

Result<KernelNodeCheck> CheckReader::kernel_node(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "node", {"pid", "type", "value", "absent"}));
  KernelNodeCheck check;
  check.where = value.where;
  TIDEMARK_CHECK(yaml::required(entries, "pid", check.pid, [&](const Value& v) { return values_.id32(v); }));
  TIDEMARK_CHECK(yaml::required(entries, "type", check.type, [&](const Value& v) { return values_.memory_type(v); }));
  bool absent = false;
  TIDEMARK_CHECK(yaml::optional(entries, "absent", absent, [&](const Value& v) { return read_.boolean(v); }));
  bool has_value = entries.find("value") != nullptr;
  if (!absent && !has_value) return error_at(value.where, "value: \"...\" or absent: true in a node", "neither");
  if (absent && has_value) return error_at(value.where, "value or absent: true in a node", "both");
  TIDEMARK_CHECK(yaml::optional(entries, "value", check.value,
                                [&](const Value& v) { return read_.text(v, "the node's text, e.g. \"4096,81920\""); }));
  return check;
}

// The file `value` names beside the scenario: inside the scenario's folder (or below it, so
// reports and fixtures can carry it; no scenario reads files elsewhere), existing, and a file,
// not a folder (reading one throws) nor a device or a pipe (reading one may never end).
Result<fs::path> CheckReader::file_beside(const Value& value, const FileRule& rule) const {
  TIDEMARK_TRY(name, read_.text(value, rule.name));
  fs::path relative = fs::path(name).lexically_normal();
  if (name.empty() || relative.is_absolute() || relative.empty() || *relative.begin() == "..")
    return error_at(value.where, rule.inside, quote(name));
  fs::path file = (declared_.file.parent_path() / relative).lexically_normal();
  std::error_code error;
  fs::file_status status = fs::status(file, error);
  if (fs::is_directory(status)) return error_at(value.where, rule.file, fmt::format("{}, a folder", quote(name)));
  if (fs::exists(status) && !fs::is_regular_file(status))
    return error_at(value.where, rule.file, fmt::format("{}, which is not a regular file", quote(name)));
  if (!fs::is_regular_file(status))
    return error_at(value.where, fmt::format(fmt::runtime(rule.missing), file.string()), quote(name));
  return file;
}

// A text file beside the scenario (an expected dump, a track's rows), read now.
Result<std::string> CheckReader::text_file(const Value& value) const {
  constexpr FileRule kText{"a text file name", "a file inside the scenario's folder",
                           "an existing file in the scenario's folder", "a file"};
  TIDEMARK_TRY(file, file_beside(value, kText));
  auto text = read_given_file(file, "text");
  if (!text)
    return error_at(value.where, "a text file of at most 16 MiB",
                    fmt::format("{} ({})", quote(value.node.Scalar()), text.error().message));
  return text;
}

// A golden is a PNG beside the scenario; decoding it is the check's job.
Result<fs::path> CheckReader::golden_file(const Value& value) const {
  constexpr FileRule kGolden{"an image file name", "a PNG file inside the scenario's folder",
                             "an existing file (looked for {})", "a PNG file"};
  TIDEMARK_TRY(file, file_beside(value, kGolden));
  constexpr std::array<char, 8> kPngSignature = {'\x89', 'P', 'N', 'G', '\r', '\n', '\x1a', '\n'};
  std::array<char, 8> start{};
  std::ifstream(file, std::ios::binary).read(start.data(), start.size());
  if (start != kPngSignature)
    return error_at(value.where, "a PNG file (one that starts with the PNG signature)",
                    fmt::format("{}, which does not", quote(value.node.Scalar())));
  return file;
}

// No check twice: a gauge comparison by its text (spaces ignored), a pixel check by its
// fields as written.
Status CheckReader::each_check_once(const Scenario& scenario, const std::vector<Value>& pixel_values) const {
  std::map<std::string, int> gauges;
  for (const auto& check : scenario.expect.gauges) {
    auto [first, added] = gauges.emplace(yaml::without_spaces(check.expr.text()), check.where.line);
    if (!added)
      return error_at(check.where, "each check once",
                      fmt::format("{} again (first on line {})", quote(check.expr.text()), first->second));
  }
  std::map<std::string, int> pixels;
  for (const auto& value : pixel_values) {
    auto [first, added] = pixels.emplace(YAML::Dump(value.node), value.where.line);
    if (!added)
      return error_at(value.where, "each check once",
                      fmt::format("the same pixel check again (first on line {})", first->second));
  }
  return {};
}

}  // namespace tidemark::scenario::schema
