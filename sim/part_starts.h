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
#include "sim/planned_parts.h"

namespace gpusched::sim {

struct PartStart {
  std::int32_t launch = 0;
  std::int32_t part = 0;  // among its launch's parts (0 where the plan is not cut: the launch is one part)
  TimeNs planned = 0;     // the plan's start of the part's first piece
  TimeNs executed = -1;   // the execution's start of the part's first piece; -1 where none of its pieces ran
  std::ptrdiff_t executed_piece = -1;  // that piece, an index into the executed Schedule's pieces
};

// The plan's side of part_starts and launch_issue_ready, worked out once per plan: a replay's four ways, and an
// execution's two start-delay rules, share it. It refers to `plan`, which must outlive it.
class PlanPartIndex {
 public:
  // `at_residency_changes`: the parts are planned_part_pieces(plan, true)'s (the cut validate --cut-at-residency
  // carries out).
  explicit PlanPartIndex(const RunResult& plan, bool at_residency_changes = false);
  // The parts are `cut`'s (planned_part_pieces of a cut at hand: the one a replay or an execution carries out).
  PlanPartIndex(const RunResult& plan, const std::vector<PlannedPartPiece>& cut);
  const RunResult& plan() const { return *plan_; }

 private:
  friend std::vector<PartStart> part_starts(const PlanPartIndex& index, const Schedule& executed);
  friend std::vector<TimeNs> launch_issue_ready(const PlanPartIndex& index, const Schedule& executed,
                                                const std::vector<std::size_t>& executed_plan_piece,
                                                const std::vector<PartStart>& starts);
  // The dense index of (launch, block), or -1 outside the plan's blocks.
  std::ptrdiff_t block_at(std::int32_t launch, std::int32_t block) const;
  // Part (launch, part)'s index in parts_, or -1.
  std::ptrdiff_t part_at(std::int32_t launch, std::int32_t part) const;

  const RunResult* plan_;
  bool cut_ = false;                     // a cut covers the plan (else each launch is one part)
  std::vector<std::size_t> block_base_;  // per launch (and one past the last): its block 0's dense index
  std::vector<std::vector<std::int32_t>> parts_of_block_;  // per dense block: its pieces' parts by planned start
  std::vector<PartStart> parts_;                           // the planned parts, in launch then part order
  std::vector<std::size_t> part_base_;          // per launch (and one past the last): its first part in parts_
  std::vector<std::int32_t> part_of_piece_;     // per planned piece: its part (-1: none)
  bool gapless_ = true;                         // every launch's parts are numbered 0.. without gaps
  int sm_slots_ = 0;                            // SM bitmaps' width: gpu * sm_slots_ + sm
  std::vector<std::vector<std::uint8_t>> sms_;  // per part (parts_' order): the SMs its planned pieces ran on
};

// The parts are planned_part_pieces(plan)'s (sim/planned_parts.h: the cut `gpusched-live validate` carries out in
// parts), else, for a plan no cut covers, each launch whole. An executed piece belongs to the part of the planned
// piece of its block with the same ordinal (a block's k-th piece by start is its k-th planned piece; a block that ran
// in more pieces than planned counts its later ones in its last planned part). Pieces of launches the plan does not
// have are ignored. In launch, then part order.
std::vector<PartStart> part_starts(const RunResult& plan, const Schedule& executed);
std::vector<PartStart> part_starts(const PlanPartIndex& index, const Schedule& executed);

// When grids released at `release` (any order) leave the GPU's front end, which starts one grid at a time, at most one
// every `interval` (GpuSpec::grid_start_interval_ns; docs/validation.md, "Grids the GPU starts a second"): in release
// order (ties by index), each at the later of its release and the one before's + `interval`. `interval` <= 0: each at
// its release.
std::vector<TimeNs> front_end_starts(const std::vector<TimeNs>& release, TimeNs interval);

// executed - planned, in microseconds, of every part that ran (negative: it started early).
std::vector<double> part_start_delays_us(const std::vector<PartStart>& starts);

// Per part of `starts` (part_starts' on an execution of `plan`, `executed_plan_piece` plan_piece_by_ordinal's): the
// latest start, no later than the part's own, of a piece of an earlier part of its launch that ran on an SM the plan
// gives both parts; -1 where none did (and for every part of a plan no cut covers). The GPU issues a grid's blocks in
// order, and grids of one priority in release order: on SMs the plan hands from a launch's part to its next, the
// next part's blocks come after the blocks the earlier part still has to place there. Where those are placed late
// (its blocks ran longer than planned, the model's block times, or the hardware placed them otherwise than the plan),
// the next part waits behind them: its launch's lateness carried over, not a delay of its own start
// (docs/validation.md, "A launch's parts in issue order").
std::vector<TimeNs> launch_issue_ready(const RunResult& plan, const Schedule& executed,
                                       const std::vector<std::size_t>& executed_plan_piece,
                                       const std::vector<PartStart>& starts);
std::vector<TimeNs> launch_issue_ready(const PlanPartIndex& index, const Schedule& executed,
                                       const std::vector<std::size_t>& executed_plan_piece,
                                       const std::vector<PartStart>& starts);

// Where the hardware placed the blocks (natively, in parts; or a replay of that, sim/parts_replay.h): each part's
// start delay, its first executed piece (`starts`, part_starts(plan, executed.schedule)) against when the execution
// let it start: core/plan_adherence.h's ready time plus planned wait, the pieces mapped to the plan's by ordinal
// (plan_piece_by_ordinal), that is its launch's release in `executed` or the executed end of the block the plan hands
// its slot over from, or launch_issue_ready's time (its launch's earlier parts still placing blocks on its SMs),
// whichever is latest (`in_issue_order` false: without launch_issue_ready's, as measured until session 50). In us,
// parts that ran, in `starts`' order; empty where the mapping fails.
// The model's block times stay out of it, as they do not out of part_start_delays_us.
std::vector<double> part_start_delays_after_ready_us(const RunResult& plan, const RunResult& executed,
                                                     const std::vector<PartStart>& starts,
                                                     const std::vector<TimeNs>& planned_wait,
                                                     bool in_issue_order = true);
std::vector<double> part_start_delays_after_ready_us(const PlanPartIndex& index, const RunResult& executed,
                                                     const std::vector<PartStart>& starts,
                                                     const std::vector<TimeNs>& planned_wait,
                                                     bool in_issue_order = true);

// Both of part_start_delays_after_ready_us' figures from one mapping of the pieces and one plan_adherence, as
// `gpusched-live validate` prints them: with launch_issue_ready's time, and without it.
struct PartStartDelays {
  std::vector<double> after_ready_us;  // in_issue_order = true
  std::vector<double> slot_only_us;    // in_issue_order = false
};
PartStartDelays part_start_delays_both_us(const PlanPartIndex& index, const RunResult& executed,
                                          const std::vector<PartStart>& starts,
                                          const std::vector<TimeNs>& planned_wait);

}  // namespace gpusched::sim
