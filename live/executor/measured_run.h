// A measured execution as a run: the launches' outcomes and the run's metrics from the measured Schedule, with
// the same definitions the simulator uses (docs/metrics.md), so that a prediction and its measurement compare
// figure by figure. Plain C++ (no CUDA): tested without a GPU.
#pragma once
#include <vector>

#include "core/gpu_spec.h"
#include "core/run_result.h"
#include "core/workload.h"

namespace gpusched::live {

// `measured` holds the pieces the GPU ran (times from the execution's origin, when launch arrivals are counted
// from); `alone` is each launch's measured time alone on the GPU. A launch's release is its arrival or, when it
// depends on others, the latest of their measured finishes. The area bound is the prediction's (it is a property of
// the workload's recorded block times); preemptions count flushed, switched-out and killed pieces, wasted work the
// flushed and killed pieces' time. Throws std::invalid_argument when a launch has no piece that ran to its end.
RunResult measured_run(const Workload& w, const GpuSpec& gpu, Schedule measured, const std::vector<TimeNs>& alone,
                       const RunResult& predicted);

}  // namespace gpusched::live
