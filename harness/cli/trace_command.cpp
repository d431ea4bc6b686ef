// `tidemark trace FILE`: a Perfetto trace's tracks and rows as the importer (Trace Processor's
// rules) sees them.
#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "cli/commands.h"
#include "core/files.h"
#include "tracer/importer.h"

namespace tidemark::cli {

int trace_command(const std::string& file) {
  auto bytes = read_given_file(file, "trace", kMaxTraceBytes);
  if (!bytes) return report_error(bytes.error());
  tracer::ImportedTrace trace = tracer::import_trace(*bytes);
  fmt::print("{}", tracer::describe(trace));
  if (trace.stats.malformed > 0)
    return report_error({ErrorKind::BadInput, fmt::format("{}: {} malformed packets (the rest is listed above)", file,
                                                          trace.stats.malformed)});
  return kGreen;
}

}  // namespace tidemark::cli
