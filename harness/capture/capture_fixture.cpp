#include "capture/capture_fixture.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <fstream>

#include "core/files.h"
#include "core/limits.h"
#include "drivers/driver_builds.h"
#include "layer/settings.h"
#include "scenario/yaml_reader.h"

namespace tidemark::capture {

namespace fs = std::filesystem;

std::string_view kind_name(CaptureKind kind) { return kind == CaptureKind::Apitrace ? "apitrace" : "gfxreconstruct"; }

bool is_capture_fixture(const fs::path& file) { return file.filename().string().ends_with(kCaptureSuffix); }

Status check_fixture_name(std::string_view name, std::string_view option) {
  auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool kebab = !name.empty() && name.size() <= kMaxNameLength && word(name.front()) && word(name.back());
  for (size_t i = 1; kebab && i < name.size(); ++i) kebab = word(name[i]) || (name[i] == '-' && name[i - 1] != '-');
  if (kebab) return {};
  return fail(ErrorKind::BadInput, fmt::format("{}: expected a name in kebab case ([a-z0-9]+(-[a-z0-9]+)*) of at most "
                                               "{} characters, found '{}'",
                                               option, kMaxNameLength, name.substr(0, kMaxNameLength)));
}

std::string backend_of(const CaptureFixture& fixture) {
  return fixture.kind == CaptureKind::Apitrace ? "gl" : "vulkan";
}

std::string check_id(size_t index) { return fmt::format("gauge[{}]", index); }
std::string legacy_check_id(size_t index) { return fmt::format("check[{}]", index); }

std::vector<std::string> CaptureFixture::checks() const {
  std::vector<std::string> out;
  for (const auto* list : {&bounds.each, &bounds.whole})
    for (const auto& check : *list) out.push_back(check.expr.text());
  return out;
}

Result<SplitInputs> split_inputs(const std::vector<std::string>& inputs) {
  SplitInputs split;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      if (is_capture_fixture(input))
        split.captures.emplace_back(input);
      else
        split.scenarios.push_back(input);
      continue;
    }
    std::vector<fs::path> captures;
    bool scenarios = false;
    for (fs::recursive_directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      if (is_capture_fixture(it->path()))
        captures.push_back(it->path());
      else if (it->path().extension() == ".yaml" || it->path().extension() == ".yml")
        scenarios = true;
    }
    if (ec) return fail(ErrorKind::Io, fmt::format("cannot read {}: {}", input, ec.message()));
    std::sort(captures.begin(), captures.end());
    split.captures.insert(split.captures.end(), captures.begin(), captures.end());
    if (scenarios || captures.empty()) split.scenarios.push_back(input);
  }
  return split;
}

namespace {

namespace yaml = scenario::yaml;

Result<std::vector<Control>> controls_of(yaml::Reader& read, const yaml::Value& list, const CaptureFixture& fixture) {
  TIDEMARK_TRY(items, read.non_empty_list(list,
                                          "a list of controls, each a fault or a driver build and the checks "
                                          "it fails"));
  const std::vector<std::string> checks = fixture.checks();
  std::vector<Control> controls;
  for (const auto& item : items) {
    TIDEMARK_TRY(fields, read.fields(item, "a control", {"fault", "build", "replay", "fails"}));
    Control control{.where = item.where};
    const auto fault = fields.optional("fault");
    const auto build = fields.optional("build");
    const auto replay = fields.optional("replay");
    const int kinds = int{fault.has_value()} + int{build.has_value()} + int{replay.has_value()};
    if (kinds != 1)
      return yaml::error_at(item.where,
                            "a control with one of fault (a layer fault), build (a driver build) or replay (setup)",
                            kinds == 0 ? "none" : "more than one");
    if (replay) {
      TIDEMARK_TRY(text, read.text(*replay, "setup (the capture's setup calls alone)"));
      if (text != kSetupCut) return yaml::error_at(replay->where, "setup", yaml::quote(text));
      if (fixture.kind != CaptureKind::Apitrace)
        return yaml::error_at(replay->where, "replay: setup on an apitrace capture (a GFXReconstruct one has no cut)",
                              "a GFXReconstruct capture");
      control.cut = text;
    } else if (fault) {
      TIDEMARK_TRY(
          text, read.text(*fault, "a fault of the layer: hold_frees, never_done, shadow_copies or fail_allocation=N"));
      if (auto parsed = layer::parse_settings(text);
          !parsed || text.find(',') != std::string::npos || text.starts_with("completion"))
        return yaml::error_at(fault->where,
                              "one fault of the layer: hold_frees, never_done, shadow_copies or fail_allocation=N",
                              yaml::quote(text));
      control.fault = text;
    } else {
      TIDEMARK_TRY(text, read.text(*build, "a driver build's name, as the drivers file names it"));
      if (!drivers::valid_build_name(text))
        return yaml::error_at(build->where, "a driver build's name of lower-case letters, digits and '.-+_'",
                              yaml::quote(text));
      control.build = text;
    }
    TIDEMARK_TRY(fails, fields.required("fails"));
    TIDEMARK_TRY(named, read.non_empty_list(fails, "the checks the fault makes red (as written), or replay"));
    for (const auto& each : named) {
      TIDEMARK_TRY(check, read.text(each, "a check as written, or replay"));
      if (check != kReplayFails && std::find(checks.begin(), checks.end(), check) == checks.end())
        return yaml::error_at(each.where, fmt::format("a check of the fixture ({}) or replay", fmt::join(checks, "; ")),
                              yaml::quote(check));
      control.fails.push_back(check);
    }
    controls.push_back(std::move(control));
  }
  return controls;
}

// A capture must be one its replayer reads: apitrace's files start with the compression they
// use ("at" for snappy, the gzip magic for the older ones), GFXReconstruct's with "GFXR". Bytes
// that are neither would replay no call and hold every upper bound.
Status check_capture_format(const CaptureFixture& fixture, const SourceLocation& where) {
  std::ifstream in(fixture.capture, std::ios::binary);
  std::array<char, 4> head{};
  in.read(head.data(), head.size());
  const std::string_view start(head.data(), static_cast<size_t>(in.gcount()));
  const bool readable = fixture.kind == CaptureKind::Apitrace ? start.starts_with("at") || start.starts_with("\x1f\x8b")
                                                              : start == "GFXR";
  if (readable) return {};
  std::string shown;
  for (unsigned char c : start) shown += fmt::format("{:02x}", c);
  return yaml::error_at(where,
                        fixture.kind == CaptureKind::Apitrace ? "an apitrace capture (starting 'at' or gzip's 1f8b)"
                                                              : "a GFXReconstruct capture (starting 'GFXR')",
                        fmt::format("{} starting {}", fixture.capture.string(), shown.empty() ? "empty" : shown));
}

}  // namespace

Result<CaptureFixture> load_capture_fixture(const fs::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "capture fixture"));
  yaml::Source source(file.string(), text);
  const SourceLocation start{source.file(), 1, 1};
  TIDEMARK_TRY(root, source.one_document());
  if (!root.IsDefined() || root.IsNull())
    return yaml::error_at(start, "a capture fixture (name, group, capture, expect)", "an empty file");
  yaml::Reader read(source);
  TIDEMARK_TRY(
      top, read.fields(source.value(root, start), "a capture fixture",
                       {"name", "group", "capture", "expect", "whole", "controls", "timeout", "inactivity_timeout"}));
  CaptureFixture fixture;
  fixture.file = fs::absolute(file).lexically_normal();
  TIDEMARK_TRY(name, top.required("name"));
  TIDEMARK_TRY(kebab, read.kebab_name(name));
  fixture.name = kebab;
  TIDEMARK_TRY(group, top.required("group"));
  TIDEMARK_TRY(group_name, read.kebab_name(group));
  fixture.group = group_name;
  TIDEMARK_TRY(capture, top.required("capture"));
  TIDEMARK_TRY(capture_name, read.text(capture, "the capture's file, beside this one (.trace or .gfxr)"));
  fixture.capture = (fixture.file.parent_path() / capture_name).lexically_normal();
  const std::string extension = fixture.capture.extension().string();
  if (extension == ".trace")
    fixture.kind = CaptureKind::Apitrace;
  else if (extension == ".gfxr")
    fixture.kind = CaptureKind::Gfxr;
  else
    return yaml::error_at(capture.where, "an apitrace (.trace) or GFXReconstruct (.gfxr) capture",
                          yaml::quote(capture_name));
  std::error_code ec;
  if (!fs::is_regular_file(fixture.capture, ec))
    return yaml::error_at(capture.where, "a capture file beside the fixture",
                          fmt::format("none at {}", fixture.capture.string()));
  TIDEMARK_CHECK(check_capture_format(fixture, capture.where));
  TIDEMARK_TRY(bounds, scenario::read_gauge_bounds(read, source, top, start));
  fixture.bounds = std::move(bounds);
  if (auto controls = top.optional("controls")) {
    TIDEMARK_TRY(read_controls, controls_of(read, *controls, fixture));
    fixture.controls = std::move(read_controls);
  }
  TIDEMARK_TRY(time_bounds, yaml::time_bounds(read, top));
  fixture.time_bounds = time_bounds;
  return fixture;
}

std::string fixture_text(const FixtureDocument& document) {
  std::string text;
  for (const auto& line : document.comment) text += fmt::format("# {}\n", line);
  text += fmt::format("name: {}\ngroup: {}\ncapture: {}\n", document.name, document.group, document.capture);
  for (const auto& [key, checks] : {std::pair{"expect", &document.expect}, std::pair{"whole", &document.whole}}) {
    if (checks->empty()) continue;
    text += fmt::format("{}:\n", key);
    for (const auto& check : *checks) text += fmt::format("  - {}\n", check);
  }
  if (!document.controls.empty()) text += "controls:\n";
  for (const auto& control : document.controls) {
    const auto [key, value] = !control.fault.empty()   ? std::pair{"fault", control.fault}
                              : !control.build.empty() ? std::pair{"build", control.build}
                                                       : std::pair{"replay", control.cut};
    text += fmt::format("  - {}: {}\n    fails: [{}]\n", key, value, fmt::join(control.fails, ", "));
  }
  return text;
}

Result<Inputs> load_inputs(const std::vector<std::string>& paths) {
  TIDEMARK_TRY(split, split_inputs(paths));
  Inputs inputs{.scenarios = std::move(split.scenarios), .captures = {}};
  for (const auto& file : split.captures) {
    TIDEMARK_TRY(fixture, load_capture_fixture(file));
    inputs.captures.push_back(std::move(fixture));
  }
  return inputs;
}

Replayer replayer_for(const CaptureFixture& fixture) {
  if (fixture.kind == CaptureKind::Apitrace)
    // eglretrace on Zink over lavapipe, surfaceless: no window, one driver thread, no shader cache.
    return {.command = {"eglretrace", "--headless", fixture.capture.string()},
            .environment = {{"WAFFLE_PLATFORM", "surfaceless_egl"},
                            {"LIBGL_ALWAYS_SOFTWARE", "1"},
                            {"GALLIUM_DRIVER", "zink"},
                            {"GALLIUM_THREAD", "0"},
                            {"LP_NUM_THREADS", "0"},
                            {"MESA_SHADER_CACHE_DISABLE", "true"}}};
  // lavapipe lacks VK_EXT_headless_surface: what the capture asks for that it lacks is left out.
  return {.command = {"gfxrecon-replay", "--remove-unsupported", fixture.capture.string()},
          .environment = {{"LP_NUM_THREADS", "0"}}};
}

}  // namespace tidemark::capture
