// The Qualcomm kgsl driver's GPU busy statistics, modelled deterministically: the pwrctrl
// clock stats behind the `gpubusy` node and the `kgsl_gpubusy` trace event, and the adreno tz
// governor's load accumulators behind `gpu_load`. Both are fed by one devfreq status read per
// frequency decision. Facts: ../shared/specs/kernel-model.md section 7 (seed 002), checked
// against the msm-4.14 kgsl_pwrctrl.c / kgsl_trace.h and governor_msm_adreno_tz.c.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "core/kernel_types.h"
#include "core/mutants.h"

namespace tidemark::kernel {

class KgslBusyStats {
 public:
  explicit KgslBusyStats(KgslConfig config = {}, MutantId mutant = MutantId::None);

  // One frequency decision: kgsl_devfreq_get_dev_status reports `busy_us` and `total_us` since
  // the previous one at `freq_hz`; both the pwrctrl clock stats and the tz governor's load
  // accumulators take it. The clock stats are 32-bit (they wrap as the kernel's do) and see
  // the raw times; only the governor shifts times of 2^24 us or more right by 7.
  void sample(uint64_t busy_us, uint64_t total_us, uint64_t freq_hz);

  void set_axi_power(bool on);  // KGSL_PWRFLAGS_AXI_ON; starts on
  bool axi_power() const { return axi_on_; }

  // The gpubusy node: "%7d %7d\n" of busy_old, total_old; the read clears them only while
  // the AXI power flag is off (with the GPU up, the last window stays readable).
  std::string read_gpubusy();
  // The gpu_load node: the frequency-scaled busy percentage since the previous read, "%lu\n";
  // every read resets the accumulators.
  std::string read_gpu_load();
  // What a gpu_load read would print now, without the read's reset.
  int64_t load_percent() const;
  // The kgsl_gpubusy trace lines emitted since the last call, consumed like trace_pipe.
  std::vector<std::string> take_trace();
  size_t unread_events() const { return trace_.size(); }

  int64_t samples() const { return samples_; }  // counts so far, for gauges
  int64_t events() const { return events_; }
  const KgslConfig& config() const { return config_; }

 private:
  KgslConfig config_;
  MutantId mutant_;
  bool axi_on_ = true;
  // struct kgsl_clk_stats: unsigned int in the kernel, so sums wrap at 2^32.
  uint32_t busy_ = 0;
  uint32_t total_ = 0;
  uint32_t busy_old_ = 0;
  uint32_t total_old_ = 0;
  // The governor's acc_total / acc_relative_busy: unsigned long (64-bit on arm64).
  uint64_t acc_total_ = 0;
  uint64_t acc_relative_busy_ = 0;
  std::vector<std::string> trace_;
  int64_t samples_ = 0;
  int64_t events_ = 0;
};

}  // namespace tidemark::kernel
