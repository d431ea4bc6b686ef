// tidemark-gl-respecify: a real OpenGL ES 3 program for the respecify defect on a real driver
// stack. It orphans one buffer --rounds times inside one frame (glBufferData with fresh data,
// then a draw that reads it), so a driver that keeps every orphaned store alive until the frame
// retires shows it at the Vulkan boundary (Zink, under VK_LAYER_TIDEMARK_observe). Headless:
// EGL's surfaceless platform and a renderbuffer target, nothing on screen.
//
// Prints one line: the renderer string and a hash of the target's pixels (same driver, same
// flags: same hash). Exit codes: 0 done, 1 a GL/EGL failure past start-up, 2 bad flags, 3 no
// EGL/GLES driver.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <expected>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

struct Failure {
  int exit_code;
  std::string message;
};
template <class T = void>
using Result = std::expected<T, Failure>;

Failure flag_error(std::string message) { return {2, std::move(message)}; }
Failure gl_error(std::string message) { return {1, std::move(message)}; }
Failure no_driver(std::string message) {
  return {3, message + " (no EGL/GLES driver: install libegl-mesa0 and libgl1-mesa-dri)"};
}

// Four vertices of one band: where it is and its colour, read by the draw from the respecified
// store (the rest of the store is filler that only makes it --size bytes).
struct Vertex {
  float x, y;
  uint8_t rgba[4];
};
constexpr size_t kBandBytes = 4 * sizeof(Vertex);

struct Options {
  uint64_t rounds = 2000;
  uint64_t size = 1 << 20;
  uint32_t width = 64, height = 64;
  std::string poll = "none";  // how the end of the rounds is learnt: glFinish, or polled without blocking
};

constexpr const char* kUsage =
    "usage: tidemark-gl-respecify [--rounds N] [--size BYTES] [--width W] [--height H]"
    " [--poll none|client-wait-sync|sync-status|query-available]";

template <class T>
Result<T> parse_number(std::string_view flag, std::string_view text, T least, T most) {
  T value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < least || value > most)
    return std::unexpected(flag_error(std::string(flag) + " expects a whole number from " + std::to_string(least) +
                                      " to " + std::to_string(most) + ", found '" + std::string(text) + "'"));
  return value;
}

Result<Options> parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") return std::unexpected(Failure{0, kUsage});
    if (i + 1 >= argc)
      return std::unexpected(flag_error("unknown flag or missing value: '" + std::string(flag) + "'; " + kUsage));
    std::string_view value = argv[++i];
    Result<> parsed;
    auto set = [&](auto& field, auto least, auto most) {
      auto number = parse_number<std::remove_reference_t<decltype(field)>>(flag, value, least, most);
      if (number)
        field = *number;
      else
        parsed = std::unexpected(number.error());
    };
    if (flag == "--rounds") set(options.rounds, uint64_t{1}, uint64_t{100'000'000});
    // Below one band the draw would read past the store.
    else if (flag == "--size")
      set(options.size, uint64_t{kBandBytes}, uint64_t{1} << 31);
    else if (flag == "--width")
      set(options.width, 1u, 4096u);
    else if (flag == "--height")
      set(options.height, 1u, 4096u);
    else if (flag == "--poll" &&
             (value == "none" || value == "client-wait-sync" || value == "sync-status" || value == "query-available"))
      options.poll = value;
    else
      return std::unexpected(flag_error("unknown flag '" + std::string(flag) + "'; " + kUsage));
    if (!parsed) return std::unexpected(parsed.error());
  }
  return options;
}

std::string hex(unsigned code) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", code);
  return text;
}

// --- EGL, each object released by its owner --------------------------------------------------

class Display {
 public:
  explicit Display(EGLDisplay display) : display_(display) {}
  ~Display() {
    // eglTerminate tears down the driver's screen: under Zink that destroys the VkDevice, when
    // the layer writes its report.
    if (display_ != EGL_NO_DISPLAY) {
      eglTerminate(display_);
      eglReleaseThread();
    }
  }
  Display(Display&& other) noexcept : display_(std::exchange(other.display_, EGL_NO_DISPLAY)) {}
  Display& operator=(Display&&) = delete;
  EGLDisplay get() const { return display_; }

 private:
  EGLDisplay display_;
};

class Context {
 public:
  Context(EGLDisplay display, EGLContext context) : display_(display), context_(context) {}
  ~Context() {
    if (context_ == EGL_NO_CONTEXT) return;
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
  }
  Context(Context&& other) noexcept
      : display_(other.display_), context_(std::exchange(other.context_, EGL_NO_CONTEXT)) {}
  Context& operator=(Context&&) = delete;

 private:
  EGLDisplay display_;
  EGLContext context_;
};

bool has_extension(const char* list, std::string_view name) {
  std::string_view all = list ? list : "";
  for (size_t at = 0; (at = all.find(name, at)) != std::string_view::npos; at += name.size()) {
    bool starts = at == 0 || all[at - 1] == ' ';
    bool ends = at + name.size() == all.size() || all[at + name.size()] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

Result<Display> open_display() {
  // Surfaceless first: no window system, no render node needed. The default display is the
  // fallback for an EGL without the extension (it may still pick surfaceless itself).
  EGLDisplay display = EGL_NO_DISPLAY;
  if (has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_MESA_platform_surfaceless")) {
    auto get_platform_display =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (get_platform_display)
      display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  }
  if (display == EGL_NO_DISPLAY) display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (display == EGL_NO_DISPLAY) return std::unexpected(no_driver("no EGL display"));
  if (!eglInitialize(display, nullptr, nullptr))
    return std::unexpected(no_driver("eglInitialize failed (EGL error " + hex(eglGetError()) + ")"));
  return Display(display);
}

Result<Context> make_current_context(EGLDisplay display) {
  if (!has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context"))
    return std::unexpected(no_driver("the EGL display lacks EGL_KHR_surfaceless_context"));
  if (!eglBindAPI(EGL_OPENGL_ES_API)) return std::unexpected(no_driver("eglBindAPI(EGL_OPENGL_ES_API) failed"));
  const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  // A config is optional with EGL_KHR_no_config_context, but asking for one works on both.
  if (!eglChooseConfig(display, config_attributes, &config, 1, &configs) || configs == 0)
    return std::unexpected(no_driver("no EGL config renders OpenGL ES 3"));
  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
  if (context == EGL_NO_CONTEXT) return std::unexpected(no_driver("eglCreateContext for OpenGL ES 3.0 failed"));
  Context owner(display, context);
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
    return std::unexpected(gl_error("eglMakeCurrent without a surface failed"));
  return owner;
}

// --- GL names, each deleted by its owner (the context is current for their whole life) ------

template <void (*Delete)(GLuint)>
class Name {
 public:
  explicit Name(GLuint name) : name_(name) {}
  ~Name() {
    if (name_) Delete(name_);
  }
  Name(Name&& other) noexcept : name_(std::exchange(other.name_, 0)) {}
  Name& operator=(Name&&) = delete;
  GLuint get() const { return name_; }

 private:
  GLuint name_;
};

// The glGen*/glDelete* pairs take counts; these give the wrappers one name at a time.
template <void (*Gen)(GLsizei, GLuint*)>
GLuint gen_one() {
  GLuint name = 0;
  Gen(1, &name);
  return name;
}
template <void (*Delete)(GLsizei, const GLuint*)>
void delete_one(GLuint name) {
  Delete(1, &name);
}
void gen_buffers(GLsizei n, GLuint* names) { glGenBuffers(n, names); }
void delete_buffers(GLsizei n, const GLuint* names) { glDeleteBuffers(n, names); }
void gen_renderbuffers(GLsizei n, GLuint* names) { glGenRenderbuffers(n, names); }
void delete_renderbuffers(GLsizei n, const GLuint* names) { glDeleteRenderbuffers(n, names); }
void gen_framebuffers(GLsizei n, GLuint* names) { glGenFramebuffers(n, names); }
void delete_framebuffers(GLsizei n, const GLuint* names) { glDeleteFramebuffers(n, names); }
void gen_vertex_arrays(GLsizei n, GLuint* names) { glGenVertexArrays(n, names); }
void delete_vertex_arrays(GLsizei n, const GLuint* names) { glDeleteVertexArrays(n, names); }
void delete_shader(GLuint name) { glDeleteShader(name); }
void delete_program(GLuint name) { glDeleteProgram(name); }

using Buffer = Name<delete_one<delete_buffers>>;
using Renderbuffer = Name<delete_one<delete_renderbuffers>>;
using Framebuffer = Name<delete_one<delete_framebuffers>>;
using VertexArray = Name<delete_one<delete_vertex_arrays>>;
using Shader = Name<delete_shader>;
using Program = Name<delete_program>;

Result<> check_gl(const char* what) {
  if (GLenum error = glGetError(); error != GL_NO_ERROR)
    return std::unexpected(gl_error(std::string(what) + ": GL error " + hex(error)));
  return {};
}

Result<Shader> compile(GLenum kind, const char* source) {
  Shader shader(glCreateShader(kind));
  glShaderSource(shader.get(), 1, &source, nullptr);
  glCompileShader(shader.get());
  GLint ok = GL_FALSE;
  glGetShaderiv(shader.get(), GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[512] = {};
    glGetShaderInfoLog(shader.get(), sizeof log, nullptr, log);
    return std::unexpected(gl_error(std::string("shader does not compile: ") + log));
  }
  return shader;
}

Result<Program> link_band_program() {
  // The band's place and colour come from the vertex attributes, i.e. from the respecified store.
  auto vertex = compile(GL_VERTEX_SHADER, R"(#version 300 es
layout(location = 0) in vec2 position;
layout(location = 1) in vec4 colour;
out vec4 band_colour;
void main() { gl_Position = vec4(position, 0.0, 1.0); band_colour = colour; }
)");
  if (!vertex) return std::unexpected(vertex.error());
  auto fragment = compile(GL_FRAGMENT_SHADER, R"(#version 300 es
precision mediump float;
in vec4 band_colour;
out vec4 pixel;
void main() { pixel = band_colour; }
)");
  if (!fragment) return std::unexpected(fragment.error());
  Program program(glCreateProgram());
  glAttachShader(program.get(), vertex->get());
  glAttachShader(program.get(), fragment->get());
  glLinkProgram(program.get());
  GLint ok = GL_FALSE;
  glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
  if (!ok) return std::unexpected(gl_error("the band program does not link"));
  return program;
}

// Round r's band: one row of the target (r mod height), a colour that changes every round.
void write_band(std::vector<uint8_t>& store, uint64_t round, const Options& options) {
  float row = static_cast<float>(round % options.height);
  float y0 = -1.0f + 2.0f * row / static_cast<float>(options.height);
  float y1 = -1.0f + 2.0f * (row + 1.0f) / static_cast<float>(options.height);
  uint8_t r = static_cast<uint8_t>(round * 37), g = static_cast<uint8_t>(round * 101 + 7),
          b = static_cast<uint8_t>(round >> 3);
  Vertex band[4] = {
      {-1, y0, {r, g, b, 255}}, {1, y0, {r, g, b, 255}}, {-1, y1, {r, g, b, 255}}, {1, y1, {r, g, b, 255}}};
  std::memcpy(store.data(), band, sizeof band);
}

uint64_t fnv1a(const std::vector<uint8_t>& bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint8_t byte : bytes) hash = (hash ^ byte) * 0x100000001b3ull;
  return hash;
}

struct Outcome {
  std::string renderer;
  uint64_t hash;
  uint64_t polls = 0;  // --poll: the polls it took to see the rounds finished
};

// The rounds' end learnt without ever blocking, as a program that polls does: a fence sync read
// by glClientWaitSync(timeout 0) or glGetSynciv(GL_SYNC_STATUS), or a query's
// GL_QUERY_RESULT_AVAILABLE (Zink turns each into a timeout-0 wait on its timeline semaphore).
Result<uint64_t> poll_until_done(const std::string& how, GLuint query) {
  uint64_t polls = 0;
  if (how == "query-available") {
    glFlush();
    for (GLuint available = 0; !available;) {
      ++polls;
      glGetQueryObjectuiv(query, GL_QUERY_RESULT_AVAILABLE, &available);
      if (auto ok = check_gl("glGetQueryObjectuiv(GL_QUERY_RESULT_AVAILABLE)"); !ok) return std::unexpected(ok.error());
    }
    return polls;
  }
  GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  glFlush();
  for (bool done = false; !done;) {
    ++polls;
    if (how == "client-wait-sync") {
      GLenum result = glClientWaitSync(sync, 0, 0);
      if (result == GL_WAIT_FAILED) return std::unexpected(gl_error("glClientWaitSync failed"));
      done = result == GL_ALREADY_SIGNALED || result == GL_CONDITION_SATISFIED;
    } else {
      GLint status = GL_UNSIGNALED;
      glGetSynciv(sync, GL_SYNC_STATUS, 1, nullptr, &status);
      done = status == GL_SIGNALED;
    }
  }
  glDeleteSync(sync);
  return polls;
}

Result<Outcome> run(const Options& options) {
  auto display = open_display();
  if (!display) return std::unexpected(display.error());
  auto context = make_current_context(display->get());
  if (!context) return std::unexpected(context.error());
  Outcome outcome;
  {  // GL names go before the context does
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    outcome.renderer = renderer ? renderer : "?";

    Renderbuffer colour(gen_one<gen_renderbuffers>());
    glBindRenderbuffer(GL_RENDERBUFFER, colour.get());
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, static_cast<GLsizei>(options.width),
                          static_cast<GLsizei>(options.height));
    Framebuffer target(gen_one<gen_framebuffers>());
    glBindFramebuffer(GL_FRAMEBUFFER, target.get());
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour.get());
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      return std::unexpected(gl_error("the RGBA8 renderbuffer target is incomplete"));
    glViewport(0, 0, static_cast<GLsizei>(options.width), static_cast<GLsizei>(options.height));
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);

    auto program = link_band_program();
    if (!program) return std::unexpected(program.error());
    glUseProgram(program->get());
    VertexArray vertex_array(gen_one<gen_vertex_arrays>());
    glBindVertexArray(vertex_array.get());
    Buffer store(gen_one<gen_buffers>());
    glBindBuffer(GL_ARRAY_BUFFER, store.get());
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<const void*>(offsetof(Vertex, x)));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Vertex),
                          reinterpret_cast<const void*>(offsetof(Vertex, rgba)));
    if (auto ok = check_gl("setting up the target and the band program"); !ok) return std::unexpected(ok.error());

    // The defect's pattern: each round respecifies the store the previous draw still reads, so
    // the driver must orphan it; nothing between the rounds lets a frame retire.
    std::vector<uint8_t> data(options.size, 0x5a);
    GLuint query = 0;
    if (options.poll == "query-available") {
      glGenQueries(1, &query);
      glBeginQuery(GL_ANY_SAMPLES_PASSED, query);
    }
    for (uint64_t round = 0; round < options.rounds; ++round) {
      write_band(data, round, options);
      glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.size()), data.data(), GL_STREAM_DRAW);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    if (query) glEndQuery(GL_ANY_SAMPLES_PASSED);
    if (options.poll == "none") {
      glFinish();
    } else {
      auto polls = poll_until_done(options.poll, query);
      if (!polls) return std::unexpected(polls.error());
      outcome.polls = *polls;
    }
    if (query) glDeleteQueries(1, &query);
    if (auto ok = check_gl("the respecify rounds"); !ok) return std::unexpected(ok.error());

    std::vector<uint8_t> pixels(size_t{options.width} * options.height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, static_cast<GLsizei>(options.width), static_cast<GLsizei>(options.height), GL_RGBA,
                 GL_UNSIGNED_BYTE, pixels.data());
    if (auto ok = check_gl("glReadPixels of the target"); !ok) return std::unexpected(ok.error());
    outcome.hash = fnv1a(pixels);
  }
  return outcome;
}

}  // namespace

int main(int argc, char** argv) {
  auto options = parse_options(argc, argv);
  if (!options) {
    std::fprintf(options.error().exit_code == 0 ? stdout : stderr, "%s%s\n",
                 options.error().exit_code == 0 ? "" : "tidemark-gl-respecify: ", options.error().message.c_str());
    return options.error().exit_code;
  }
  auto outcome = run(*options);
  if (!outcome) {
    std::fprintf(stderr, "tidemark-gl-respecify: %s\n", outcome.error().message.c_str());
    return outcome.error().exit_code;
  }
  std::printf("renderer '%s' target %ux%u rounds %llu size %llu pixels fnv1a %016llx", outcome->renderer.c_str(),
              options->width, options->height, static_cast<unsigned long long>(options->rounds),
              static_cast<unsigned long long>(options->size), static_cast<unsigned long long>(outcome->hash));
  if (options->poll != "none")
    std::printf(" %s polls %llu", options->poll.c_str(), static_cast<unsigned long long>(outcome->polls));
  std::printf("\n");
  return 0;
}
