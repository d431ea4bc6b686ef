// A status line for long commands (run, parity, red-once, soak): done/total, the item under
// way, the time so far and an estimate of the time left, redrawn in place on the terminal.
// Only when stdout is a terminal: piped into a file or a CI log, a command prints exactly what it
// printed before, and nothing else.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace tidemark {

enum class Verbosity { Quiet, Normal, Verbose };

class Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  struct Terminal {
    std::function<void(std::string_view)> write;  // raw bytes to the terminal
    size_t width = 80;                            // the status line is cut to fit: a wrapped one cannot be redrawn
  };

  // On stdout when it is a terminal (and `verbosity` is not quiet); otherwise a Progress that
  // draws nothing and prints lines as they are.
  static Progress for_stdout(std::string what, size_t total, Verbosity verbosity);
  // A drawing Progress on `terminal`; `tick` redraws it every quarter second (the elapsed time
  // moves while one long item runs).
  Progress(std::string what, size_t total, Terminal terminal, Clock clock, bool tick);
  Progress(Progress&&) = delete;
  ~Progress();  // clears the status line

  void start(std::string item);  // the item now under way
  void finish_item();            // one more done
  // A line of the command's output, printed above the status line.
  void print(std::string_view line);
  // The work is over: the status line goes, later lines print as they are.
  void close();
  // Clears the status line of the Progress drawing now, if any: before an error message.
  static void clear_active();
  // Holds the Progress drawing now, if any, still while the lock lives: its ticker is not in the
  // middle of a write and starts none, so a fork() under it copies no lock the ticker holds.
  static std::unique_lock<std::mutex> hold_active();
  // "[3/53] 12 s, ~41 s left  parity: reclaim/x"; empty when nothing is drawn.
  std::string status() const;

 private:
  explicit Progress(std::function<void(std::string_view)> plain);
  void redraw_locked();
  void clear_locked();
  std::string status_locked() const;

  std::string what_;
  size_t total_ = 0;
  size_t done_ = 0;
  std::string item_;
  Terminal terminal_;
  std::function<void(std::string_view)> plain_;  // not drawing: where lines go
  Clock clock_;
  std::chrono::steady_clock::time_point started_;
  bool drawing_ = false;
  bool drawn_ = false;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread ticker_;
  static std::atomic<Progress*> active_;
};

// "41 s", "3 min 05 s", "1 h 02 min".
std::string format_duration(std::chrono::seconds seconds);

}  // namespace tidemark
