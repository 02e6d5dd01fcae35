// From a simulated Schedule to the fused worker's queues (docs/validation.md, "Fused workers"): one queue per SM
// holding every launch's pieces there in the order the plan started them, each entry saying how many of the SM's
// earlier pieces had ended in the plan when it started. Plain C++, no CUDA: the executor uploads it as it is.
#pragma once
#include <climits>
#include <cstdint>
#include <vector>

#include "core/schedule.h"
#include "live/executor/fused_types.h"

namespace gpusched::live {

struct FusedPlan {
  int sm_count = 0;
  std::vector<FusedEntry> entries;           // SM after SM, each SM's in the order the plan started them
  std::vector<std::int32_t> sm_begin;        // sm_count + 1 offsets into entries
  std::vector<std::size_t> plan_piece;       // per entry: its piece in the plan's Schedule
  std::vector<std::int32_t> sm_most;         // per SM: the most pieces the plan ran there at once
  std::vector<std::int32_t> launch_entries;  // per launch: its entries (pieces)
  bool stops = false;                        // some entry is stopped (flush, switch or kill)
  std::vector<bool> switches;                // per launch: some entry of it is switched out (needs saved state)
};

// `launches` is the workload's launch count. On each SM the pieces are ordered by planned start (ties by end,
// launch, block); an entry's need_done is the number of pieces before it in that order whose planned end is at or
// before its planned start. Every wait then points at pieces the plan started earlier, so the queues cannot
// deadlock whatever the worker count. Throws std::invalid_argument when a piece is on a GPU other than the first
// or on an SM the GPU does not have.
FusedPlan build_fused_plan(const Schedule& plan, std::size_t launches, int sm_count);

// How long after its conditions held each executed entry started (ns; docs/validation.md, "Who takes the slot"): its
// start stamp minus the latest of the moment its SM's count of ended pieces reached its need_done (the need_done-th
// end stamp on its SM), its launch's release (origin + arrival) and its predecessors' last end. The executor's own
// reaction time, whatever order the pieces ended in. kNoLatency for an entry that did not run (never taken, or
// skipped). `release_ns`: per launch, its arrival from the origin; `predecessors`: per launch.
constexpr std::int64_t kNoLatency = INT64_MIN;
std::vector<std::int64_t> entry_ready_latency(const FusedPlan& plan, const std::vector<ExecRecord>& records,
                                              std::uint64_t origin_ns, const std::vector<std::int64_t>& release_ns,
                                              const std::vector<std::vector<std::size_t>>& predecessors);

}  // namespace gpusched::live
