// The kernel driver beside the backend, as a scenario drives it: the submission path and the
// kgsl busy statistics behind one set of scripted operations (each a scenario step and a
// pipelined wire message), named results (diagnoses, node reads) and the k* gauges.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "core/error.h"
#include "core/gauges.h"
#include "core/kernel_types.h"
#include "core/mutants.h"
#include "kernel/kgsl.h"
#include "kernel/submission.h"

namespace tidemark::kernel {

class KernelDriver {
 public:
  KernelDriver(const KmdConfig& kmd, const KgslConfig& kgsl, MutantId mutant);

  // Bad input when the operation would keep more than kMaxKeptRecords records of a kind.
  Status apply(const KernelOp& op);
  SubmissionModel& queue(Queue which) { return which == Queue::Scene ? scene_ : backend_; }
  const SubmissionModel& queue(Queue which) const { return which == Queue::Scene ? scene_ : backend_; }
  const KgslBusyStats& kgsl() const { return kgsl_; }
  const KernelReport& report() const { return report_; }
  // The kmd gauges (k* the scene's queue, kb* the backend's) and kgsl's; the memory half fills its own.
  void fill(KernelGauges& gauges) const;

 private:
  struct Apply;  // the visitor: one overload per operation

  SubmissionModel scene_;
  SubmissionModel backend_;
  KgslBusyStats kgsl_;
  KernelReport report_;
};

}  // namespace tidemark::kernel
