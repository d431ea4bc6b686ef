#version 450
// The colour comes from the first word of the uniform store: RGBA8, R in the low byte.
layout(set = 0, binding = 0) uniform Colour {
  uint packed_rgba;
} colour;

layout(location = 0) out vec4 out_colour;

void main() {
  out_colour = unpackUnorm4x8(colour.packed_rgba);
}
