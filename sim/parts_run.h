// What the parts replays (sim/parts_replay.h: parts of whole blocks; sim/piece_parts_replay.h: parts of pieces) share:
// a plan's parts run as launches of their own on the hardware's dispatcher with stream priorities, each confined to
// an SM set, and the result read back in the workload's terms. Plain C++: tested through the two replays.
#pragma once
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/run_result.h"
#include "core/workload.h"
#include "sim/launch_priorities.h"
#include "sim/runner.h"

namespace gpusched::sim {

// A plan's parts as launches, one a part, launch by launch and part by part.
struct PartLaunches {
  std::vector<std::shared_ptr<const KernelProfile>> kernels;  // per part: its kernel (launches[k].kernel indexes it)
  std::vector<Launch> launches;       // per part: arrival its release (the front end's starts are added after)
  std::vector<std::vector<int>> sms;  // per part: the SMs its grid may use (empty or all of them: every SM)
  std::vector<int> caps;              // per part: the most of its blocks an SM at once (INT_MAX: none)
  std::vector<std::size_t> owner;     // per part: its launch in the workload
  std::vector<std::vector<std::int32_t>> block_of;  // per part: its block b's block in its launch
  // Each part waits for every part of its launch's predecessors in the workload's DAG (stream order and `after`) to
  // end, as the executor's part streams wait for a predecessor's count of ended blocks (live/timing/native_run.cpp,
  // await_launch); false: each part at its release, whatever its predecessors (the replays before session 60).
  bool predecessors = false;
};

// Runs `parts` (the grids leaving the front end one at a time, GpuSpec::grid_start_interval_ns) on the dispatcher
// that places each freed slot from the highest-priority pending grid that may run there, a grid with blocks left
// holding its SMs against the grids behind it; `options`' interference and seed are kept. The result: `replay` the
// parts as launches, `in_workload` its pieces as those of `w`'s launches and blocks (block_of) with the plan's
// launches given the replay's first block and finish, each launch of `w` finishing with its last part, its
// turnaround error against the plan's (from the plan's release) and whether the launches finish in the plan's order;
// `priorities` is kept as the result's.
PriorityReplay run_part_launches(const Workload& w, const GpuSpec& gpu, const RunResult& plan, PartLaunches parts,
                                 RunOptions options, AloneTimeCache& alone, LaunchPriorities priorities);

// When a part planned to start at `start` is issued: the executor issues it the GPU's launch latency ahead, never
// before its launch's own arrival.
TimeNs part_release(const Workload& w, const GpuSpec& gpu, std::size_t launch, TimeNs start);

}  // namespace gpusched::sim
