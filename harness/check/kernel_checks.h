// Checks over what the kernel model shows at the end of a workload: the GpuMem dump, the
// per-type nodes, the kmd's named diagnoses and kgsl's named node reads.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "check/check.h"
#include "kernel/driver.h"
#include "scenario/scenario.h"

namespace tidemark::check {

// The GpuMem dump as an analyst reads it: the whole text, or lines it must and must not hold.
Outcome check_kernel_dump(const scenario::KernelDumpCheck& check, std::string_view dump);

// The scenario's `index`-th node check against the node's text as read (nullopt: no node).
Outcome check_kernel_node(const scenario::KernelNodeCheck& check, const std::optional<std::string>& read, size_t index);

// A named diagnosis: every field the check lists reads as written; the detail shows the whole
// diagnosis so a red run says what the observer saw instead.
Outcome check_diagnosis(const scenario::DiagnosisCheck& check, const kernel::KernelReport& report, size_t index);

// A named kgsl node read: its exact text (newlines shown as \n).
Outcome check_kgsl_read(const scenario::KgslReadCheck& check, const kernel::KernelReport& report, size_t index);

}  // namespace tidemark::check
