#include "core/kernelet_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/markov_calibration.h"

namespace gpusched::kernelet {
namespace {

bool fits_together(const GpuSpec& g, const PlanKernel& a, int na, const PlanKernel& b, int nb) {
  const auto& fa = a.footprint;
  const auto& fb = b.footprint;
  return na + nb <= g.max_blocks_per_sm && na * fa.threads + nb * fb.threads <= g.max_threads_per_sm &&
         na * fa.warps + nb * fb.warps <= g.max_warps_per_sm &&
         static_cast<std::int64_t>(na) * fa.registers + static_cast<std::int64_t>(nb) * fb.registers <=
             g.registers_per_sm &&
         static_cast<std::int64_t>(na) * fa.shared_memory + static_cast<std::int64_t>(nb) * fb.shared_memory <=
             g.shared_memory_per_sm &&
         na <= a.max_blocks_per_sm && nb <= b.max_blocks_per_sm;
}

bool same_inputs(const PlanKernel& a, const PlanKernel& b) {
  return a.model.warps_per_block == b.model.warps_per_block && a.model.memory_ratio == b.model.memory_ratio &&
         a.model.uncoalesced == b.model.uncoalesced && a.instructions_per_block == b.instructions_per_block &&
         a.footprint == b.footprint && a.max_blocks_per_sm == b.max_blocks_per_sm && a.pur == b.pur && a.mur == b.mur;
}

}  // namespace

PlanKernel plan_kernel(const KernelProfile& k, const GpuSpec& gpu, const SmModel& model, bool calibrated) {
  PlanKernel p;
  const auto occ = compute_occupancy(gpu, k.shape());
  p.footprint = occ.footprint;
  p.max_blocks_per_sm = std::max(1, occ.blocks_per_sm);
  if (const auto m = model_inputs(k, model, gpu, calibrated)) {
    p.model = *m;
  } else {
    p.model.warps_per_block = std::max(1, (k.threads_per_block() + gpu.warp_size - 1) / gpu.warp_size);
  }
  p.instructions_per_block = k.instructions_per_block.value_or(static_cast<double>(p.model.warps_per_block));
  p.pur = k.pur;
  p.mur = k.mur;
  return p;
}

std::vector<double> IpcCache::get(const SmModel& model, const std::vector<ModelKernel>& kernels,
                                  const std::vector<int>& blocks) {
  std::vector<std::tuple<int, double, double, int>> key;
  key.reserve(kernels.size());
  for (std::size_t i = 0; i < kernels.size(); ++i)
    key.emplace_back(kernels[i].warps_per_block, kernels[i].memory_ratio, kernels[i].uncoalesced, blocks[i]);
  if (const auto it = map_.find(key); it != map_.end()) return it->second;
  auto ipc = sm_ipc(model, kernels, blocks);
  map_.emplace(std::move(key), ipc);
  return ipc;
}

PruneRule parse_prune_rule(const std::string& s) {
  if (s == "or") return PruneRule::Or;
  if (s == "and") return PruneRule::And;
  throw std::invalid_argument("prune rule '" + s + "': expected 'or' (section 4.3's text) or 'and' (Table 6)");
}

AllPruned parse_all_pruned(const std::string& s) {
  if (s == "relax") return AllPruned::Relax;
  if (s == "alone") return AllPruned::Alone;
  throw std::invalid_argument("all_pruned '" + s +
                              "': expected 'relax' (halve the thresholds until a pair survives) or 'alone' (no "
                              "co-schedule)");
}

bool survives_pruning(const PlanKernel& a, const PlanKernel& b, const PruneOptions& o) {
  if (!a.pur || !a.mur || !b.pur || !b.mur) return true;
  const bool close_pur = std::abs(*a.pur - *b.pur) < o.alpha_p;
  const bool close_mur = std::abs(*a.mur - *b.mur) < o.alpha_m;
  return o.rule == PruneRule::Or ? !(close_pur || close_mur) : !(close_pur && close_mur);
}

std::vector<std::pair<int, int>> ratio_candidates(const GpuSpec& gpu, const PlanKernel& a, const PlanKernel& b) {
  std::vector<std::pair<int, int>> out;
  for (int na = 1; na <= a.max_blocks_per_sm; ++na) {
    int best = 0;
    for (int nb = 1; nb <= b.max_blocks_per_sm; ++nb)
      if (fits_together(gpu, a, na, b, nb)) best = nb;
    if (best > 0) out.emplace_back(na, best);
  }
  return out;
}

std::optional<CoSchedule> balanced_co_schedule(const GpuSpec& gpu, const SmModel& model, const PlanKernel& a,
                                               const PlanKernel& b, IpcCache& cache) {
  const double alone_a = cache.get(model, {a.model}, {a.max_blocks_per_sm})[0];
  const double alone_b = cache.get(model, {b.model}, {b.max_blocks_per_sm})[0];
  std::optional<CoSchedule> best;
  for (const auto& [na, nb] : ratio_candidates(gpu, a, b)) {
    const auto ipc = cache.get(model, {a.model, b.model}, {na, nb});
    if (ipc[0] <= 0 || ipc[1] <= 0) continue;
    CoSchedule c;
    c.blocks_first = na;
    c.blocks_second = nb;
    c.ipc_first = ipc[0];
    c.ipc_second = ipc[1];
    // Eq. 8 per SM: the time each slice takes, instructions over IPC.
    c.delta_t = std::abs(a.instructions_per_block * na / ipc[0] - b.instructions_per_block * nb / ipc[1]);
    c.cp = co_scheduling_profit({ipc[0], ipc[1]}, {alone_a, alone_b});
    constexpr double kTie = 1e-9;
    if (!best || c.delta_t < best->delta_t * (1 - kTie) ||
        (std::abs(c.delta_t - best->delta_t) <= kTie * best->delta_t && c.cp > best->cp))
      best = c;
  }
  return best;
}

std::vector<TypePair> pairs_by_type(const std::vector<std::size_t>& type, std::size_t types) {
  // The first pair of types (a, b) in (i, j) order: i the first kernel of type a that some kernel of type b
  // follows, j the first kernel of type b after it.
  const std::size_t n = type.size();
  std::vector<TypePair> tp(types * types);
  std::vector<std::size_t> seen(types, 0);
  std::vector<std::size_t> first_of(types, n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t b = type[j];
    for (std::size_t a = 0; a < types; ++a) {
      if (!seen[a]) continue;
      TypePair& p = tp[a * types + b];
      if (p.count == 0) {
        p.first = first_of[a];
        p.second = j;
      }
      p.count += seen[a];
    }
    if (!seen[b]++) first_of[b] = j;
  }
  return tp;
}

std::optional<CoSchedule> find_co_schedule(const GpuSpec& gpu, const SmModel& model,
                                           const std::vector<PlanKernel>& pending, const PruneOptions& prune,
                                           IpcCache& cache, FindStats* stats) {
  const std::size_t n = pending.size();
  if (n < 2) return std::nullopt;
  // Kernels with identical inputs share one type: pruning and the model see only a pair's types, so the work is
  // per pair of types (ordered as the pair's kernels are: (type of i, type of j) for i < j), not per pair of
  // kernels. A queue of hundreds of launches of a few kernels makes a few types (issue "Speed").
  std::vector<std::size_t> type(n);
  std::vector<std::size_t> reps;  // the first kernel of each type
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t t = 0;
    while (t < reps.size() && !same_inputs(pending[reps[t]], pending[i])) ++t;
    if (t == reps.size()) reps.push_back(i);
    type[i] = t;
  }
  const std::size_t types = reps.size();
  const std::vector<TypePair> tp = pairs_by_type(type, types);
  PruneOptions used = prune;
  std::vector<std::size_t> survivors;  // type pairs (a * types + b) present and not pruned
  for (int attempt = 0;; ++attempt) {
    survivors.clear();
    for (std::size_t a = 0; a < types; ++a)
      for (std::size_t b = 0; b < types; ++b)
        if (tp[a * types + b].count && survives_pruning(pending[reps[a]], pending[reps[b]], used))
          survivors.push_back(a * types + b);
    if (!survivors.empty() || attempt >= 30 || prune.all_pruned == AllPruned::Alone) break;
    used.alpha_p /= 2;  // everything pruned: relax the thresholds (section 4.3)
    used.alpha_m /= 2;
  }
  if (survivors.empty() && prune.all_pruned == AllPruned::Relax)
    for (std::size_t k = 0; k < types * types; ++k)
      if (tp[k].count) survivors.push_back(k);
  // The best CP; among equal CPs the pair that comes first in (i, j) order, as a pass over the kernel pairs in
  // that order keeping the first strictly better one would find.
  std::optional<CoSchedule> best;
  std::size_t surviving_pairs = 0;
  for (const std::size_t k : survivors) {
    const TypePair& p = tp[k];
    surviving_pairs += p.count;
    auto c = balanced_co_schedule(gpu, model, pending[reps[k / types]], pending[reps[k % types]], cache);
    if (!c) continue;
    c->first = p.first;
    c->second = p.second;
    if (!best || c->cp > best->cp ||
        (c->cp == best->cp && std::make_pair(c->first, c->second) < std::make_pair(best->first, best->second)))
      best = c;
  }
  if (stats) {
    stats->pairs = n * (n - 1) / 2;
    stats->pruned = stats->pairs - surviving_pairs;
    stats->evaluated = survivors.size();
    stats->alpha_p = used.alpha_p;
    stats->alpha_m = used.alpha_m;
  }
  return best;
}

std::int64_t smallest_slice(std::int64_t blocks, int sms, int blocks_per_sm,
                            const std::function<double(int)>& block_time, double launch_overhead, double max_overhead) {
  if (blocks <= 0 || sms <= 0 || blocks_per_sm <= 0) return std::max<std::int64_t>(blocks, 1);
  const double wave = static_cast<double>(sms) * blocks_per_sm;
  const double unsliced = std::ceil(static_cast<double>(blocks) / wave) * block_time(blocks_per_sm) + launch_overhead;
  const std::int64_t full_wave = static_cast<std::int64_t>(sms) * blocks_per_sm;
  for (std::int64_t p = sms; p <= full_wave && p < blocks; p += sms) {
    const int per_sm = static_cast<int>((p + sms - 1) / sms);
    const double slices = std::ceil(static_cast<double>(blocks) / static_cast<double>(p));
    const double sliced = slices * (launch_overhead + block_time(per_sm));
    if (sliced <= unsliced * (1.0 + max_overhead)) return p;
  }
  return blocks;
}

}  // namespace gpusched::kernelet
