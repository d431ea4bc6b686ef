#include "api/registry.h"

#include <fmt/format.h>

#include <algorithm>

namespace tidemark::api {

bool BackendEntry::gives(GaugeKind kind) const { return std::find(gauges.begin(), gauges.end(), kind) != gauges.end(); }

std::string BackendEntry::gauge_kinds() const {
  std::string text;
  for (GaugeKind kind : gauges)
    text += (text.empty() ? "" : ", ") + std::string(kGaugeKindNames[static_cast<size_t>(kind)]);
  return text;
}

BackendRegistry& BackendRegistry::add(BackendEntry entry) {
  entries_.push_back(std::move(entry));
  return *this;
}

const BackendEntry* BackendRegistry::find(std::string_view name) const {
  auto found = std::find_if(entries_.begin(), entries_.end(), [&](const BackendEntry& e) { return e.name == name; });
  return found == entries_.end() ? nullptr : &*found;
}

Result<const BackendEntry*> BackendRegistry::lookup(std::string_view name) const {
  if (const auto* entry = find(name)) return entry;
  std::string known;
  for (const auto& entry : entries_) known += (known.empty() ? "" : ", ") + entry.name;
  return fail(ErrorKind::BadInput, fmt::format("expected a backend ({}), found '{}'", known, name));
}

}  // namespace tidemark::api
