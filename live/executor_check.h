// The executor checked against the CPU references (part of `gpusched-live check`): every suite kernel's small size
// run by persistent workers, and, for kernels with safe points, every block stopped and run again from its saved
// state (switch) or from its start (flush) before it is run to its end; and time-sharing's micro-kernels with their
// state swapped out to host memory and back between them.
#pragma once
#include <string>
#include <vector>

#include "live/executor/exec_types.h"
#include "live/suite/suite.h"

namespace gpusched::live {

struct ExecutorCheck {
  std::string problem;  // "" when the outputs match the CPU reference
  int stopped = 0;      // pieces flushed or switched out
  int resumed = 0;      // pieces that resumed a saved state
};

// `kind` Run: one entry per block, taken from per-SM queues, or with `hardware_placed` one worker per block placed by
// the hardware (plan.h). Flush or Switch: per block, entries stopped after 0, 500 and 1,000 ns, then one run to the
// end, all on one SM with one worker there, so the pieces follow one another.
ExecutorCheck check_under_executor(SuiteKernel& k, int sm_count, EntryKind kind, double timeout_s,
                                   bool hardware_placed = false);

// The fused worker (fused_executor.h) on every kernel of `kernels` at once: their small sizes as launches of one plan,
// each SM's queue alternating between them; with `kind` Flush or Switch (kernels with safe points only), per block
// entries stopped after 0, 500 and 1,000 ns, then one run to the end, each waiting for the SM's previous one. Returns
// "" when every kernel's outputs match its CPU reference. `lanes`: ExecutorOptions::lanes (narrow kernels' blocks
// two to a worker).
std::string check_under_fused(const std::vector<SuiteKernel*>& kernels, int sm_count, EntryKind kind, double timeout_s,
                              bool lanes, ExecutorCheck* counts = nullptr);

// Time-sharing's state swap: the small size run as `micro_kernels` micro-kernels (ranges of its blocks); before each,
// every device buffer is overwritten and the state restored from pinned host memory, after each the written buffers
// are saved there. Returns "" when the final outputs (restored once more) match the CPU reference.
std::string check_time_shared(SuiteKernel& k, int micro_kernels, double timeout_s);

}  // namespace gpusched::live
