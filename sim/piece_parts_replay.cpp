#include "sim/piece_parts_replay.h"

#include <climits>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/parts_run.h"

namespace gpusched::sim {
namespace {

// The part's pieces as the blocks of a kernel of their own: a copy of its launch's kernel (the same resources, so
// a worker holds a block's slot, and the same name), block b taking piece b's planned time.
std::shared_ptr<KernelProfile> piece_part_kernel(const KernelProfile& k, const RunResult& plan,
                                                 const PlannedPieces& part) {
  auto copy = std::make_shared<KernelProfile>(k);
  RecordSet set;
  set.residency = k.record_sets.empty() ? 0 : k.primary_records()->residency;
  set.file = "planned pieces";
  for (const std::size_t p : part.pieces) {
    const auto& piece = plan.schedule.pieces[p];
    set.duration_by_block.push_back(std::max<TimeNs>(1, piece.end - piece.start));
  }
  finalize_record_set(set);
  copy->record_sets = {std::move(set)};
  copy->grid = {static_cast<std::int32_t>(part.pieces.size()), 1, 1};
  return copy;
}

}  // namespace

PriorityReplay replay_piece_parts(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                  const std::vector<std::vector<PlannedPieces>>& cut, RunOptions options, int levels,
                                  AloneTimeCache& alone, bool samples_greatest,
                                  const std::vector<std::vector<int>>& context_sms, std::optional<PieceStops> carried,
                                  const RunResult* carried_work, bool predecessors) {
  if (levels < 1) throw std::invalid_argument("levels must be at least 1");
  const std::size_t n = w.launches.size();
  if (plan.launches.size() != n || cut.size() != n)
    throw std::invalid_argument("replay_piece_parts: the plan or its parts are not of this workload");
  std::size_t parts_in_cut = 0;
  for (const auto& c : cut) parts_in_cut += c.size();
  if (!context_sms.empty() && context_sms.size() != parts_in_cut)
    throw std::invalid_argument("replay_piece_parts: the green contexts are not one a part");
  const auto priorities = launch_priorities(plan, 0, 1 - levels);
  const auto samples = samples_greatest ? sample_parts(plan, cut) : std::vector<std::vector<char>>{};
  PartLaunches parts;
  parts.predecessors = predecessors;
  const auto carried_pieces = carried ? std::make_shared<CarriedPieces>(plan, *carried, carried_work) : nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    if (cut[i].empty()) throw std::invalid_argument("replay_piece_parts: launch " + w.launches[i].id + " has no parts");
    for (std::size_t j = 0; j < cut[i].size(); ++j) {
      const PlannedPieces& part = cut[i][j];
      if (part.pieces.empty()) throw std::invalid_argument("replay_piece_parts: a part of no pieces");
      std::vector<std::int32_t> blocks;
      for (const std::size_t p : part.pieces) {
        if (p >= plan.schedule.pieces.size() || static_cast<std::size_t>(plan.schedule.pieces[p].launch) != i)
          throw std::invalid_argument("replay_piece_parts: a part's piece is not its launch's in the plan");
        blocks.push_back(plan.schedule.pieces[p].block);
      }
      parts.kernels.push_back(piece_part_kernel(w.kernel_of(i), plan, part));
      if (carried_pieces) carried_pieces->add_part(parts.kernels.back().get(), part.pieces);
      Launch l;
      l.id = w.launches[i].id + "#" + std::to_string(j);
      l.kernel = parts.kernels.size() - 1;
      l.tenant = w.launches[i].tenant.empty() ? w.launches[i].id : w.launches[i].tenant;
      l.arrival = part_release(w, gpu, i, part.start);
      // CUDA's lower numbers go first, the workload's higher ones; a sample part at CUDA's greatest, 1 - levels.
      const bool sample = !samples.empty() && samples[i][j];
      l.priority = sample ? levels - 1 : -priorities.priority[i];
      parts.launches.push_back(std::move(l));
      parts.sms.push_back(context_sms.empty() ? part.sms : context_sms[parts.launches.size() - 1]);
      parts.owner.push_back(i);
      parts.caps.push_back(INT_MAX);
      parts.block_of.push_back(std::move(blocks));
    }
  }
  // The pieces' planned times carry the plan's interference already.
  options.interference = "none";
  options.interference_params.clear();
  options.interference_object = carried_pieces;
  return run_part_launches(w, gpu, plan, std::move(parts), std::move(options), alone, priorities);
}

}  // namespace gpusched::sim
