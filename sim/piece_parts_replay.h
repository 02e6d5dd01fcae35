// A plan that stops and resumes blocks (chimera's, srtf-chimera's) carried out in parts of pieces, as the hardware
// would carry it out (docs/validation.md, "Green contexts in the parts replay"): every part of planned_piece_parts a
// grid of one worker per planned piece, confined to its planned SMs or to its green context's, issued at its planned
// start at its launch's stream priority, and the hardware's dispatcher placing the workers (sim/parts_run.h). Each
// piece takes its planned time wherever it lands, the plan's interference in it and none added, as a piece stopped
// after its planned duration (`validate --part-stops budget`): what the replay sees is where and when the workers
// start, the spill onto a context's other SM, the narrowing of a claimed context and the head-of-line blocking, not a
// change of block times. A block's later piece is not held for its earlier one (the executor's worker waits for the
// saved state; in the plan the earlier piece has ended). Or, as an option, each piece as the executor carries it out
// (sim/carried_pieces.h): a stopped piece stops at the plan's instant, a block's last piece runs what its earlier
// pieces left, a worker waits for its block's running piece. Plain C++: tested without a GPU.
#pragma once
#include <optional>
#include <vector>

#include "core/gpu_spec.h"
#include "core/run_result.h"
#include "core/workload.h"
#include "sim/carried_pieces.h"
#include "sim/launch_priorities.h"
#include "sim/planned_parts.h"
#include "sim/runner.h"

namespace gpusched::sim {

// `cut` is planned_piece_parts(plan, ...): one list per launch of `w`, none empty. The priorities are
// launch_priorities(plan, 0, 1 - levels)' for its launch, a part that holds only its launch's planned sample
// (sample_parts) at the greatest where `samples_greatest` is set (validate's --sample-parts greatest, the default).
// `context_sms` as for replay_in_parts (part_context_sms of part_spans(plan, cut), flattened): each part's grid on the
// SMs of its green context; empty: its planned SMs. `carried` set: each piece as the executor carries it out with
// those stops (CarriedPieces), the blocks' work from `carried_work`'s pieces where given; unset: each piece its
// planned time. `predecessors`: each part waits for its launch's predecessors' parts (PartLaunches::predecessors).
// Throws std::invalid_argument where the cut or the contexts do not fit the workload.
PriorityReplay replay_piece_parts(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                  const std::vector<std::vector<PlannedPieces>>& cut, RunOptions options, int levels,
                                  AloneTimeCache& alone, bool samples_greatest = true,
                                  const std::vector<std::vector<int>>& context_sms = {},
                                  std::optional<PieceStops> carried = std::nullopt,
                                  const RunResult* carried_work = nullptr, bool predecessors = false);

}  // namespace gpusched::sim
