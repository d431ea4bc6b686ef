#include "backend_gl/gl_backend.h"

#include <GLES3/gl31.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "core/knobs.h"
#include "core/limits.h"
#include "drivers/driver_builds.h"

namespace tidemark::backend_gl {

namespace {

constexpr uint64_t kColourBytes = 4;  // one packed RGBA8 colour, R in the low byte
constexpr uint64_t kVertexBytes = 8;  // one float2 pixel offset

// The band: the rectangle in pixels as the vulkan backend draws it (rows top first, so the
// vertex shader flips y), offset by the float2 of the vertex store; the colour the first word
// of the uniform store.
constexpr const char* kVertexShader = R"(#version 310 es
uniform ivec4 rect_pixels;
uniform ivec2 target;
layout(location = 0) in vec2 offset_pixels;
void main() {
  int corner = gl_VertexID;
  vec2 p = vec2((corner & 1) != 0 ? float(rect_pixels.z) : float(rect_pixels.x),
                (corner & 2) != 0 ? float(rect_pixels.w) : float(rect_pixels.y));
  p += offset_pixels;
  vec2 ndc = p / vec2(target) * 2.0 - 1.0;
  gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
)";
constexpr const char* kFragmentShader = R"(#version 310 es
precision highp float;
layout(std140, binding = 0) uniform Colour { uint packed_rgba; };
out vec4 out_colour;
void main() { out_colour = unpackUnorm4x8(packed_rgba); }
)";

// A GL object name and how it is deleted.
class GlName {
 public:
  using Delete = void (*)(GLuint);
  GlName() = default;
  GlName(GLuint id, Delete remove) : id_(id), delete_(remove) {}
  GlName(GlName&& other) noexcept : id_(std::exchange(other.id_, 0)), delete_(other.delete_) {}
  GlName& operator=(GlName&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, 0);
      delete_ = other.delete_;
    }
    return *this;
  }
  ~GlName() { reset(); }
  GLuint get() const { return id_; }

 private:
  void reset() {
    if (id_ && delete_) delete_(id_);
    id_ = 0;
  }
  GLuint id_ = 0;
  Delete delete_ = nullptr;
};

GlName new_buffer() {
  GLuint id = 0;
  glGenBuffers(1, &id);
  return {id, [](GLuint name) { glDeleteBuffers(1, &name); }};
}

class GlSync {
 public:
  explicit GlSync(GLsync sync) : sync_(sync) {}
  GlSync(GlSync&& other) noexcept : sync_(std::exchange(other.sync_, nullptr)) {}
  GlSync& operator=(GlSync&&) = delete;
  ~GlSync() {
    if (sync_) glDeleteSync(sync_);
  }
  GLsync get() const { return sync_; }

 private:
  GLsync sync_;
};

const char* gl_error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    default:
      return "an unknown GL error";
  }
}

// The driver's error after `what`, as the code under test failing.
Status gl_check(const char* what) {
  GLenum error = glGetError();
  if (error == GL_NO_ERROR) return {};
  while (glGetError() != GL_NO_ERROR) {
  }
  return fail(ErrorKind::Fatal, fmt::format("gl: {}: {}", what, gl_error_name(error)));
}

Result<GlName> compile(GLenum stage, const char* source) {
  GlName shader(glCreateShader(stage), [](GLuint name) { glDeleteShader(name); });
  glShaderSource(shader.get(), 1, &source, nullptr);
  glCompileShader(shader.get());
  GLint ok = 0;
  glGetShaderiv(shader.get(), GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {};
    glGetShaderInfoLog(shader.get(), sizeof log, nullptr, log);
    return fail(ErrorKind::Fatal, fmt::format("gl: the band shader does not compile: {}", log));
  }
  return shader;
}

uint64_t knob_or_zero(const KnobValues& knobs, const char* name) {
  auto found = knobs.find(name);
  return found == knobs.end() ? 0 : static_cast<uint64_t>(found->second);
}

struct Record {
  GlName buffer;
  uint64_t size = 0;  // 0: no store
};

class GlBackend final : public api::Device {
 public:
  GlBackend(EglContext egl, const api::SessionConfig& config, const api::DeviceContext& context)
      : egl_(std::move(egl)),
        width_(config.width),
        height_(config.height),
        events_(*context.events),
        observed_(context.observed),
        drop_draw_(knob_or_zero(config.knobs, "gl_drop_draw")) {}

  Status initialize();
  std::string driver() const override { return driver_; }
  Identity identity() const override { return identity_; }
  void name_driver(std::string driver, Identity identity) {
    driver_ = std::move(driver);
    identity_ = std::move(identity);
  }

  Result<api::BufferId> create_buffer() override {
    records_.push_back({new_buffer(), 0});
    TIDEMARK_CHECK(gl_check("glGenBuffers"));
    return static_cast<api::BufferId>(records_.size());
  }
  Status buffer_data(api::BufferId buffer, std::span<const uint8_t> data) override;
  Status buffer_sub_data(api::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) override;
  Status draw(const api::DrawCall& call) override;
  Result<api::FenceId> fence_sync() override {
    fences_.emplace_back(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
    TIDEMARK_CHECK(gl_check("glFenceSync"));
    return static_cast<api::FenceId>(fences_.size());
  }
  Result<WaitStatus> client_wait(api::FenceId fence, bool flush, uint64_t timeout_ns) override;
  Status flush() override {
    glFlush();
    return gl_check("glFlush");
  }
  Status finish() override {
    glFinish();
    return gl_check("glFinish");
  }
  Status present() override {
    egl_.swap();
    ++presents_;
    events_.frame();
    return gl_check("eglSwapBuffers");
  }
  Result<Image> read_pixels() override;
  Result<Gauges> gauges() override;
  Result<std::vector<std::string>> validation_messages() override { return std::vector<std::string>(); }

 private:
  Result<Record*> store_of(api::BufferId buffer, const char* op, const char* role);

  EglContext egl_;  // first: every GL object below goes before the context does
  int32_t width_, height_;
  api::DeviceEvents& events_;
  std::function<ObservedGauges()> observed_;
  GlName framebuffer_, renderbuffer_, program_, vertex_array_, zero_vertices_;
  GLint rect_location_ = -1, target_location_ = -1;
  std::vector<Record> records_;
  std::vector<GlSync> fences_;
  int64_t presents_ = 0;
  // Knob gl_drop_draw: the Nth draw never reaches the driver (0: none), a fault at the GL
  // boundary for a driver with no Vulkan beneath it for the layer's drop_draw to reach.
  uint64_t drop_draw_ = 0;
  uint64_t draws_ = 0;
  std::string driver_;
  Identity identity_;
};

Status GlBackend::initialize() {
  GLuint id = 0;
  glGenRenderbuffers(1, &id);
  renderbuffer_ = GlName(id, [](GLuint name) { glDeleteRenderbuffers(1, &name); });
  glBindRenderbuffer(GL_RENDERBUFFER, id);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width_, height_);
  glGenFramebuffers(1, &id);
  framebuffer_ = GlName(id, [](GLuint name) { glDeleteFramebuffers(1, &name); });
  glBindFramebuffer(GL_FRAMEBUFFER, id);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer_.get());
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    return fail(ErrorKind::Fatal, fmt::format("gl: an RGBA8 {}x{} framebuffer is incomplete", width_, height_));
  glViewport(0, 0, width_, height_);
  glClearColor(0, 0, 0, 1);  // opaque black, as the vulkan backend clears
  glClear(GL_COLOR_BUFFER_BIT);

  TIDEMARK_TRY(vertex, compile(GL_VERTEX_SHADER, kVertexShader));
  TIDEMARK_TRY(fragment, compile(GL_FRAGMENT_SHADER, kFragmentShader));
  program_ = GlName(glCreateProgram(), [](GLuint name) { glDeleteProgram(name); });
  glAttachShader(program_.get(), vertex.get());
  glAttachShader(program_.get(), fragment.get());
  glLinkProgram(program_.get());
  GLint linked = 0;
  glGetProgramiv(program_.get(), GL_LINK_STATUS, &linked);
  if (!linked) return fail(ErrorKind::Fatal, "gl: the band program does not link");
  glUseProgram(program_.get());
  rect_location_ = glGetUniformLocation(program_.get(), "rect_pixels");
  target_location_ = glGetUniformLocation(program_.get(), "target");
  glUniform2i(target_location_, width_, height_);

  glGenVertexArrays(1, &id);
  vertex_array_ = GlName(id, [](GLuint name) { glDeleteVertexArrays(1, &name); });
  glBindVertexArray(id);
  glEnableVertexAttribArray(0);
  glVertexAttribDivisor(0, 1);  // one offset per band, as the vulkan backend's instance rate
  zero_vertices_ = new_buffer();
  const float zero[2] = {0, 0};
  glBindBuffer(GL_ARRAY_BUFFER, zero_vertices_.get());
  glBufferData(GL_ARRAY_BUFFER, sizeof zero, zero, GL_STATIC_DRAW);
  TIDEMARK_CHECK(gl_check("setting up the target and the band program"));
  glFinish();  // what start-up made is the device's start-up state
  events_.started({});
  return gl_check("glFinish");
}

Result<Record*> GlBackend::store_of(api::BufferId buffer, const char* op, const char* role) {
  if (buffer == 0 || buffer > records_.size())
    return fail(ErrorKind::BadInput, fmt::format("{}: no buffer {}", op, buffer));
  Record& record = records_[buffer - 1];
  if (record.size == 0)
    return fail(ErrorKind::BadInput, fmt::format("{}: {} buffer {} has no store (never specified, or specified with "
                                                 "size 0)",
                                                 op, role, buffer));
  return &record;
}

Status GlBackend::buffer_data(api::BufferId buffer, std::span<const uint8_t> data) {
  if (buffer == 0 || buffer > records_.size())
    return fail(ErrorKind::BadInput, fmt::format("buffer_data: no buffer {}", buffer));
  if (data.size() > static_cast<uint64_t>(kMaxStoreBytes))
    return fail(ErrorKind::BadInput, fmt::format("buffer_data: {} bytes, at most {}", data.size(), kMaxStoreBytes));
  Record& record = records_[buffer - 1];
  glBindBuffer(GL_ARRAY_BUFFER, record.buffer.get());
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.size()), data.empty() ? nullptr : data.data(),
               GL_DYNAMIC_DRAW);
  record.size = data.size();
  return gl_check("glBufferData");
}

Status GlBackend::buffer_sub_data(api::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) {
  TIDEMARK_TRY(record, store_of(buffer, "buffer_sub_data", "the"));
  if (offset > record->size || data.size() > record->size - offset)
    return fail(ErrorKind::BadInput, fmt::format("buffer_sub_data: bytes {}..{} are outside the {}-byte store", offset,
                                                 offset + data.size(), record->size));
  if (data.empty()) return {};
  glBindBuffer(GL_ARRAY_BUFFER, record->buffer.get());
  glBufferSubData(GL_ARRAY_BUFFER, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(data.size()), data.data());
  return gl_check("glBufferSubData");
}

Status GlBackend::draw(const api::DrawCall& call) {
  TIDEMARK_TRY(uniform, store_of(call.uniform, "draw", "uniform"));
  if (uniform->size < kColourBytes)
    return fail(ErrorKind::BadInput,
                fmt::format("draw: the uniform store holds {} bytes, a colour needs {}", uniform->size, kColourBytes));
  GLuint vertices = zero_vertices_.get();
  if (call.vertices != 0) {
    TIDEMARK_TRY(found, store_of(call.vertices, "draw", "vertex"));
    if (found->size < kVertexBytes)
      return fail(ErrorKind::BadInput,
                  fmt::format("draw: the vertex store holds {} bytes, a draw reads {}", found->size, kVertexBytes));
    vertices = found->buffer.get();
  }
  glBindBufferRange(GL_UNIFORM_BUFFER, 0, uniform->buffer.get(), 0, static_cast<GLsizeiptr>(uniform->size));
  glBindBuffer(GL_ARRAY_BUFFER, vertices);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glUniform4i(rect_location_, call.rect.x0, call.rect.y0, call.rect.x1, call.rect.y1);
  if (++draws_ == drop_draw_) return gl_check("the draw state of a dropped draw");
  glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, 1);
  return gl_check("glDrawArraysInstanced");
}

Result<WaitStatus> GlBackend::client_wait(api::FenceId fence, bool flush, uint64_t timeout_ns) {
  if (fence == 0 || fence > fences_.size())
    return fail(ErrorKind::BadInput, fmt::format("client_wait: no fence {}", fence));
  GLenum status = glClientWaitSync(fences_[fence - 1].get(), flush ? GL_SYNC_FLUSH_COMMANDS_BIT : 0, timeout_ns);
  switch (status) {
    case GL_ALREADY_SIGNALED:
      return WaitStatus::AlreadySignaled;
    case GL_CONDITION_SATISFIED:
      return WaitStatus::ConditionSatisfied;
    case GL_TIMEOUT_EXPIRED:
      return WaitStatus::TimeoutExpired;
    default:
      break;
  }
  TIDEMARK_CHECK(gl_check("glClientWaitSync"));
  return fail(ErrorKind::Fatal, "gl: glClientWaitSync: GL_WAIT_FAILED");
}

// glReadPixels gives the bottom row first: turned to the vulkan backend's top row first.
Result<Image> GlBackend::read_pixels() {
  Image image;
  image.width = width_;
  image.height = height_;
  const size_t row = static_cast<size_t>(width_) * 4;
  std::vector<uint8_t> bottom_first(row * static_cast<size_t>(height_));
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, bottom_first.data());
  TIDEMARK_CHECK(gl_check("glReadPixels"));
  image.pixels.resize(bottom_first.size());
  for (int32_t y = 0; y < height_; ++y)
    std::memcpy(image.pixels.data() + static_cast<size_t>(y) * row,
                bottom_first.data() + static_cast<size_t>(height_ - 1 - y) * row, row);
  return image;
}

// The device gauges from what the layer saw beneath the driver: its live VkBuffers are the
// stores the driver keeps (every orphan it has not reclaimed), its memory the device's.
Result<Gauges> GlBackend::gauges() {
  ObservedGauges o = observed_ ? observed_() : ObservedGauges{};
  Gauges g;
  g.wbufs = static_cast<int64_t>(records_.size());
  g.wlive = o.vkbufs;
  g.wlivepk = o.vkbufspk;
  g.dsets = o.vkdsets;
  g.dsetspk = o.vkdsetspk;
  g.dsetsalloc = o.vkdsetsalloc;
  g.devallocs = o.vkallocs;
  g.devallocspk = o.vkallocspk;
  g.devbytes = o.vkbytes;
  g.devbytespk = o.vkbytespk;
  g.submits = o.vksubmits;
  g.presents = presents_;
  return g;
}

}  // namespace

Result<std::unique_ptr<api::Device>> create_gl_device(GlDriver driver, const api::SessionConfig& config,
                                                      const api::DeviceContext& context) {
  if (config.width < 1 || config.height < 1)
    return fail(ErrorKind::BadInput, fmt::format("target {}x{} is empty", config.width, config.height));
  TIDEMARK_TRY(build, drivers::active_build());
  // On a build with a server, `gl` is the build's client of it (its Vulkan is the server's).
  if (driver == GlDriver::Zink && !context.server.empty()) driver = GlDriver::ServerClient;
  std::vector<std::string> notes;
  TIDEMARK_TRY(egl, EglContext::open(driver, context.layer, notes));
  if (context.log)
    for (const auto& note : notes) context.log(note);
  const std::string renderer = egl.renderer(), version = egl.version();
  auto backend = std::make_unique<GlBackend>(std::move(egl), config, context);
  TIDEMARK_CHECK(backend->initialize());
  // A backend whose device gauges are the layer's must have a Vulkan device under the layer by
  // now (the driver made its target image there): a driver that is not on Vulkan, or one whose
  // Vulkan the layer never entered, would read 0 for every device gauge and hold every upper
  // bound, a green that judged nothing.
  if (context.layer && context.observed) {
    const ObservedGauges seen = context.observed();
    if (seen.vkimagespk == 0 && seen.vkallocsmade == 0 && !context.server.empty())
      return fail(ErrorKind::Environment,
                  fmt::format("gl ({}): expected the server's Vulkan device under the Tidemark layer, found none: "
                              "the client's renderer is '{}', and its server {} made no VkImage and no "
                              "VkDeviceMemory through the layer; its device gauges would all read 0",
                              driver_name(driver), renderer, context.server));
    if (seen.vkimagespk == 0 && seen.vkallocsmade == 0)
      return fail(ErrorKind::Environment,
                  fmt::format("gl ({}): expected the driver's Vulkan device under the Tidemark layer, found none "
                              "(renderer '{}' made no VkImage and no VkDeviceMemory through it): its device gauges "
                              "would all read 0; name an EGL vendor whose driver runs on Vulkan",
                              driver_name(driver), renderer));
  }
  // What it reports, for the session to hold a named driver build to (session/session.cpp).
  // llvmpipe runs on no Vulkan device: its Vulkan driver is a field it cannot read.
  std::optional<std::string> vulkan;
  if (driver != GlDriver::Llvmpipe) vulkan = context.vulkan_driver ? context.vulkan_driver() : std::string();
  backend->name_driver(fmt::format("{}{} on {}{}", build ? fmt::format("{}: ", build->name) : "", version, renderer,
                                   vulkan && !vulkan->empty() ? "; Vulkan: " + *vulkan : ""),
                       {.gl_version = version, .gl_renderer = renderer, .vulkan_driver = vulkan});
  if (context.log) context.log("driver: " + backend->driver());
  return backend;
}

void add_gl_backends(api::BackendRegistry& registry) {
  auto factory = [](GlDriver driver) {
    return [driver](const api::SessionConfig& config, const api::DeviceContext& context) {
      return create_gl_device(driver, config, context);
    };
  };
  registry.add({.name = "gl",
                .summary = "OpenGL ES on Mesa's Zink over lavapipe, the Tidemark layer beneath it (EGL surfaceless)",
                .gauges = {GaugeKind::Device},
                .make = factory(GlDriver::Zink),
                .reports_itself = false,
                .needs_layer = true,
                .whole_driver = true});
  registry.add({.name = "gl-llvmpipe",
                .summary = "OpenGL ES on Mesa's llvmpipe, no Vulkan beneath: the control for pixels",
                .gauges = {},
                .make = factory(GlDriver::Llvmpipe),
                .reports_itself = false,
                .needs_layer = false,
                .stands_for = "gl"});
  registry.add({.name = "gl-native",
                .summary = "OpenGL ES on the EGL vendor the environment names (__EGL_VENDOR_LIBRARY_FILENAMES), "
                           "the layer beneath its Vulkan",
                .gauges = {GaugeKind::Device},
                .make = factory(GlDriver::Native),
                .reports_itself = false,
                .needs_layer = true,
                .stands_for = "gl",
                .whole_driver = true});
}

Result<api::Device::Identity> read_gl_strings() {
  std::vector<std::string> notes;
  TIDEMARK_TRY(egl, EglContext::open(GlDriver::Zink, false, notes));
  return api::Device::Identity{.gl_version = egl.version(), .gl_renderer = egl.renderer(), .vulkan_driver = {}};
}

}  // namespace tidemark::backend_gl
