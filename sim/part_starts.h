// When each part of a plan started in an execution, against the plan (issue "Fidelity 2": the executed plan's start
// delay per piece, for every policy). The fused worker's and the block executor's pieces have hand-offs to measure
// (live/executor/plan_adherence.h); a plan the hardware carries out, natively or in parts on green contexts, has
// none: the hardware places the blocks. What can be said of every execution is when each planned part's first block
// started, against the plan's start of that part. Plain C++: tested without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/run_result.h"
#include "core/schedule.h"
#include "core/time.h"

namespace gpusched::sim {

struct PartStart {
  std::int32_t launch = 0;
  std::int32_t part = 0;  // among its launch's parts (0 where the plan is not cut: the launch is one part)
  TimeNs planned = 0;     // the plan's start of the part's first piece
  TimeNs executed = -1;   // the execution's start of the part's first piece; -1 where none of its pieces ran
  std::ptrdiff_t executed_piece = -1;  // that piece, an index into the executed Schedule's pieces
};

// The parts are planned_part_pieces(plan)'s (sim/planned_parts.h: the cut `gpusched-live validate` carries out in
// parts), else, for a plan no cut covers, each launch whole. An executed piece belongs to the part of the planned
// piece of its block with the same ordinal (a block's k-th piece by start is its k-th planned piece; a block that ran
// in more pieces than planned counts its later ones in its last planned part). Pieces of launches the plan does not
// have are ignored. In launch, then part order.
std::vector<PartStart> part_starts(const RunResult& plan, const Schedule& executed);

// When grids released at `release` (any order) leave the GPU's front end, which starts one grid at a time, at most one
// every `interval` (GpuSpec::grid_start_interval_ns; docs/validation.md, "Grids the GPU starts a second"): in release
// order (ties by index), each at the later of its release and the one before's + `interval`. `interval` <= 0: each at
// its release.
std::vector<TimeNs> front_end_starts(const std::vector<TimeNs>& release, TimeNs interval);

// executed - planned, in microseconds, of every part that ran (negative: it started early).
std::vector<double> part_start_delays_us(const std::vector<PartStart>& starts);

// Where the hardware placed the blocks (natively, in parts; or a replay of that, sim/parts_replay.h): each part's
// start delay, its first executed piece (`starts`, part_starts(plan, executed.schedule)) against when the execution
// let it start: core/plan_adherence.h's ready time plus planned wait, the pieces mapped to the plan's by ordinal
// (plan_piece_by_ordinal), that is its launch's release in `executed` or the executed end of the block the plan hands
// its slot over from, whichever is later. In us, parts that ran, in `starts`' order; empty where the mapping fails.
// The model's block times stay out of it, as they do not out of part_start_delays_us.
std::vector<double> part_start_delays_after_ready_us(const RunResult& plan, const RunResult& executed,
                                                     const std::vector<PartStart>& starts,
                                                     const std::vector<TimeNs>& planned_wait);

}  // namespace gpusched::sim
