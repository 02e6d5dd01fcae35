// A plan that stops and resumes blocks, carried out in parts by the hardware's own dispatch (docs/validation.md,
// "Preempting plans in parts"): sim::planned_piece_parts cuts it where its SM partition changes; per launch, the
// pieces of all its parts are one queue in device memory (the state its blocks' pieces share: claims, saved steps and
// values), and each part is a view of its slice, which run_native launches as a grid of one worker per piece
// (SuiteKernel::execute_part) in a green context of the part's SMs.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/schedule.h"
#include "live/executor/device_alloc.h"
#include "live/executor/entry_rows.h"
#include "live/executor/executor.h"
#include "sim/planned_parts.h"

namespace gpusched::live {

class PieceParts {
 public:
  // Per launch: its blocks, the kernel's threads per block and SuiteKernel::switch_values_per_thread. Allocates the
  // queues on the GPU.
  // `at_planned_end`: a stopped piece stops at its planned end from the execution's origin (ExecQueues::
  // stop_origin, which run_native writes to origin()); otherwise after its planned duration from its own start.
  // `stamp_entries`: every worker of a part with claims also stamps when it began, before its claim
  // (ExecQueues::entered; entries()).
  PieceParts(const Schedule& plan, const std::vector<std::vector<sim::PlannedPieces>>& cut,
             const std::vector<std::int64_t>& blocks, const std::vector<int>& threads,
             const std::vector<int>& values_per_thread, bool at_planned_end, bool stamp_entries = false);
  ~PieceParts();
  PieceParts(const PieceParts&) = delete;
  PieceParts& operator=(const PieceParts&) = delete;
  // Device memory for the execution's origin on the GPU clock (NativeRunOptions::origin_device).
  std::uint64_t* origin() const { return origin_; }
  // The view of part j of launch i (stable while this object lives), and where its entries begin in the launch's.
  const ExecQueues* view(std::size_t i, std::size_t j) const { return &views_[i][j]; }
  int first_entry(std::size_t i, std::size_t j) const { return first_[i][j]; }
  // The executed pieces, each with the plan's piece it carried out (times from `origin_ns` on the GPU clock), read
  // back after the run; `skipped` counts pieces whose block an earlier piece had already run to its end.
  std::vector<std::pair<BlockPiece, std::size_t>> executed(std::uint64_t origin_ns,
                                                           const std::vector<std::string>& launch_ids,
                                                           std::int64_t& skipped) const;

  // Every entry as its worker left it, read back after the run (validate --entries-csv), times from `origin_ns` on
  // the GPU clock.
  std::vector<PieceEntry> entries(std::uint64_t origin_ns) const;

 private:
  std::vector<std::unique_ptr<DeviceQueues>> queues_;  // per launch (null: not cut)
  std::vector<std::vector<ExecQueues>> views_;         // per launch, per part
  std::vector<std::vector<int>> first_;                // per launch, per part: its first entry
  std::vector<std::vector<std::size_t>> plan_piece_;   // per launch, per entry: its piece in the plan
  std::vector<std::vector<std::int32_t>> block_;       // per launch, per entry: its block
  std::vector<std::vector<std::int32_t>> part_of_;     // per launch, per entry: its part
  std::vector<std::uint64_t*> entered_;                // per launch (null: not stamped), per entry
  DeviceArena arena_;                                  // entered_'s allocations
  std::uint64_t* origin_ = nullptr;
};

}  // namespace gpusched::live
