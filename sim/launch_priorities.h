// Stream priorities that make the hardware's own block dispatch carry out a plan that only orders whole
// launches (issue "Fidelity 2": fifo, sjf, knapsack, where a policy decides which launch's next block goes into
// a freed slot and never stops a running block). The hardware dispatches the pending blocks of the highest-
// priority grid first, and among grids of one priority in launch order; so a launch that the plan lets finish
// issuing its blocks before another launch it overlapped with (both had blocks to issue at once) gets a higher
// priority than that launch. Plain C++: tested without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "core/gpu_spec.h"
#include "core/run_result.h"
#include "core/workload.h"
#include "sim/runner.h"

namespace gpusched::sim {

struct LaunchPriorities {
  // Per launch: a CUDA stream priority, `least` (the default) down to `greatest` (lower numbers run first).
  std::vector<int> priority;
  int levels_needed = 1;    // 1 + the most inversions along a chain of overlapping launches
  int levels_given = 1;     // least - greatest + 1
  std::size_t clamped = 0;  // launches that needed a level the device does not have (got `greatest`)
};

// From the plan's pieces: a launch's issuing window is [release, start of its last block]; two launches whose
// windows overlap are ordered by the end of their windows (the earlier end issues first; ties by release, then
// index). Equal priorities keep release order, so only an inversion (the launch released later issues first)
// needs a level more: a launch's level is the most inversions along a chain of launches it must come before; its
// priority least - level, clamped at greatest. fifo's plans need one level. Launches with no pieces get `least`.
LaunchPriorities launch_priorities(const RunResult& plan, int least, int greatest);

// The same rule over any grids (launch_priorities' launches, parts_replay's parts): grid i's issuing window is
// [release[i], last_start[i]] (kNoWindow: no pieces, `least`); two grids are ordered only where their windows overlap
// and `compete(i, j)` says they may take the same slots (parts on disjoint SMs do not).
inline constexpr TimeNs kNoWindow = std::numeric_limits<TimeNs>::min();
LaunchPriorities window_priorities(const std::vector<TimeNs>& release, const std::vector<TimeNs>& last_start, int least,
                                   int greatest, const std::function<bool(std::size_t, std::size_t)>& compete);

// A plan carried out by the hardware's dispatcher: every launch of `w` at the priority launch_priorities(plan, 0,
// 1 - levels) gives it, simulated under the `priority` policy with `options`' interference and seed (its policy is
// replaced). How far `replay` is from `plan` is how far a native execution through stream priorities would be
// from the plan if the model were exact (docs/validation.md, "Which plans stream priorities can carry out").
// True when every block of the plan runs in one piece (nothing stopped and resumed): the hardware's dispatcher can run
// such a plan; how close it comes is what replay_as_priorities says.
bool runs_blocks_whole(const RunResult& plan);

// The bound a replay must meet for `gpusched-live validate --executor auto` to let the hardware carry out a plan
// other than fifo's, sjf's and knapsack's: issue "Fidelity 2"'s own bound on executed plans (median per-launch
// turnaround error under 10 %, p90 under 25 %) and the launches finishing in the plan's order. Launches short of a
// level need no rule of their own: the replay runs them at the device's greatest priority, as the GPU would.
struct ReplayBound {
  double median_pct = 10.0;
  double p90_pct = 25.0;
};
double nearest_rank_pct(std::vector<double> values, double q);  // q in [0, 1]; 0 for none
// The replay's turnarounds within the bound, whatever the order the launches finish in.
bool turnarounds_within(const struct PriorityReplay& r, ReplayBound bound = {});
// turnarounds_within, and the launches finishing in the plan's order.
bool replay_within(const struct PriorityReplay& r, ReplayBound bound = {});

// A launch the plan samples on one SM before it runs anywhere else (srtf's sampling, seed 001: its first blocks run
// on the sample SM while the other SMs go on with the running launch, and when the first of them ends the
// prediction decides where the launch goes). Priorities cannot say "these blocks on that SM first"; the native
// executor runs them as a grid of their own in a green context of the SM's group, ahead of everything, and the rest
// of the launch after it (docs/validation.md, "Samples on a green context").
struct PlannedSample {
  std::int32_t blocks = 0;  // blocks 0..blocks-1: those that start before the launch's first block ends
  std::int16_t sm = 0;      // the plan's sample SM
  TimeNs start = 0;         // the first block's start
  TimeNs end = 0;           // the first block end (the plan's prediction)
};
// Per launch: its sample, or nothing where blocks of it started on another SM before its first block ended (or
// the sample would be the whole launch, or not blocks 0..k-1).
std::vector<std::optional<PlannedSample>> planned_samples(const RunResult& plan);

struct PriorityReplay {
  LaunchPriorities priorities;
  RunResult replay;
  std::vector<double> turnaround_err_pct;  // per launch: |replayed - planned turnaround| / replayed x 100
  bool same_finish_order = true;           // the launches finish in the plan's order (ties by index)
  // replay_in_parts (sim/parts_replay.h) only, per launch of the workload: its first part's first block and its last
  // part's finish in the replay (the replay's launches are the parts).
  std::vector<TimeNs> launch_first_dispatch, launch_finish;
  // replay_in_parts only: the replay in the workload's own terms, its pieces those of the workload's launches and
  // blocks (a part's block k is its launch's block first + k) and its launches the plan's (release, arrival) with the
  // replay's first block and finish. An execution's measures of adherence to the plan (live/executor/
  // plan_adherence.h) apply to it as to the execution, so what they say of the replay is what the hardware's
  // placement of the parts alone makes of the plan.
  RunResult in_workload;
};
PriorityReplay replay_as_priorities(const Workload& w, const GpuSpec& gpu, const RunResult& plan, RunOptions options,
                                    int levels, AloneTimeCache& alone);

}  // namespace gpusched::sim
