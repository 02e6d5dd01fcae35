#include "live/executor/piece_parts.h"

#include <cuda_runtime.h>

#include "live/cuda_check.h"

namespace gpusched::live {

PieceParts::PieceParts(const Schedule& plan, const std::vector<std::vector<sim::PlannedPieces>>& cut,
                       const std::vector<std::int64_t>& blocks, const std::vector<int>& threads,
                       const std::vector<int>& values_per_thread, bool at_planned_end) {
  GPUSCHED_CUDA(cudaMalloc(&origin_, sizeof(std::uint64_t)));
  GPUSCHED_CUDA(cudaMemset(origin_, 0, sizeof(std::uint64_t)));
  const std::size_t n = cut.size();
  queues_.resize(n);
  views_.resize(n);
  first_.resize(n);
  plan_piece_.resize(n);
  block_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (cut[i].empty()) continue;
    const LaunchQueues q = piece_part_queue(plan, cut[i]);
    queues_[i] = std::make_unique<DeviceQueues>(q, blocks.at(i), threads.at(i), values_per_thread.at(i));
    plan_piece_[i] = q.plan_piece;
    for (const auto& e : q.entries) block_[i].push_back(e.block);
    int first = 0;
    const auto claims = parts_needing_claims(q, cut[i]);
    for (std::size_t j = 0; j < cut[i].size(); ++j) {
      const auto& part = cut[i][j];
      ExecQueues v = queues_[i]->view();
      v.entries += first;
      v.records += first;
      v.stop_origin = at_planned_end ? origin_ : nullptr;
      if (!claims[j]) v.claims = 0;  // each piece its block's only one, run whole: no claim (parts_needing_claims)
      const auto begin = q.entries.begin() + first;
      const std::int32_t first_block = begin->block;
      bool run_range = !claims[j];
      for (std::size_t e = 0; e < part.pieces.size() && run_range; ++e)
        run_range = begin[static_cast<std::ptrdiff_t>(e)].block == first_block + static_cast<std::int32_t>(e);
      v.part_first_block = run_range ? first_block : -1;
      views_[i].push_back(v);
      first_[i].push_back(first);
      first += static_cast<int>(part.pieces.size());
    }
  }
}

PieceParts::~PieceParts() {
  if (origin_) cudaFree(origin_);
}

std::vector<std::pair<BlockPiece, std::size_t>> PieceParts::executed(std::uint64_t origin_ns,
                                                                     const std::vector<std::string>& launch_ids,
                                                                     std::int64_t& skipped) const {
  std::vector<std::pair<BlockPiece, std::size_t>> out;
  skipped = 0;
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    if (!queues_[i]) continue;
    const auto records = queues_[i]->records();
    for (std::size_t e = 0; e < records.size(); ++e) {
      const auto piece =
          executed_piece(records[e], origin_ns, static_cast<std::int32_t>(i), block_[i][e], launch_ids.at(i), e);
      if (piece)
        out.emplace_back(*piece, plan_piece_[i][e]);
      else
        ++skipped;
    }
  }
  return out;
}

}  // namespace gpusched::live
