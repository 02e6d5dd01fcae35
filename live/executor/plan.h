// From a simulated Schedule to what the executor's workers read (docs/validation.md, "The executor"): per
// launch, one queue per SM of the plan's pieces on that SM in the order they started, each entry saying how
// its piece ended (run to the end, or stop after its planned duration by flushing, switching out or being
// killed), and per SM the most pieces of the launch resident at once (the workers admitted there). Plain C++,
// no CUDA: the executor uploads it as it is.
#pragma once
#include <cstdint>
#include <vector>

#include "core/schedule.h"
#include "live/executor/exec_types.h"
#include "sim/planned_parts.h"

namespace gpusched::live {

struct LaunchQueues {
  std::vector<ExecEntry> entries;       // SM after SM, each SM's in the order the plan started them
  std::vector<std::int32_t> sm_begin;   // sm_count + 1 offsets into entries
  std::vector<std::int32_t> sm_quota;   // most of the launch's pieces resident at once on the SM
  std::vector<std::size_t> plan_piece;  // per entry: the index of its piece in the plan's Schedule
  bool stops = false;                   // some entry is stopped (flush, switch or kill)
  bool switches = false;                // some entry is switched out (needs saved state)
  // Entry indices in the order the plan started their pieces (ties by end, then SM, then block).
  std::vector<std::int32_t> start_order;
  // No other launch has a piece in the plan, and this one has pieces on every SM.
  bool gpu_to_itself = false;
};

struct ExecutionPlan {
  int sm_count = 0;
  std::vector<LaunchQueues> launches;  // by workload launch index
};

// Throws std::invalid_argument when a piece is on a GPU other than the first (the executors drive one GPU), on an SM
// the GPU does not have, or of a launch the workload does not have.
void check_plan_pieces(const Schedule& plan, std::size_t launches, int sm_count);

// `launches` is the workload's launch count. Throws std::invalid_argument when a piece is on a GPU other than
// the first (the executor drives one GPU) or on an SM the GPU does not have.
ExecutionPlan build_execution_plan(const Schedule& plan, std::size_t launches, int sm_count);

// A kernel alone on the whole GPU: block b on SM b mod sm_count, each SM's blocks in order, `quota` workers per SM
// (the kernel's residency), started in block order. Every entry is `kind` (budget 0). The overhead and preemption
// measurements use it.
LaunchQueues alone_queues(std::int64_t blocks, int sm_count, int quota, EntryKind kind = EntryKind::Run);

// Whether the executor may leave a launch's placement to the hardware (docs/validation.md, "A launch with the GPU
// to itself"): the launch has the GPU to itself in the plan, none of its pieces is stopped, and on every SM the plan
// kept at least as many of its blocks resident as the hardware places of the kernel that runs them (`residency`).
// The plan then asks nothing of the placement that the hardware's own block scheduler does not do, save which
// of the SMs runs which block; per-SM queues would only add their cost.
bool hardware_placed(const LaunchQueues& q, int residency);

// Worker blocks in one grid of a launch: `workers_per_sm` on each of `sms` SMs, and with workers that leave after
// `entries_per_worker` entries (> 0) one more per that many of the launch's `entries`, for the hardware to place
// as the leaving ones make room.
int worker_grid_blocks(int workers_per_sm, int sms, std::size_t entries, int entries_per_worker);

// The kind of entry a planned piece becomes.
EntryKind entry_kind(PieceOutcome planned);

// One launch's queue of pieces from its parts (sim::planned_piece_parts; live/executor/piece_parts.h runs them):
// entries in part order, each part's in its planned start order; a piece the plan stops becomes an entry stopped after
// its planned duration (entry_kind). The parts' grids are placed by the hardware, so the queue has one SM's worth of
// per-SM counters, which nothing reads.
LaunchQueues piece_part_queue(const Schedule& plan, const std::vector<sim::PlannedPieces>& parts);

// Per part of `parts` (piece_part_queue's `q` of them): whether its workers must claim their blocks, i.e. some entry
// of it is stopped or runs a block that has another piece in the launch's queue. A part whose pieces are each their
// block's only one, run to its end, needs neither the claim's atomics nor its fences: its workers run their blocks
// as plain stamped blocks (part_pieces_kernel without stops). Most of chimera's bursts-h200 plan is such parts (1147
// of 1505 parts, 355k of 451k pieces, blocks of about 10 us); claiming in them too ran its makespan 2 points longer
// on an H200 (docs/validation.md, "Parts that claim no block").
std::vector<bool> parts_needing_claims(const LaunchQueues& q, const std::vector<sim::PlannedPieces>& parts);

}  // namespace gpusched::live
