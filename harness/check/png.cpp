// libpng reports errors by longjmp. Each setjmp lives in a small function whose locals
// are all trivially destructible; the files, png structs and buffers those jumps would
// otherwise leak are owned by the caller's frame.
#include "check/png.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <png.h>

#include "core/files.h"
#include "core/limits.h"

namespace tidemark::check {
namespace {

// No golden or report image is larger than the largest target a scenario may ask for.
constexpr png_uint_32 max_dimension = kMaxTargetSide;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

struct ErrorSink {
  std::array<char, 256> message{};
  std::array<char, 256> warning{};  // the first: libpng says why before it gives up ("... exceeds user limit")
  // libpng's error, with the warning that explains it when there was one.
  std::string text() const {
    return warning[0] ? fmt::format("{} ({})", message.data(), warning.data()) : std::string(message.data());
  }
};

[[noreturn]] void on_png_error(png_structp png, png_const_charp message) {
  auto* sink = static_cast<ErrorSink*>(png_get_error_ptr(png));
  std::snprintf(sink->message.data(), sink->message.size(), "%s", message);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp png, png_const_charp message) {
  auto* sink = static_cast<ErrorSink*>(png_get_error_ptr(png));
  if (!sink->warning[0]) std::snprintf(sink->warning.data(), sink->warning.size(), "%s", message);
}

// libpng's read or write structs with their info struct, destroyed together.
enum class Direction { Read, Write };
template <Direction kDirection>
class PngStructs {
 public:
  explicit PngStructs(ErrorSink& sink)
      : png_(kDirection == Direction::Read
                 ? png_create_read_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_error, on_png_warning)
                 : png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_png_error, on_png_warning)),
        info_(png_ ? png_create_info_struct(png_) : nullptr) {}
  ~PngStructs() {
    if constexpr (kDirection == Direction::Read)
      png_destroy_read_struct(&png_, &info_, nullptr);
    else
      png_destroy_write_struct(&png_, &info_);
  }
  PngStructs(const PngStructs&) = delete;
  PngStructs& operator=(const PngStructs&) = delete;

  bool valid() const { return png_ != nullptr && info_ != nullptr; }
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_;
  png_infop info_;
};
using ReadStruct = PngStructs<Direction::Read>;
using WriteStruct = PngStructs<Direction::Write>;

struct Decoded {
  Image image;
  std::vector<png_bytep> rows;
};

// The header (IHDR and what precedes the pixels), after the signature was read. Returns false
// after a libpng error; the message is in the error sink.
bool read_header(png_structp png, png_infop info, std::FILE* file) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, file);
  png_set_sig_bytes(png, 8);
  png_set_user_limits(png, max_dimension, max_dimension);
  png_read_info(png, info);
  return true;
}

// The pixels, after read_header. Returns false after a libpng error, as read_header.
bool decode(png_structp png, png_infop info, Decoded& out) {
  if (setjmp(png_jmpbuf(png))) return false;
  const png_byte color_type = png_get_color_type(png, info);
  if (png_get_bit_depth(png, info) == 16) png_set_strip_16(png);
  png_set_expand(png);  // palette -> RGB, grey below 8 bits -> 8 bits, tRNS -> alpha
  if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
  if ((color_type & PNG_COLOR_MASK_ALPHA) == 0 && !png_get_valid(png, info, PNG_INFO_tRNS)) {
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);

  const png_uint_32 width = png_get_image_width(png, info);
  const png_uint_32 height = png_get_image_height(png, info);
  if (png_get_rowbytes(png, info) != static_cast<size_t>(width) * 4) {
    png_error(png, "unsupported pixel layout after conversion to RGBA8");
  }
  out.image = make_image(static_cast<int>(width), static_cast<int>(height), {0, 0, 0, 0});
  out.rows.resize(height);
  for (png_uint_32 y = 0; y < height; ++y) {
    out.rows[y] = out.image.pixels.data() + static_cast<size_t>(y) * width * 4;
  }
  png_read_image(png, out.rows.data());
  png_read_end(png, nullptr);
  return true;
}

bool encode(png_structp png, png_infop info, std::FILE* file, const Image& image, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, file);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

std::string errno_text(int error) { return std::generic_category().message(error); }

// A PNG file opened past its signature, ready for its header.
Result<FilePtr> open_png(const std::filesystem::path& file) {
  TIDEMARK_CHECK(check_given_file(file, "PNG", std::numeric_limits<uint64_t>::max()));
  FilePtr handle(std::fopen(file.c_str(), "rb"));
  if (!handle) {
    const int error = errno;
    return fail(ErrorKind::Io, fmt::format("cannot open {}: {}", file.string(), errno_text(error)));
  }
  std::array<png_byte, 8> signature{};
  const size_t got = std::fread(signature.data(), 1, signature.size(), handle.get());
  if (got != signature.size() || png_sig_cmp(signature.data(), 0, signature.size()) != 0) {
    return fail(ErrorKind::BadInput, fmt::format("{} is not a PNG file", file.string()));
  }
  return handle;
}

// Reads the header, then `then(png)` when given; what a file holds is the user's input, so a
// PNG that does not decode is bad input.
template <class Then>
auto with_header(const std::filesystem::path& file, Then&& then) -> decltype(then(std::declval<ReadStruct&>())) {
  TIDEMARK_TRY(handle, open_png(file));
  ErrorSink sink;
  ReadStruct png(sink);
  if (!png.valid()) {
    return fail(ErrorKind::Io, fmt::format("cannot read {}: libpng initialisation failed", file.string()));
  }
  if (!read_header(png.png(), png.info(), handle.get()))
    return fail(ErrorKind::BadInput, fmt::format("cannot read {}: {}", file.string(), sink.text()));
  auto done = then(png);
  if (!done) return fail(ErrorKind::BadInput, fmt::format("cannot read {}: {}", file.string(), sink.text()));
  return done;
}

}  // namespace

Result<PngSize> read_png_size(const std::filesystem::path& file) {
  return with_header(file, [](ReadStruct& png) -> Result<PngSize> {
    return PngSize{static_cast<int>(png_get_image_width(png.png(), png.info())),
                   static_cast<int>(png_get_image_height(png.png(), png.info()))};
  });
}

Result<Image> read_png(const std::filesystem::path& file) {
  return with_header(file, [](ReadStruct& png) -> Result<Image> {
    Decoded decoded;
    if (!decode(png.png(), png.info(), decoded)) return fail(ErrorKind::BadInput, "");
    return std::move(decoded.image);
  });
}

namespace {
// `file` is where the bytes go, `named` the file errors name (its final name).
Status write_png_at(const std::filesystem::path& file, const std::filesystem::path& named, const Image& image) {
  const size_t expected_bytes =
      static_cast<size_t>(std::max(image.width, 0)) * static_cast<size_t>(std::max(image.height, 0)) * 4;
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() != expected_bytes) {
    return fail(ErrorKind::Io, fmt::format("cannot write {}: image is {}x{} with {} bytes of pixels", named.string(),
                                           image.width, image.height, image.pixels.size()));
  }

  TIDEMARK_TRY(opened, open_file_to_write(file, WriteMode::Replace));
  FilePtr handle(::fdopen(opened.get(), "wb"));
  if (!handle) return std::unexpected(write_error(named, errno));
  opened.release();  // the FILE closes it

  std::vector<png_bytep> rows(static_cast<size_t>(image.height));
  for (size_t y = 0; y < rows.size(); ++y) {
    // libpng's row type is non-const even for writing; it does not modify the rows.
    rows[y] = const_cast<png_bytep>(image.pixels.data()) + y * static_cast<size_t>(image.width) * 4;
  }

  ErrorSink sink;
  bool encoded = false;
  {
    WriteStruct png(sink);
    if (!png.valid()) {
      std::snprintf(sink.message.data(), sink.message.size(), "libpng initialisation failed");
    } else {
      encoded = encode(png.png(), png.info(), handle.get(), image, rows.data());
    }
  }
  const int encode_error = errno;
  const bool write_failed = std::ferror(handle.get()) != 0;  // libpng's "Write Error" is the file's (a full disk)
  const bool closed = std::fclose(handle.release()) == 0;
  const int close_error = errno;
  if (!encoded || !closed) {
    std::error_code ignored;
    std::filesystem::remove(file, ignored);
    if (encoded || write_failed) return std::unexpected(write_error(named, encoded ? close_error : encode_error));
    return fail(ErrorKind::Io, fmt::format("cannot write {}: {}", named.string(), sink.message.data()));
  }
  return {};
}
}  // namespace

// Beside its name first, renamed over it when whole: a failed write leaves no half image.
Status write_png(const std::filesystem::path& file, const Image& image) {
  return replace_file(file,
                      [&](const std::filesystem::path& temporary) { return write_png_at(temporary, file, image); });
}

}  // namespace tidemark::check
