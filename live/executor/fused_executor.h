// Carries out a plan with fused workers (docs/validation.md, "Fused workers"): one grid of workers that fills every
// SM, started once; each worker runs the entries of its SM's one queue, whatever launch they belong to.
#pragma once
#include <vector>

#include "live/executor/executor.h"
#include "live/executor/fused_plan.h"

namespace gpusched::live {

// Why the fused worker cannot carry out these launches (a kernel wider than the worker, or narrower and unable to
// run on part of it); empty when it can.
std::string fused_refusal(const std::vector<ExecLaunch>& launches);

// Releases are on the GPU (each worker compares %globaltimer with the launch's arrival from the origin stamp, and
// waits for its predecessors' pieces to be counted), so the host only starts the grid and waits for it (watchdog:
// options.timeout_s). Green contexts, grids per launch and entries per worker do not apply. Throws LiveError on a
// CUDA error or where fused_refusal says no.
ExecutionResult execute_fused_plan(const FusedPlan& plan, const std::vector<ExecLaunch>& launches,
                                   const ExecutorOptions& options);

}  // namespace gpusched::live
