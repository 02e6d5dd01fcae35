// Native runs (docs/validation.md, "Native hardware vs prediction"): a workload's launches as plain CUDA launches
// of the suite's instrumented kernels, issued by the host at their arrival times, on one CUDA stream per workload
// stream (a launch of no stream gets its own) with events for explicit dependencies. No executor: the hardware
// places every block itself, so this is the ground truth for fifo. Every block is stamped as the recorder stamps
// it; the host's clock is lined up with %globaltimer (timing_probe.h), so times count from the host's t = 0 and a
// launch's turnaround includes its launch latency.
#pragma once
#include <string>
#include <vector>

#include "core/schedule.h"
#include "core/workload.h"
#include "live/executor/exec_types.h"
#include "live/suite/suite.h"

namespace gpusched::live {

struct NativeLaunch {
  SuiteKernel* kernel = nullptr;  // set up (inputs on the GPU)
  LaunchShape shape;
};

struct NativeExecution {
  Schedule schedule;             // every block, from the host's t = 0 on the GPU clock
  TimeNs max_issue_lag = 0;      // the latest a launch (or part) call came after its time (the host's own delay)
  TimeNs clock_uncertainty = 0;  // half the clock synchronisation's round trip
  std::vector<TimeNs> call_ns;   // per launch (per part, of a launch in parts) in issue order: the host's launch call
  std::vector<TimeNs> called;    // per launch: when the host called the launch, from t = 0 (its issue lag included)
  // Per launch in parts, per part: when the host called the part's grid (or raised its gate), from t = 0.
  std::vector<std::vector<TimeNs>> part_called;
  bool gated = false;            // the parts went in ahead behind gates (gate_parts, with every launch in parts)
  std::int64_t origin_ns = 0;    // the host's t = 0 on the GPU clock (%globaltimer): where pieces' times count from
};

struct NativeRunOptions {
  double timeout_s = 60;
  std::vector<int> priorities;  // empty: one CUDA stream per workload stream
  TimeNs lead_in_ns = 300'000;  // host time between the clock synchronisation and t = 0
  // Empty, or one per launch: a launch with a sample stream runs its first `blocks` blocks as a grid of their own on
  // that stream (a green context's, at the greatest priority: a planned sample, sim::planned_samples), and the rest
  // of its blocks on its own stream once they have all ended.
  struct Sample {
    void* stream = nullptr;  // a cudaStream_t; null: no sample
    int blocks = 0;
    // Another stream of the same green context, or null. When set, only block 0 runs on `stream` and the rest of the
    // launch waits for it alone (the plan's prediction is its first sample block's end); blocks 1..blocks-1 run here.
    void* others = nullptr;
  };
  std::vector<Sample> samples;
  // Empty, or one list per launch (not with `samples`): a launch with parts runs each as a grid of its own, blocks
  // first..first+blocks-1, on the part's stream (a green context's of the SMs the plan gives it: sim::planned_parts),
  // issued `issue_at` after the host's t = 0 but not before the launch itself. The parts cover the launch's blocks in
  // order; each waits for the launch's predecessors; the launch is done when every part has ended.
  struct Part {
    void* stream = nullptr;  // a cudaStream_t, one per part
    int first = 0;
    int blocks = 0;
    TimeNs issue_at = 0;
    // A part of pieces (sim::planned_piece_parts): where set, the part runs entries first..first+blocks-1 of its
    // launch's entries (one per worker, `pieces` being the view of that slice: SuiteKernel::execute_part), not
    // blocks; its records are the caller's to read, and the launch's blocks get no pieces in the NativeExecution.
    // Every part of a launch has pieces, or none.
    const ExecQueues* pieces = nullptr;
    // > 0 (parts of blocks only): the part runs as workers held to this many an SM, each running the part's blocks
    // in turn (SuiteKernel::launch_capped; gpusched-live validate --capped-parts), `workers` of them.
    int cap = 0;
    int workers = 0;
  };
  std::vector<std::vector<Part>> parts;
  // With parts for every launch (otherwise ignored: a whole launch's done event would come after the gated parts
  // that wait on it): launch them all before t = 0, each behind a stream wait on a counter in mapped host
  // memory (cuStreamWaitValue32), and at each part's time only raise the counter to its rank: a store instead of a
  // launch call, so a plan of many parts does not wait for the host.
  bool gate_parts = false;
  // Where set (device memory), the host's t = 0 on the GPU clock is written there before the first part runs (parts of
  // pieces that stop at their planned end read it: ExecQueues::stop_origin).
  std::uint64_t* origin_device = nullptr;
  // Tests of the error paths: "hang" or "error", a faulty kernel ahead of the first launch (or part), on its stream.
  std::string inject_fault;
};

// Throws LiveError on a CUDA error; ends the process (exit 1) past `timeout_s`. With `priorities` (one CUDA stream
// priority per launch, launch_priorities.h) every launch gets a stream of its own at its priority, and waits for
// the launches before it in its workload stream (and its explicit dependencies) through events. A launch with a
// sample stream waits for the same launches on both of its streams.
NativeExecution run_native(const Workload& w, const std::vector<NativeLaunch>& launches,
                           const NativeRunOptions& options);

}  // namespace gpusched::live
