#include "live/executor/piece_parts.h"

#include <cuda_runtime.h>

#include "live/cuda_check.h"

namespace gpusched::live {

PieceParts::PieceParts(const Schedule& plan, const std::vector<std::vector<sim::PlannedPieces>>& cut,
                       const std::vector<std::int64_t>& blocks, const std::vector<int>& threads,
                       const std::vector<int>& values_per_thread, bool at_planned_end, bool stamp_entries) {
  GPUSCHED_CUDA(cudaMalloc(&origin_, sizeof(std::uint64_t)));
  GPUSCHED_CUDA(cudaMemset(origin_, 0, sizeof(std::uint64_t)));
  const std::size_t n = cut.size();
  queues_.resize(n);
  views_.resize(n);
  first_.resize(n);
  plan_piece_.resize(n);
  block_.resize(n);
  part_of_.resize(n);
  entered_.assign(n, nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    if (cut[i].empty()) continue;
    const LaunchQueues q = piece_part_queue(plan, cut[i]);
    queues_[i] = std::make_unique<DeviceQueues>(q, blocks.at(i), threads.at(i), values_per_thread.at(i));
    plan_piece_[i] = q.plan_piece;
    for (const auto& e : q.entries) block_[i].push_back(e.block);
    if (stamp_entries) entered_[i] = arena_.zeros<std::uint64_t>(q.entries.size());
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
      if (entered_[i] && v.claims) v.entered = entered_[i] + first;
      part_of_[i].insert(part_of_[i].end(), part.pieces.size(), static_cast<std::int32_t>(j));
      views_[i].push_back(v);
      first_[i].push_back(first);
      first += static_cast<int>(part.pieces.size());
    }
  }
}

PieceParts::~PieceParts() {
  if (origin_) cudaFree(origin_);
}

std::vector<PieceEntry> PieceParts::entries(std::uint64_t origin_ns) const {
  const auto from_origin = [origin_ns](std::uint64_t t) {
    return t == 0 ? kNotStamped : static_cast<std::int64_t>(t) - static_cast<std::int64_t>(origin_ns);
  };
  std::vector<PieceEntry> out;
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    if (!queues_[i]) continue;
    const auto records = queues_[i]->records();
    std::vector<std::uint64_t> entered(entered_[i] ? records.size() : 0);
    if (!entered.empty())
      GPUSCHED_CUDA(
          cudaMemcpy(entered.data(), entered_[i], entered.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
    for (std::size_t e = 0; e < records.size(); ++e) {
      const ExecRecord& r = records[e];
      PieceEntry x;
      x.launch = static_cast<std::int32_t>(i);
      x.part = part_of_[i][e];
      x.entry = static_cast<std::int32_t>(e);
      x.block = block_[i][e];
      x.plan_piece = plan_piece_[i][e];
      x.entered = entered.empty() ? kNotStamped : from_origin(entered[e]);
      x.start = from_origin(r.start_ns);
      x.end = from_origin(r.end_ns);
      x.sm = r.smid;
      x.outcome = static_cast<ExecOutcome>(r.outcome);
      out.push_back(x);
    }
  }
  return out;
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
