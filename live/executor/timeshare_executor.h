// Time-sharing on the GPU (Share-a-GPU, seed 004; docs/validation.md, "Time-sharing on the GPU"): a time-sharing
// plan's steps carried out in the plan's order. Micro-kernels (the plain kernel launched over one range of its
// blocks, instrumented: every block stamped) run one after another on a compute stream; restores and saves of each
// launch's state (StateSwap: cudaMemcpyAsync between its device buffers and pinned host memory) run in the plan's
// order on a second stream, so they overlap other launches' micro-kernels. A micro-kernel waits for its launch's
// restore before it; a save waits for the micro-kernel before it.
#pragma once
#include <vector>

#include "live/executor/executor.h"
#include "live/executor/timeshare_plan.h"

namespace gpusched::live {

// `launches[i].kernel` must be launch i's own instance (its buffers are its state; no two launches share one).
// Launch i's first step is issued once its arrival has passed on the host clock (from the origin) and its
// predecessors' last micro-kernels have ended. The result's schedule has the blocks' pieces (from %globaltimer
// stamps) and the measured phases (from CUDA events, aligned to the same origin to within a few microseconds);
// `grids` counts micro-kernels. Throws LiveError on a CUDA error; ends the process (exit 1) past the watchdog.
ExecutionResult execute_timeshare(const std::vector<TimeshareStep>& steps, const std::vector<ExecLaunch>& launches,
                                  const ExecutorOptions& options);

}  // namespace gpusched::live
