#include "session/session.h"

#include <fmt/format.h>


namespace tidemark::session {

Result<std::unique_ptr<LocalSession>> LocalSession::open(const api::SessionConfig& config,
                                                         const api::BackendRegistry& registry,
                                                         api::DeviceContext context) {
  TIDEMARK_TRY(entry, registry.lookup(config.backend));
  for (GaugeKind kind : config.gauges)
    if (!entry->gives(kind))
      return fail(ErrorKind::BadInput, fmt::format("the {} backend gives no {} gauges, and the session reads them",
                                                   entry->name, kGaugeKindNames[static_cast<size_t>(kind)]));
  std::unique_ptr<LocalSession> session(new LocalSession());
  session->host_ = std::make_unique<host::ModelHost>(config.model, context.mutant);
  session->knobs_ = context.knobs;
  context.events = session->host_.get();
  TIDEMARK_TRY(device, entry->make(config, context));
  session->device_ = std::move(device);
  return session;
}

}  // namespace tidemark::session
