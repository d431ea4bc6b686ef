#include "session/session.h"

#include <fmt/format.h>
#include <optional>

#include "observe/crash_notes.h"
#include "drivers/driver_builds.h"
#include "host/host_thread.h"
#include "host/layer_sink.h"
#include "host/model_host.h"
#include "layer/link.h"
#include "layer/settings.h"
#include "renderer/renderer_server.h"
#include "renderer/renderer_session.h"

namespace tidemark::session {

namespace {

// The layer's faults come from the session's mutants (layer.hold_frees, layer.real_completion,
// layer.shadow_copies) and knobs (layer_never_done, layer_fail_allocation, layer_exit_at_call, layer_crash_at_call,
// layer_device_lost_at, layer_hang_at_call, layer_drop_draw).
TidemarkLayerSettings layer_settings(const api::LayerConfig& config, MutantId mutant, const KnobValues& knobs) {
  TidemarkLayerSettings settings{};
  settings.completion = config.completion == Completion::Real || mutant_is(mutant, MutantId::LayerRealCompletion)
                            ? TIDEMARK_COMPLETION_REAL
                            : TIDEMARK_COMPLETION_DETERMINISTIC;
  settings.hold_frees = mutant_is(mutant, MutantId::LayerHoldFrees);
  settings.shadow_copies = mutant_is(mutant, MutantId::LayerShadowCopies);
  auto knob = [&](const char* name) {
    auto found = knobs.find(name);
    return found == knobs.end() ? int64_t{0} : found->second;
  };
  settings.never_done = knob("layer_never_done") != 0;
  settings.fail_allocation = static_cast<uint64_t>(knob("layer_fail_allocation"));
  settings.exit_at_call = static_cast<uint64_t>(knob("layer_exit_at_call"));
  settings.crash_at_call = static_cast<uint64_t>(knob("layer_crash_at_call"));
  settings.device_lost_at = static_cast<uint64_t>(knob("layer_device_lost_at"));
  settings.hang_at_call = static_cast<uint64_t>(knob("layer_hang_at_call"));
  settings.drop_draw = static_cast<uint64_t>(knob("layer_drop_draw"));
  settings.first_device_only = knob("layer_faults_first_device") != 0;
  return settings;
}

// A run on a named driver build (tidemark --driver) holds its driver to the build's identity
// before the first step, with the libraries this process mapped. A backend that is the whole
// driver reads every field itself; for the others a probe of the build's GL and Vulkan in this
// process reads it, and the device's own Vulkan driver, where it has one, stands for the probe's.
// The probe runs before the device is made and once a process (its build is the process's): a
// GL context made after another backend's would share that one's display, and its driver.
Result<std::optional<api::Device::Identity>> probe_build(const api::BackendEntry& entry,
                                                         const api::BackendRegistry& backends) {
  TIDEMARK_TRY(build, drivers::active_build());
  if (!build || entry.whole_driver || !backends.identity_probe) return std::optional<api::Device::Identity>();
  static const Result<api::Device::Identity> probed = backends.identity_probe();
  if (!probed) return std::unexpected(probed.error());
  return std::optional(*probed);
}

Status hold_to_build(const api::BackendEntry& entry, const std::optional<api::Device::Identity>& probe,
                     const api::Device& device, const api::DeviceContext& context) {
  const auto& log = context.log;
  TIDEMARK_TRY(build, drivers::active_build());
  if (!build) return {};
  const api::Device::Identity own = device.identity();
  drivers::Reported reported{.reader = fmt::format("the {} backend", entry.name),
                             .gl_version = own.gl_version,
                             .gl_renderer = own.gl_renderer,
                             .vulkan_driver = own.vulkan_driver,
                             .mapped = mapped_files(),
                             .loaded_whole_driver = true};
  if (!context.server.empty()) reported.reader += fmt::format(" and the layer beneath its server, {}", context.server);
  if (probe) {
    reported.gl_version = probe->gl_version;
    reported.gl_renderer = probe->gl_renderer;
    if (!own.vulkan_driver) reported.vulkan_driver = probe->vulkan_driver;
    reported.reader += " and a probe of the build's GL and Vulkan";
  }
  TIDEMARK_CHECK(drivers::check_identity(*build, reported));
  if (log) log(fmt::format("{}: driver build '{}' as named", entry.name, build->name));
  return {};
}

// A session's device beside its model host. Members in the order they must die: the device
// reports to the host as it dies, the server it talked to ends once its client has gone, and
// the layer is detached after the device is gone.
class LocalSession final : public api::Session {
 public:
  api::Device& device() override { return *device_; }
  api::Model& model() override { return *host_; }
  const KnobValues& knobs() const override { return knobs_; }

  std::unique_ptr<host::HostThread> host_;   // the oracle, off the device's call path
  std::unique_ptr<TidemarkLayerSink> sink_;  // the layer's view of the host (with the layer on)
  std::unique_ptr<layer::Attachment> layer_;
  std::unique_ptr<renderer::RendererSession> server_;
  std::unique_ptr<api::Device> device_;
  KnobValues knobs_;
};

std::unexpected<api::OpenError> refused(Error error) {
  return std::unexpected(api::OpenError{.error = std::move(error), .config_refused = true});
}

}  // namespace

Status check_server_fits(const api::SessionConfig& config, const api::BackendEntry& entry, bool server) {
  const auto exit_at = config.knobs.find("layer_exit_at_call");
  if (!server && exit_at != config.knobs.end() && exit_at->second != 0)
    return fail(ErrorKind::BadInput,
                "--knob layer_exit_at_call: expected a driver build with a server (it ends the process beneath "
                "whose driver the layer is: only a server is a process of its own), found none");
  if (!server) return {};
  // Only a backend that runs the build's whole driver runs its client, whose server has the layer.
  if (!entry.whole_driver || !(config.layer.on || entry.needs_layer))
    return fail(ErrorKind::BadInput, fmt::format("backend '{}' does not run a driver build's client with the layer "
                                                 "beneath its driver: a build with a server runs on gl or gl-native",
                                                 config.backend));
  return renderer::RendererSession::room_for_sockets();
}

Result<ResolvedConfig> resolve_config(const api::SessionConfig& config, const api::BackendRegistry& backends,
                                      std::string_view source) {
  TIDEMARK_TRY(knobs, resolve_knobs({{&config.knobs, std::string(source)}}));
  const std::optional<MutantId> mutant = find_mutant(config.mutant);
  if (!mutant)
    return fail(ErrorKind::BadInput, fmt::format("mutant '{}' is not in this server's catalogue", config.mutant));
  TIDEMARK_TRY(entry, backends.lookup(config.backend));
  return ResolvedConfig{.config = config, .backend = entry, .mutant = *mutant, .knobs = std::move(knobs)};
}

api::OpenResult open_session(const api::SessionConfig& config, const api::BackendRegistry& backends,
                             std::function<void(const std::string&)> log) {
  auto resolved = resolve_config(config, backends, "handshake");
  if (!resolved) return refused(resolved.error());
  return open_session(*resolved, backends, std::move(log));
}

api::OpenResult open_session(const ResolvedConfig& resolved, const api::BackendRegistry& backends,
                             std::function<void(const std::string&)> log) {
  const api::SessionConfig& config = resolved.config;
  const api::BackendEntry& entry = *resolved.backend;
  const MutantId mutant = resolved.mutant;
  const KnobValues& knobs = resolved.knobs;
  auto failed = [](Error error) { return std::unexpected(api::OpenError{.error = std::move(error)}); };

  auto session = std::make_unique<LocalSession>();
  const bool layer_on = config.layer.on || entry.needs_layer;
  using Layer = host::ModelHost::Layer;
  const Layer layer = !layer_on ? Layer::Off : entry.reports_itself ? Layer::Counts : Layer::Reports;
  session->host_ = std::make_unique<host::HostThread>(std::make_unique<host::ModelHost>(config.model, mutant, layer));
  session->knobs_ = knobs;
  api::DeviceContext context{.knobs = knobs, .mutant = mutant, .log = std::move(log)};
  if (layer_on) {
    auto library = layer::Library::open();
    if (!library) return failed(library.error());
    session->sink_ = std::make_unique<TidemarkLayerSink>(host::layer_sink(*session->host_, entry.reports_itself));
    // For the parent of an isolated run, whose child may die after its device is lost.
    session->sink_->device_lost = [](void*, uint32_t call, uint64_t submit_or_wait) {
      crash_notes::note_device_lost(call, submit_or_wait);
    };
    // A layer in this process never ends it: layer_exit_at_call is for a server's layer.
    TidemarkLayerSettings own = layer_settings(config.layer, mutant, knobs);
    own.exit_at_call = 0;
    // An isolated subject's calls are watched by its parent's bounds (core/time_bounds.h).
    if (crash_notes::Notes* notes = crash_notes::armed(); notes && library->activity) library->activity(&notes->layer);
    session->layer_ = std::make_unique<layer::Attachment>(std::move(*library), session->sink_.get(), own);
    auto observed = [attachment = session->layer_.get()] { return layer::to_observed(attachment->gauges()); };
    session->host_->observe_from(observed);
    context.layer = true;
    context.observed = observed;
    context.vulkan_driver = [attachment = session->layer_.get()] { return attachment->driver(); };
  }
  context.events = session->host_.get();
  auto server = renderer::active_server();
  if (!server) return failed(server.error());
  if (auto fits = check_server_fits(config, entry, server->has_value()); !fits) return refused(fits.error());
  if (*server) {
    auto started = renderer::RendererSession::start(**server, layer_settings(config.layer, mutant, knobs),
                                                    *session->host_, context.log);
    if (!started) return failed(started.error());
    session->server_ = std::move(*started);
    session->server_->report_to(*session->host_);
    context.observed = [server = &session->server_->server()] { return server->status().gauges; };
    context.vulkan_driver = [server = &session->server_->server()] { return server->status().driver; };
    context.server = session->server_->described();
  }
  auto probe = probe_build(entry, backends);
  if (!probe) return failed(probe.error());
  auto device = entry.make(config, context);
  if (!device) return failed(device.error());
  if (auto held = hold_to_build(entry, *probe, **device, context); !held) return failed(held.error());
  session->device_ = std::move(*device);
  return std::unique_ptr<api::Session>(std::move(session));
}

api::SessionFactory session_factory(const api::BackendRegistry& backends) {
  return [&backends](const api::SessionConfig& config, std::function<void(const std::string&)> log) {
    return open_session(config, backends, std::move(log));
  };
}

}  // namespace tidemark::session
