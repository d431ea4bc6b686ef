#include "capture/trace_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <optional>

#include "core/files.h"
#include "core/process.h"

namespace tidemark::capture {

namespace fs = std::filesystem;

namespace {

// A line "N function(..." of the dump: its call; anything else none.
std::optional<TraceCall> call_of(std::string_view line) {
  uint32_t number = 0;
  const auto [digits_end, error] = std::from_chars(line.data(), line.data() + line.size(), number);
  if (error != std::errc() || digits_end == line.data()) return std::nullopt;
  std::string_view rest(digits_end, static_cast<size_t>(line.data() + line.size() - digits_end));
  if (!rest.starts_with(' ')) return std::nullopt;
  rest.remove_prefix(1);
  const size_t paren = rest.find('(');
  if (paren == 0 || paren == std::string_view::npos) return std::nullopt;
  const std::string_view function = rest.substr(0, paren);
  if (!std::all_of(function.begin(), function.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return std::nullopt;
  return TraceCall{number, std::string(function)};
}

// Numbers only grow: a line of a string argument that happens to look like a call is not one.
void add_call(std::vector<TraceCall>& calls, std::string_view line) {
  if (auto call = call_of(line); call && (calls.empty() || call->number > calls.back().number))
    calls.push_back(std::move(*call));
}

}  // namespace

std::vector<TraceCall> parse_dump(std::string_view dump) {
  std::vector<TraceCall> calls;
  for (size_t at = 0; at < dump.size();) {
    const size_t end = std::min(dump.find('\n', at), dump.size());
    add_call(calls, dump.substr(at, end - at));
    at = end + 1;
  }
  return calls;
}

Result<std::vector<TraceCall>> list_calls(const fs::path& trace, const fs::path& dump_file) {
  TIDEMARK_TRY(code, run_to_file({"apitrace", "dump", "--verbose", "--multiline=no", "--arg-names=no", "--color=never",
                                  trace.string()},
                                 {}, dump_file, " (install apitrace)"));
  // Read a line at a time: a long capture's dump is far larger than its list of calls.
  std::ifstream in(dump_file);
  if (!in) return fail(ErrorKind::Io, fmt::format("cannot read {}", dump_file.string()));
  std::vector<TraceCall> calls;
  std::string line, first;
  while (std::getline(in, line)) {
    if (first.empty()) first = line;
    add_call(calls, line);
  }
  if (code != 0)
    return fail(ErrorKind::BadInput, fmt::format("{}: apitrace dump exited {} ({})", trace.string(), code, first));
  if (calls.empty())
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected an apitrace capture's calls, found none", trace.string()));
  return calls;
}

namespace {

bool starts_with_any(std::string_view function, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return function.starts_with(p); });
}

bool is_swap(std::string_view f) {
  return f == "eglSwapBuffers" || f.starts_with("eglSwapBuffersWithDamage") || f == "glXSwapBuffers" ||
         f == "wglSwapBuffers";
}
bool is_map(std::string_view f) { return f.starts_with("glMapBuffer") || f.starts_with("glMapNamedBuffer"); }
bool is_unmap(std::string_view f) { return f.starts_with("glUnmapBuffer") || f.starts_with("glUnmapNamedBuffer"); }
// What a mapping's unit holds between map and unmap besides removable calls: the writes through it.
bool is_mapped_write(std::string_view f) {
  return f == "memcpy" || f.starts_with("glFlushMappedBufferRange") || f.starts_with("glFlushMappedNamedBufferRange");
}

}  // namespace

bool removable_call(std::string_view f) {
  static constexpr std::array kExact = {"glBufferData",
                                        "glBufferDataARB",
                                        "glBufferSubData",
                                        "glBufferSubDataARB",
                                        "glNamedBufferData",
                                        "glNamedBufferDataEXT",
                                        "glNamedBufferSubData",
                                        "glNamedBufferSubDataEXT",
                                        "glCopyBufferSubData",
                                        "glCopyNamedBufferSubData",
                                        "glClearBufferData",
                                        "glClearBufferSubData",
                                        "glInvalidateBufferData",
                                        "glInvalidateBufferSubData",
                                        "glClear",
                                        "glClearBufferiv",
                                        "glClearBufferuiv",
                                        "glClearBufferfv",
                                        "glClearBufferfi",
                                        "glClearTexImage",
                                        "glClearTexSubImage",
                                        "glInvalidateFramebuffer",
                                        "glInvalidateSubFramebuffer",
                                        "glDiscardFramebufferEXT",
                                        "glFinish",
                                        "glFlush",
                                        "glClientWaitSync",
                                        "glWaitSync",
                                        "glMemoryBarrier",
                                        "glMemoryBarrierByRegion",
                                        "glTextureBarrier",
                                        "glReadPixels",
                                        "glReadnPixels",
                                        "glGetBufferSubData",
                                        "glGetTexImage",
                                        "glBlitFramebuffer"};
  if (std::find(kExact.begin(), kExact.end(), f) != kExact.end()) return true;
  return is_swap(f) ||
         starts_with_any(f, {"glDraw", "glMultiDraw", "glDispatchCompute", "glTexSubImage", "glTextureSubImage",
                             "glCompressedTexSubImage", "glCompressedTextureSubImage", "glClearNamedFramebuffer"});
}

Units split_units(const std::vector<TraceCall>& calls) {
  Units units;
  units.frames.emplace_back();
  auto add_unit = [&](std::vector<uint32_t> unit) {
    units.frames.back().push_back(units.removable.size());
    units.removable.push_back(std::move(unit));
  };
  for (size_t k = 0; k < calls.size(); ++k) {
    const TraceCall& call = calls[k];
    if (is_map(call.function)) {
      // A mapping is one unit when only its writes and removable calls lie before its unmap.
      size_t end = k + 1;
      while (end < calls.size() && !is_unmap(calls[end].function) &&
             (is_mapped_write(calls[end].function) || removable_call(calls[end].function)) &&
             !is_swap(calls[end].function))
        ++end;
      if (end < calls.size() && is_unmap(calls[end].function)) {
        std::vector<uint32_t> unit;
        for (size_t j = k; j <= end; ++j) unit.push_back(calls[j].number);
        add_unit(std::move(unit));
        k = end;
        continue;
      }
    }
    if (removable_call(call.function))
      add_unit({call.number});
    else
      units.setup.push_back(call.number);
    if (is_swap(call.function)) units.frames.emplace_back();
  }
  if (units.frames.back().empty() && units.frames.size() > 1) units.frames.pop_back();
  return units;
}

std::string call_set(const std::vector<uint32_t>& numbers) {
  std::string out;
  for (size_t k = 0; k < numbers.size();) {
    size_t last = k;
    while (last + 1 < numbers.size() && numbers[last + 1] == numbers[last] + 1) ++last;
    if (!out.empty()) out += ',';
    out += last == k ? fmt::format("{}", numbers[k]) : fmt::format("{}-{}", numbers[k], numbers[last]);
    k = last + 1;
  }
  return out;
}

std::vector<uint32_t> calls_of(const Units& units, const std::vector<size_t>& chosen) {
  std::vector<uint32_t> out = units.setup;
  for (size_t index : chosen) out.insert(out.end(), units.removable[index].begin(), units.removable[index].end());
  std::sort(out.begin(), out.end());
  return out;
}

Status trim_capture(const fs::path& trace, const std::vector<uint32_t>& numbers, const fs::path& out) {
  const fs::path set_file = fs::path(out).replace_extension(".calls");
  TIDEMARK_CHECK(write_file_atomically(set_file, call_set(numbers) + "\n"));
  const fs::path log = fs::path(out).replace_extension(".trim.log");
  TIDEMARK_TRY(
      code, run_to_file({"apitrace", "trim", "--calls=@" + set_file.string(), "-o", out.string(), trace.string()}, {},
                        log, " (install apitrace)"));
  if (code != 0) {
    auto said = read_given_file(log, "apitrace trim's output");
    return fail(ErrorKind::Environment,
                fmt::format("apitrace trim of {} exited {}: {}", trace.string(), code,
                            said ? said->substr(0, said->find('\n')) : std::string("(no output)")));
  }
  return {};
}

}  // namespace tidemark::capture
