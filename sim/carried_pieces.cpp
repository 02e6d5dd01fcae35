#include "sim/carried_pieces.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpusched::sim {
CarriedPieces::CarriedPieces(const RunResult& plan, PieceStops stops_how, const RunResult* work_from)
    : plan_(plan), stops_(stops_how) {
  const auto& pieces = plan.schedule.pieces;
  const auto& timed = work_from ? work_from->schedule.pieces : pieces;
  if (timed.size() != pieces.size())
    throw std::invalid_argument("CarriedPieces: the blocks' work is not from the plan's pieces");
  block_of_piece_.resize(pieces.size());
  std::vector<std::size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pieces[a].start < pieces[b].start; });
  // A block's work: its pieces' planned time after its last flushed piece (a flush loses the work before it).
  for (const std::size_t p : order) {
    const auto& piece = pieces[p];
    const auto [it, fresh] = block_index_.try_emplace({piece.launch, piece.block}, work_.size());
    if (fresh) work_.push_back(0);
    TimeNs& work = work_[it->second];
    work = piece.outcome == PieceOutcome::Flushed ? 0 : work + (timed[p].end - timed[p].start);
    block_of_piece_[p] = it->second;
  }
  for (TimeNs& work : work_) work = std::max<TimeNs>(1, work);
  begin_run();
}

void CarriedPieces::add_part(const KernelProfile* kernel, std::vector<std::size_t> pieces) {
  for (const std::size_t p : pieces)
    if (p >= plan_.schedule.pieces.size())
      throw std::invalid_argument("CarriedPieces: a part's piece is not the plan's");
  parts_[kernel] = std::move(pieces);
}

void CarriedPieces::begin_run() const {
  blocks_.assign(work_.size(), BlockState{});
  for (std::size_t b = 0; b < work_.size(); ++b) {
    blocks_[b].work = work_[b];
    blocks_[b].left = work_[b];
  }
}

TimeNs CarriedPieces::duration(const DurationQuery& q) const {
  const auto part = parts_.find(q.kernel);
  if (part == parts_.end() || q.block < 0 || static_cast<std::size_t>(q.block) >= part->second.size())
    return recorded_duration(*q.kernel, q.block, q.draw_base);
  const std::size_t p = part->second[static_cast<std::size_t>(q.block)];
  const BlockPiece& piece = plan_.schedule.pieces[p];
  BlockState& block = blocks_[block_of_piece_[p]];
  // The worker claims the block once the piece running it has ended, holding its slot until then.
  const TimeNs from = std::max(q.start, block.busy_until);
  TimeNs run = 0;
  if (!block.done) {
    if (!stopped_before_block_end(piece.outcome)) {
      run = block.left;
    } else {
      const TimeNs stop_at =
          stops_ == PieceStops::PlannedEnd ? std::max(from, piece.end) : from + (piece.end - piece.start);
      run = std::min(block.left, stop_at - from);
    }
    if (run >= block.left || piece.outcome == PieceOutcome::Killed) {
      block.done = true;
      block.left = 0;
    } else {
      block.left = piece.outcome == PieceOutcome::Flushed ? block.work : block.left - run;
    }
    block.busy_until = from + run;
  }
  return std::max<TimeNs>(1, from + run - q.start);
}

}  // namespace gpusched::sim
