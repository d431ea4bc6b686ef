// GPU memory types as the per-process views classify them (the sysfs proposal): what a
// device reports an allocation as, and what the kernel model's views count it under.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace tidemark {

enum class MemoryType { Unknown, Shader, Command, Vulkan, GlTexture, GlBuffer, Query, Descriptor, Transient };
inline constexpr std::array<std::string_view, 9> kMemoryTypeNames = {
    "UNKNOWN", "SHADER", "COMMAND", "VULKAN", "GL_TEXTURE", "GL_BUFFER", "QUERY", "DESCRIPTOR", "TRANSIENT"};
std::string_view to_string(MemoryType type);
std::optional<MemoryType> parse_memory_type(std::string_view name);

}  // namespace tidemark
