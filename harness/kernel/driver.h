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
#include "core/mutants.h"
#include "kernel/kgsl.h"
#include "kernel/submission.h"

namespace tidemark::kernel {

struct KmdSubmitOp {
  std::vector<Command> commands;
  SubmitFaults faults;  // this submit's own faults (added to any armed with KmdFaultOp)
  static auto fields(auto& m) { return std::tie(m.commands, m.faults); }
};
struct KmdAdvanceOp {
  uint64_t ns = 0;
  static auto fields(auto& m) { return std::tie(m.ns); }
};
struct KmdWaitOp {
  uint64_t fence = 0;
  uint64_t timeout_ns = 0;
  static auto fields(auto& m) { return std::tie(m.fence, m.timeout_ns); }
};
struct KmdFrameOp {
  static auto fields(auto&) { return std::tie(); }
};
struct KmdSignalOp {
  uint64_t semaphore = 0;
  static auto fields(auto& m) { return std::tie(m.semaphore); }
};
// The driver runs two queues, each its own ring, engine and fence: the scene's, which scripted
// submits, waits and signals use, and the backend's, which carries the backend's queue submits.
// Time and frames pass on both.
enum class Queue : uint8_t { Scene, Backend };
inline constexpr std::string_view kQueueNames[] = {"scene", "backend"};

// Faults for the next submit on a queue.
struct KmdFaultOp {
  SubmitFaults faults;
  Queue queue = Queue::Scene;
  static auto fields(auto& m) { return std::tie(m.faults, m.queue); }
};
struct KmdDiagnoseOp {
  std::string name;
  Queue queue = Queue::Scene;
  static auto fields(auto& m) { return std::tie(m.name, m.queue); }
};
struct KgslSampleOp {
  uint64_t busy_us = 0;
  uint64_t total_us = 0;
  uint64_t freq_hz = 0;
  static auto fields(auto& m) { return std::tie(m.busy_us, m.total_us, m.freq_hz); }
};
struct KgslPowerOp {
  bool axi_on = true;
  static auto fields(auto& m) { return std::tie(m.axi_on); }
};
enum class KgslNode : uint8_t { Gpubusy, GpuLoad, TracePipe };
inline constexpr std::string_view kKgslNodeNames[] = {"gpubusy", "gpu_load", "trace_pipe"};
struct KgslReadOp {
  KgslNode node = KgslNode::Gpubusy;
  std::string name;
  static auto fields(auto& m) { return std::tie(m.node, m.name); }
};

using KernelOp = std::variant<KmdSubmitOp, KmdAdvanceOp, KmdWaitOp, KmdFrameOp, KmdSignalOp, KmdFaultOp,
                              KmdDiagnoseOp, KgslSampleOp, KgslPowerOp, KgslReadOp>;

// What the named operations produced; a name used again keeps its latest result.
struct NamedDiagnosis {
  std::string name;
  Diagnosis diagnosis;
  static auto fields(auto& m) { return std::tie(m.name, m.diagnosis); }
  bool operator==(const NamedDiagnosis&) const = default;
};
struct NamedRead {
  std::string name;
  std::string text;
  static auto fields(auto& m) { return std::tie(m.name, m.text); }
  bool operator==(const NamedRead&) const = default;
};
struct KernelReport {
  std::vector<NamedDiagnosis> diagnoses;
  std::vector<NamedRead> reads;
  static auto fields(auto& m) { return std::tie(m.diagnoses, m.reads); }
  bool operator==(const KernelReport&) const = default;
};

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
