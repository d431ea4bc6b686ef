// A session's device beside its model host, both made from one SessionConfig: what the
// monolith lane calls directly and what the server runs behind the wire.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "api/device.h"
#include "api/model.h"
#include "api/registry.h"
#include "api/session_config.h"
#include "core/knobs.h"
#include "host/model_host.h"

struct TidemarkLayerSink;
namespace tidemark::layer {
class Attachment;
}

namespace tidemark::session {

class LocalSession {
 public:
  // `context` holds the config's knobs and mutant, resolved by the caller (who words their
  // errors); the device's events go to this session's host.
  ~LocalSession();
  static Result<std::unique_ptr<LocalSession>> open(const api::SessionConfig& config,
                                                    const api::BackendRegistry& registry, api::DeviceContext context);
  api::Device& device() { return *device_; }
  host::ModelHost& host() { return *host_; }
  const KnobValues& knobs() const { return knobs_; }

 private:
  LocalSession() = default;
  std::unique_ptr<host::ModelHost> host_;  // before the device: it reports to the host as it dies
  std::unique_ptr<TidemarkLayerSink> sink_;  // the layer's view of the host (with the layer on)
  std::unique_ptr<layer::Attachment> layer_;  // detached after the device is gone
  std::unique_ptr<api::Device> device_;
  KnobValues knobs_;
};

}  // namespace tidemark::session
