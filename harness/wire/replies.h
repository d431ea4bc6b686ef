// How a call's value travels when its reply is not one field of the value's own type: the
// server makes the reply (reply_of), the client reads the value back (value_of). The generated
// dispatch and stubs (api/calls.yaml) call these; a call whose pair is missing fails to compile.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "wire/messages.h"

namespace tidemark::wire {

template <class T>
using As = std::type_identity<T>;

inline Pixels reply_of(Image image) {
  return Pixels{.width = image.width, .height = image.height, .bytes = std::move(image.pixels)};
}
inline Image value_of(Pixels reply, As<Image>) { return Image{reply.width, reply.height, std::move(reply.bytes)}; }

inline GaugeValues reply_of(const Gauges& gauges) { return GaugeValues{.values = named(gauges)}; }
inline GaugeValues reply_of(const KernelGauges& gauges) { return GaugeValues{.values = named(gauges)}; }
inline GaugeValues reply_of(const ObservedGauges& gauges) { return GaugeValues{.values = named(gauges)}; }
inline GaugeValues reply_of(NamedGauges gauges) { return GaugeValues{.values = std::move(gauges)}; }
inline Gauges value_of(GaugeValues reply, As<Gauges>) { return from_named({reply.values.begin(), reply.values.end()}); }
inline KernelGauges value_of(GaugeValues reply, As<KernelGauges>) {
  return kernel_from_named({reply.values.begin(), reply.values.end()});
}
inline ObservedGauges value_of(GaugeValues reply, As<ObservedGauges>) {
  return observed_from_named({reply.values.begin(), reply.values.end()});
}
inline NamedGauges value_of(GaugeValues reply, As<NamedGauges>) { return std::move(reply.values); }

inline Text reply_of(const std::string& text) { return Text{.present = true, .text = {text.begin(), text.end()}}; }
inline Text reply_of(const std::optional<std::string>& text) {
  if (!text) return Text{.present = false, .text = {}};
  return reply_of(*text);
}
inline std::string value_of(Text reply, As<std::string>) { return {reply.text.begin(), reply.text.end()}; }
inline std::optional<std::string> value_of(Text reply, As<std::optional<std::string>>) {
  if (!reply.present) return std::nullopt;
  return std::string(reply.text.begin(), reply.text.end());
}

// A view of the server's trace: no copy on its way out (the client copies it from its frame).
inline TraceBytes reply_of(std::string_view trace) {
  return TraceBytes{.bytes = Bytes(reinterpret_cast<const uint8_t*>(trace.data()), trace.size())};
}

}  // namespace tidemark::wire
