// Per-launch outcomes and run metrics: STP and ANTT (Eyerman & Eeckhout), StrictF (min slowdown over
// max slowdown, seed 001 section 6), makespan and its lower bounds, SM utilisation, preemption figures.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"

namespace gpusched {

struct LaunchOutcome {
  TimeNs arrival = 0;  // as given by the workload
  TimeNs release = 0;  // arrival once its dependencies finished: the start of its turnaround
  TimeNs first_dispatch = -1;
  TimeNs finish = -1;
  TimeNs turnaround = 0;  // finish - release
  TimeNs alone = 0;       // time alone on the GPU (the launch by itself under `serial`)
  double slowdown = 0.0;  // turnaround / alone
  bool deadline_missed = false;
  bool killed = false;  // killed by its policy (at its deadline); counts as a missed deadline
  std::int64_t blocks = 0;
};

struct Metrics {
  double stp = 0.0;          // sum of alone / turnaround
  double antt = 0.0;         // mean of turnaround / alone
  double strict_f = 0.0;     // min slowdown / max slowdown (1 = fair)
  TimeNs makespan = 0;       // last finish - first arrival
  TimeNs bound_area = 0;     // max over SM limits of block time x the block's fraction of that limit, / SMs
  TimeNs bound_longest = 0;  // max over launches of (arrival - first arrival + alone)
  TimeNs bound = 0;          // max of the two
  double makespan_over_bound = 0.0;
  double sm_utilization = 0.0;  // SM-time with at least one resident block / (SMs x makespan)
  double warp_occupancy = 0.0;  // time-averaged resident warps / max warps over all SMs, within makespan
  int deadline_misses = 0;
  std::int64_t preemptions = 0;
  TimeNs wasted_work = 0;  // flushed block time
  TimeNs mean_preemption_latency = 0;
  TimeNs max_preemption_latency = 0;
};

// Where a launch's turnaround starts: its release (arrival once its dependencies, stream predecessors included,
// have finished: the default) or its arrival (the host's submission: Eyerman and Eeckhout's turnaround of a job
// submitted at that time, which seed 002's ANTT uses with every kernel submitted at t = 0).
enum class TurnaroundFrom { Release, Arrival };

// Fills turnaround/slowdown in `launches` and the launch-based metrics (STP, ANTT, StrictF, makespan,
// bound_longest, deadlines). Area bound, utilisation and preemption figures are filled by the caller.
Metrics compute_launch_metrics(std::vector<LaunchOutcome>& launches, TurnaroundFrom from = TurnaroundFrom::Release);

}  // namespace gpusched
