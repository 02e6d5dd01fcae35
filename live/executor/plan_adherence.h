// The fused worker's hand-offs split by who took the slot (issue "Fidelity 2"), over core/plan_adherence.h's
// measures. Plain C++ (no CUDA): tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

#include "core/plan_adherence.h"
#include "live/executor/fused_types.h"

namespace gpusched::live {

// Hand-off delays split by who took the slot (the fused worker's record of who ran each piece: ExecutionResult's
// worker_of_plan_piece, fused_types.h's entry_worker words, -1 where unknown): the worker (same lane) that ran the
// hand-off piece, against another worker (or the other lane) of the SM; the latter split into a worker's first piece (a
// fresh worker placed by the hardware where one left) and a resident one's. Pieces moved off their SM or without a
// hand-off are left out.
struct HandOffSplit {
  std::vector<double> same_ready_us;   // same worker, the entry ready when it took it
  std::vector<double> same_waited_us;  // same worker, it waited for the entry's conditions after taking it
  std::vector<double> other_us;        // another resident worker
  std::vector<double> other_fresh_us;  // a fresh worker's first piece
};
HandOffSplit split_hand_offs(const PlanAdherence& x, const std::vector<std::int32_t>& worker_of_plan_piece);

}  // namespace gpusched::live
