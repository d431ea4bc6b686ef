#include "kernel/driver.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/limits.h"

#include "kernel/saturating.h"

namespace tidemark::kernel {

namespace {

template <class Named, class Value>
void keep_latest(std::vector<Named>& results, const std::string& name, Value value) {
  auto found = std::find_if(results.begin(), results.end(), [&](const Named& r) { return r.name == name; });
  if (found == results.end())
    results.push_back(Named{name, std::move(value)});
  else
    *found = Named{name, std::move(value)};
}

}  // namespace

KernelDriver::KernelDriver(const KmdConfig& kmd, const KgslConfig& kgsl, MutantId mutant)
    : scene_(kmd, mutant), backend_(kmd, mutant), kgsl_(kgsl, mutant) {}

struct KernelDriver::Apply {
  KernelDriver& d;
  void operator()(const KmdSubmitOp& op) {
    if (op.faults != SubmitFaults{}) d.scene_.arm(op.faults);
    d.scene_.submit(op.commands);
  }
  void operator()(const KmdAdvanceOp& op) {
    d.scene_.advance(op.ns);
    d.backend_.advance(op.ns);
  }
  void operator()(const KmdWaitOp& op) { d.scene_.wait(op.fence, op.timeout_ns); }
  void operator()(const KmdFrameOp&) {
    d.scene_.frame();
    d.backend_.frame();
  }
  void operator()(const KmdSignalOp& op) { d.scene_.signal(op.semaphore); }
  void operator()(const KmdFaultOp& op) { d.queue(op.queue).arm(op.faults); }
  void operator()(const KmdDiagnoseOp& op) { keep_latest(d.report_.diagnoses, op.name, d.queue(op.queue).diagnose()); }
  // A devfreq status read covers total_us of time: the kernel's clock moves on by as much.
  void operator()(const KgslSampleOp& op) {
    d.kgsl_.sample(op.busy_us, op.total_us, op.freq_hz);
    (*this)(KmdAdvanceOp{saturating_mul(op.total_us, 1000)});
  }
  void operator()(const KgslPowerOp& op) { d.kgsl_.set_axi_power(op.axi_on); }
  void operator()(const KgslReadOp& op) {
    std::string text;
    switch (op.node) {
      case KgslNode::Gpubusy:
        text = d.kgsl_.read_gpubusy();
        break;
      case KgslNode::GpuLoad:
        text = d.kgsl_.read_gpu_load();
        break;
      case KgslNode::TracePipe:
        for (const auto& line : d.kgsl_.take_trace()) text += line + "\n";
        break;
    }
    keep_latest(d.report_.reads, op.name, std::move(text));
  }
};

// The operation is carried out, then its records counted: the step that passes a bound is the
// one the error names (the run stops there).
Status KernelDriver::apply(const KernelOp& op) {
  std::visit(Apply{*this}, op);
  if (kgsl_.unread_events() > kMaxKeptRecords)
    return fail(ErrorKind::BadInput,
                fmt::format("expected at most {} kgsl_gpubusy events waiting for a trace_pipe read, found {} (a "
                            "kgsl_read of trace_pipe consumes them)",
                            kMaxKeptRecords, kgsl_.unread_events()));
  if (scene_.semaphores_signalled() > kMaxKeptRecords)
    return fail(ErrorKind::BadInput, fmt::format("expected at most {} distinct semaphores signalled in a run, found {}",
                                                 kMaxKeptRecords, scene_.semaphores_signalled()));
  return {};
}

void KernelDriver::fill(KernelGauges& g) const {
  const KmdCounters& c = scene_.counters();
  g.ksubmits = c.submits;
  g.krefused = c.refused;
  g.kfence = static_cast<int64_t>(scene_.fence());
  g.kseen = static_cast<int64_t>(scene_.seen_fence());
  g.khead = scene_.head();
  g.ktail = scene_.tail();
  g.kdoorbell = scene_.doorbell_register();
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
  g.kkept = scene_.command_buffers_kept();
  g.ksleeps = c.sleeps;
  g.kwakes = c.wakes;
  g.kbusyus = c.busy_ns / 1000;
  g.kclockus = static_cast<int64_t>(scene_.now() / 1000);
  const KmdCounters& b = backend_.counters();
  g.kbsubmits = b.submits;
  g.kbfence = static_cast<int64_t>(backend_.fence());
  g.kbringpk = b.ring_peak;
  g.kbdoorlost = b.doorbells_lost;
  g.kbkicks = b.kicks;
  g.kbwaits = b.waits;
  g.kbtimeouts = b.wait_timeouts;
  g.kbuaf = b.uaf;
  g.kbrecycled = b.recycled;
  g.kbkept = backend_.command_buffers_kept();
  g.kgslsamples = kgsl_.samples();
  g.kgslevents = kgsl_.events();
}

}  // namespace tidemark::kernel
