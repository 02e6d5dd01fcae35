// Replays a Schedule through the Simple Slicing predictor, as seed 001 section 4.2 evaluates it on
// traces: block starts and ends, launch releases and finishes in time order. For every launch it keeps
// the first prediction (after its first block finished: "slice-unaware") and the first prediction of
// its last slice ("/SS"), each as a ratio to the actual runtime.
#pragma once
#include <string>
#include <vector>

#include "core/gpu_spec.h"
#include "core/run_result.h"
#include "core/workload.h"

namespace gpusched::sim {

struct LaunchPrediction {
  std::size_t launch = 0;
  TimeNs actual = 0;               // finish - first dispatch
  double first_ratio = 0.0;        // first prediction / actual
  double last_slice_ratio = 0.0;   // first prediction of the last slice / actual
  bool has_prediction = false;
};

std::vector<LaunchPrediction> replay_predictions(const Workload& w, const GpuSpec& gpu, const RunResult& run);

}  // namespace gpusched::sim
