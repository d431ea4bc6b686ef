#version 450
// A rectangle of the target, given in pixels, drawn as a 4-vertex triangle strip.
// The vertex stream holds one float2 pixel offset per instance, read from a wire store so
// that draws really depend on it.
layout(push_constant) uniform Rect {
  ivec4 pixels;   // x0, y0, x1, y1 (exclusive)
  ivec2 target;   // width, height
} rect;

layout(location = 0) in vec2 offset_pixels;

void main() {
  int corner = gl_VertexIndex;
  vec2 p = vec2((corner & 1) != 0 ? rect.pixels.z : rect.pixels.x,
                (corner & 2) != 0 ? rect.pixels.w : rect.pixels.y);
  p += offset_pixels;
  gl_Position = vec4(p / vec2(rect.target) * 2.0 - 1.0, 0.0, 1.0);
}
