// How long a piece of a plan that stops and resumes blocks takes when the executor carries it out in parts
// (live/executor/exec_device.cuh, part_pieces_kernel), as a duration model for the parts-of-pieces replay
// (sim/piece_parts_replay.h, PieceTimes::Carried; docs/validation.md, "Pieces as the executor carries them out").
// The plan gives each piece its own time, but the executor's worker for a piece does the block's work from where the
// block's earlier piece left it:
// - a worker whose block another worker is running waits for it, holding its slot (claim_block);
// - a piece the plan stops (switched out, flushed) runs until the plan's end of it from the execution's origin, or
//   stops at once where it started after that (validate's default `--part-stops planned-end`), or for its planned
//   duration from its own start (`--part-stops budget`); a switched-out block keeps the work done, a flushed one
//   loses it;
// - a piece the plan runs to the block's end runs the work the block has left, however much the earlier pieces did;
// - a piece whose block is done is skipped.
// So a stopped piece that starts late does less of its block, and the block's last piece, wherever it lands, runs
// that much longer. A block's work is the plan's (or another run's of the same pieces): the time of its pieces after
// its last flushed one (restores included). Safe points are taken as continuous (a stop lands at the instant). Plain
// C++: tested without a GPU.
#pragma once
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "core/run_result.h"
#include "sim/duration_model.h"

namespace gpusched::sim {

// When a stopped piece stops (validate --part-stops).
enum class PieceStops { PlannedEnd, Budget };

class CarriedPieces final : public DurationModel {
 public:
  // `work`: the blocks' work from this run's pieces instead of the plan's (the same pieces, e.g. the plan at its
  // executed pieces' times: gpusched replay-parts --pieces carried-measured).
  CarriedPieces(const RunResult& plan, PieceStops stops, const RunResult* work = nullptr);
  // Block b of `kernel` (a part's grid) carries out plan piece pieces[b]. Every piece of the plan is in at most one
  // part; the kernel's address is its identity for the replay's run.
  void add_part(const KernelProfile* kernel, std::vector<std::size_t> pieces);

  void begin_run() const override;
  TimeNs duration(const DurationQuery& q) const override;

 private:
  struct BlockState {
    TimeNs work = 0;        // the block's work (the plan's, after its last flush)
    TimeNs left = 0;        // what is left of it
    TimeNs busy_until = 0;  // the end of the piece running it
    bool done = false;
  };
  const RunResult& plan_;
  PieceStops stops_;
  std::unordered_map<const KernelProfile*, std::vector<std::size_t>> parts_;  // looked up at every dispatch
  std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> block_index_;  // (launch, block) -> blocks_
  std::vector<TimeNs> work_;                                                  // per block index: its work
  std::vector<std::size_t> block_of_piece_;                                   // per plan piece: its block index
  mutable std::vector<BlockState> blocks_;
};

}  // namespace gpusched::sim
