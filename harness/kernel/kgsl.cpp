#include "kernel/kgsl.h"

#include <fmt/format.h>

#include <utility>

namespace tidemark::kernel {

namespace {

// The governor's overflow guard: either time at 2^24 us or more shifts both right by 7.
constexpr uint64_t kShiftAt = uint64_t{1} << 24;
constexpr int kShiftBy = 7;

}  // namespace

KgslBusyStats::KgslBusyStats(KgslConfig config, MutantId mutant) : config_(std::move(config)), mutant_(mutant) {}

void KgslBusyStats::sample(uint64_t busy_us, uint64_t total_us, uint64_t freq_hz) {
  ++samples_;

  // pwrctrl: the u64 times land in unsigned int fields, so the sums are taken mod 2^32.
  total_ += static_cast<uint32_t>(total_us);
  busy_ += static_cast<uint32_t>(busy_us);
  uint64_t update_busy_us = mutant_is(mutant_, MutantId::KgslSeedBusyVal) ? 1'000 : config_.update_busy_us;
  if (uint64_t{total_} >= update_busy_us) {
    total_old_ = total_;
    busy_old_ = busy_;
    total_ = 0;
    busy_ = 0;
    // The source's TP_printk says d_name= (seed 002 shows device_name=): busy is printed as
    // %u, elapsed as %d, so an elapsed above INT_MAX prints negative.
    std::string_view key = mutant_is(mutant_, MutantId::KgslSeedTraceFormat) ? "device_name" : "d_name";
    trace_.push_back(fmt::format("kgsl_gpubusy: {}={} busy={} elapsed={}", key, config_.device_name, busy_old_,
                                 static_cast<int32_t>(total_old_)));
    ++events_;
  }

  // tz governor: shift first, then compute_work_load accumulates the shifted times (msm-3.18's
  // tz_get_target_freq; the msm-4.14 copies read for this have no shift at all: the spec's
  // shift is kept, and kgsl.no_overflow_shift is what such a kernel would print).
  uint64_t busy = busy_us;
  uint64_t total = total_us;
  if (!mutant_is(mutant_, MutantId::KgslNoOverflowShift) && (busy >= kShiftAt || total >= kShiftAt)) {
    busy >>= kShiftBy;
    total >>= kShiftBy;
  }
  acc_total_ += total;
  const uint64_t max_hz = config_.freq_table_hz.empty() ? 0 : config_.freq_table_hz.front();
  if (max_hz == 0 || mutant_is(mutant_, MutantId::KgslLoadUnscaled)) {
    acc_relative_busy_ += busy;  // no usable maximum: as if the sample ran at it
  } else {
    acc_relative_busy_ += busy * freq_hz / max_hz;  // u64 arithmetic, wrapping like the kernel's
  }
}

void KgslBusyStats::set_axi_power(bool on) { axi_on_ = on; }

std::string KgslBusyStats::read_gpubusy() {
  std::string text = fmt::format("{:7d} {:7d}\n", static_cast<int32_t>(busy_old_), static_cast<int32_t>(total_old_));
  bool resets = !axi_on_ || mutant_is(mutant_, MutantId::KgslGpubusyAlwaysResets);
  if (resets && !mutant_is(mutant_, MutantId::KgslGpubusyNeverResets)) {
    busy_old_ = 0;
    total_old_ = 0;
  }
  return text;
}

int64_t KgslBusyStats::load_percent() const {
  return acc_total_ ? static_cast<int64_t>(acc_relative_busy_ * 100 / acc_total_) : 0;
}

std::string KgslBusyStats::read_gpu_load() {
  const int64_t percent = load_percent();
  if (!mutant_is(mutant_, MutantId::KgslLoadReadKeeps)) {
    acc_total_ = 0;
    acc_relative_busy_ = 0;
  }
  return fmt::format("{}\n", percent);
}

std::vector<std::string> KgslBusyStats::take_trace() { return std::exchange(trace_, {}); }

}  // namespace tidemark::kernel
