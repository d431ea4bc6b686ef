// Ending a process by a signal whatever handler it set. Header-only: the Vulkan layer, which
// links nothing of core, raises a driver's crash with it too.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>

namespace tidemark {

// Ends this process by `signal` (its default action restored first, by the system call itself: a
// sanitizer intercepts signal() and sigaction() and would turn a SIGSEGV into a report and an exit).
[[noreturn]] inline void die_by_signal(int signal) {
  struct {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    uint64_t mask;
  } default_action{SIG_DFL, 0, nullptr, 0};  // the kernel's struct sigaction
  ::syscall(SYS_rt_sigaction, signal, &default_action, nullptr, sizeof default_action.mask);
  ::raise(signal);
  std::_Exit(128 + signal);  // a signal whose default action is not to end the process
}

}  // namespace tidemark
