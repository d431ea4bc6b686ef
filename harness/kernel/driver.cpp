#include "kernel/driver.h"

#include <algorithm>

namespace tidemark::kernel {

namespace {

template <class Named, class Value>
void keep_latest(std::vector<Named>& results, const std::string& name, Value value) {
  auto found = std::find_if(results.begin(), results.end(), [&](const Named& r) { return r.name == name; });
  if (found == results.end()) results.push_back(Named{name, std::move(value)});
  else *found = Named{name, std::move(value)};
}

}  // namespace

KernelDriver::KernelDriver(const KmdConfig& kmd, const KgslConfig& kgsl, MutantId mutant)
    : submissions_(kmd, mutant), kgsl_(kgsl, mutant) {}

struct KernelDriver::Apply {
  KernelDriver& d;
  void operator()(const KmdSubmitOp& op) {
    if (op.faults != SubmitFaults{}) d.submissions_.arm(op.faults);
    d.submissions_.submit(op.commands);
  }
  void operator()(const KmdAdvanceOp& op) { d.submissions_.advance(op.ns); }
  void operator()(const KmdWaitOp& op) { d.submissions_.wait(op.fence, op.timeout_ns); }
  void operator()(const KmdFrameOp&) { d.submissions_.frame(); }
  void operator()(const KmdSignalOp& op) { d.submissions_.signal(op.semaphore); }
  void operator()(const KmdFaultOp& op) { d.submissions_.arm(op.faults); }
  void operator()(const KmdDiagnoseOp& op) { keep_latest(d.report_.diagnoses, op.name, d.submissions_.diagnose()); }
  void operator()(const KgslSampleOp& op) { d.kgsl_.sample(op.busy_us, op.total_us, op.freq_hz); }
  void operator()(const KgslPowerOp& op) { d.kgsl_.set_axi_power(op.axi_on); }
  void operator()(const KgslReadOp& op) {
    std::string text;
    switch (op.node) {
      case KgslNode::Gpubusy: text = d.kgsl_.read_gpubusy(); break;
      case KgslNode::GpuLoad: text = d.kgsl_.read_gpu_load(); break;
      case KgslNode::TracePipe:
        for (const auto& line : d.kgsl_.take_trace()) text += line + "\n";
        break;
    }
    keep_latest(d.report_.reads, op.name, std::move(text));
  }
};

void KernelDriver::apply(const KernelOp& op) { std::visit(Apply{*this}, op); }

void KernelDriver::fill(KernelGauges& g) const {
  const KmdCounters& c = submissions_.counters();
  g.ksubmits = c.submits;
  g.krefused = c.refused;
  g.kfence = static_cast<int64_t>(submissions_.fence());
  g.kseen = static_cast<int64_t>(submissions_.seen_fence());
  g.khead = submissions_.head();
  g.ktail = submissions_.tail();
  g.kdoorbell = submissions_.doorbell_register();
  g.kringpk = c.ring_peak;
  g.kringwaits = c.ring_waits;
  g.kringwaitus = c.ring_wait_ns / 1000;
  g.kdoorlost = c.doorbells_lost;
  g.krewrites = c.doorbell_rewrites;
  g.kkicks = c.kicks;
  g.kwaits = c.waits;
  g.ktimeouts = c.wait_timeouts;
  g.kfenceback = c.fence_regressions;
  g.kmagic = c.magic_caught;
  g.kstale = c.stale_reads;
  g.kclobbered = c.clobbered;
  g.kuaf = c.uaf;
  g.krecycled = c.recycled;
  g.kkept = submissions_.command_buffers_kept();
  g.ksleeps = c.sleeps;
  g.kwakes = c.wakes;
  g.kbusyus = c.busy_ns / 1000;
  g.kclockus = static_cast<int64_t>(submissions_.now() / 1000);
  g.kgslsamples = kgsl_.samples();
  g.kgslevents = kgsl_.events();
}

}  // namespace tidemark::kernel
