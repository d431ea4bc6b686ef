#include "core/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace tidemark {

namespace {

void write_stdout(std::string_view bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fflush(stdout);
}

size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

std::string format_duration(std::chrono::seconds seconds) {
  const long long s = seconds.count();
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, s / 60 % 60);
}

Progress Progress::for_stdout(std::string what, size_t total, Verbosity verbosity) {
  if (verbosity == Verbosity::Quiet || !::isatty(STDOUT_FILENO)) return Progress(write_stdout);
  return Progress(
      std::move(what), total, Terminal{write_stdout, terminal_width()}, [] { return std::chrono::steady_clock::now(); },
      true);
}

std::atomic<Progress*> Progress::active_{nullptr};

Progress::Progress(std::function<void(std::string_view)> plain) : plain_(std::move(plain)) {}

Progress::Progress(std::string what, size_t total, Terminal terminal, Clock clock, bool tick)
    : what_(std::move(what)),
      total_(total),
      terminal_(std::move(terminal)),
      clock_(std::move(clock)),
      started_(clock_()),
      drawing_(true) {
  plain_ = terminal_.write;
  active_ = this;
  if (tick)
    ticker_ = std::jthread([this](std::stop_token stop) {
      std::unique_lock lock(mutex_);
      while (!stop.stop_requested()) {
        wake_.wait_for(lock, stop, std::chrono::milliseconds(250), [] { return false; });
        if (!stop.stop_requested()) redraw_locked();
      }
    });
}

Progress::~Progress() { close(); }

void Progress::close() {
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
  std::lock_guard lock(mutex_);
  clear_locked();
  drawing_ = false;
  Progress* self = this;
  active_.compare_exchange_strong(self, nullptr);
}

void Progress::clear_active() {
  if (Progress* progress = active_.load()) {
    std::lock_guard lock(progress->mutex_);
    progress->clear_locked();
  }
}

std::unique_lock<std::mutex> Progress::hold_active() {
  if (Progress* progress = active_.load()) return std::unique_lock(progress->mutex_);
  return {};
}

void Progress::start(std::string item) {
  std::lock_guard lock(mutex_);
  item_ = std::move(item);
  redraw_locked();
}

void Progress::finish_item() {
  std::lock_guard lock(mutex_);
  ++done_;
  redraw_locked();
}

void Progress::print(std::string_view line) {
  std::lock_guard lock(mutex_);
  if (!drawing_) {
    plain_(fmt::format("{}\n", line));
    return;
  }
  clear_locked();
  terminal_.write(fmt::format("{}\n", line));
  redraw_locked();
}

std::string Progress::status() const {
  std::lock_guard lock(mutex_);
  return status_locked();
}

std::string Progress::status_locked() const {
  if (!drawing_) return "";
  const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(clock_() - started_);
  std::string line = fmt::format("[{}/{}] {}", done_, total_, format_duration(elapsed));
  // The estimate: the mean time of the items done so far, for each one left.
  if (done_ > 0 && done_ < total_)
    line += fmt::format(", ~{} left", format_duration(elapsed * (total_ - done_) / done_));
  line += "  " + what_;
  if (!item_.empty() && done_ < total_) line += ": " + item_;
  if (line.size() >= terminal_.width) line.resize(terminal_.width - 1);
  return line;
}

void Progress::redraw_locked() {
  if (!drawing_) return;
  terminal_.write("\r\x1b[K" + status_locked());
  drawn_ = true;
}

void Progress::clear_locked() {
  if (!drawing_ || !drawn_) return;
  terminal_.write("\r\x1b[K");
  drawn_ = false;
}

}  // namespace tidemark
