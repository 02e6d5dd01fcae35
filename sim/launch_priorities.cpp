#include "sim/launch_priorities.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gpusched::sim {

LaunchPriorities window_priorities(const std::vector<TimeNs>& release, const std::vector<TimeNs>& last_start, int least,
                                   int greatest, const std::function<bool(std::size_t, std::size_t)>& compete) {
  const std::size_t n = release.size();
  if (last_start.size() != n) throw std::invalid_argument("window_priorities: one release and last start per grid");
  LaunchPriorities out;
  out.priority.assign(n, least);
  out.levels_given = least - greatest + 1;
  // Grids with pieces, by the end of their window: each one's level is at least that of every overlapping grid
  // that comes after it (ends later), one more where that grid was released first; visiting the latest end first,
  // those are known.
  auto before = [&](std::size_t a, std::size_t b) {  // a issues before b
    if (last_start[a] != last_start[b]) return last_start[a] < last_start[b];
    if (release[a] != release[b]) return release[a] < release[b];
    return a < b;
  };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i)
    if (last_start[i] != kNoWindow) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return before(b, a); });
  std::vector<int> level(n, 0);
  for (std::size_t x = 0; x < order.size(); ++x) {
    const std::size_t i = order[x];
    for (std::size_t y = 0; y < x; ++y) {
      const std::size_t j = order[y];  // issues after i
      const bool overlap = release[j] <= last_start[i] && release[i] <= last_start[j];
      // Among grids of one priority the hardware goes in release order: i needs a higher level than j only when
      // j was released first.
      const bool inverted = release[j] < release[i] || (release[j] == release[i] && j < i);
      if (overlap && level[j] + (inverted ? 1 : 0) > level[i] && compete(i, j))
        level[i] = level[j] + (inverted ? 1 : 0);
    }
    out.levels_needed = std::max(out.levels_needed, level[i] + 1);
    const int p = least - level[i];
    if (p < greatest) ++out.clamped;
    out.priority[i] = std::max(p, greatest);
  }
  return out;
}

LaunchPriorities launch_priorities(const RunResult& plan, int least, int greatest) {
  const std::size_t n = plan.launches.size();
  std::vector<TimeNs> release(n), last_start(n, kNoWindow);
  for (std::size_t i = 0; i < n; ++i) release[i] = plan.launches[i].release;
  for (const auto& p : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(p.launch);
    if (i < n) last_start[i] = std::max(last_start[i], p.start);
  }
  return window_priorities(release, last_start, least, greatest, [](std::size_t, std::size_t) { return true; });
}

std::vector<std::optional<PlannedSample>> planned_samples(const RunResult& plan) {
  const std::size_t n = plan.launches.size();
  constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
  std::vector<const BlockPiece*> first(n, nullptr);
  std::vector<TimeNs> first_end(n, kNever);
  std::vector<std::int32_t> blocks(n, 0);
  for (const auto& p : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(p.launch);
    if (i >= n) continue;
    ++blocks[i];
    first_end[i] = std::min(first_end[i], p.end);
    if (!first[i] || p.start < first[i]->start || (p.start == first[i]->start && p.block < first[i]->block))
      first[i] = &p;
  }
  // The sample: the blocks that start before the launch's first block ends. They must all be on the first block's
  // SM, be blocks 0..k-1 (a grid of their own), and leave blocks for the rest.
  std::vector<std::int32_t> in_sample(n, 0), highest(n, -1);
  std::vector<bool> one_sm(n, true);
  for (const auto& p : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(p.launch);
    if (i >= n || p.start >= first_end[i]) continue;
    ++in_sample[i];
    highest[i] = std::max(highest[i], p.block);
    if (p.sm != first[i]->sm || p.gpu != first[i]->gpu) one_sm[i] = false;
  }
  std::vector<std::optional<PlannedSample>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!first[i] || !one_sm[i] || in_sample[i] >= blocks[i] || highest[i] + 1 != in_sample[i]) continue;
    out[i] = PlannedSample{in_sample[i], first[i]->sm, first[i]->start, first_end[i]};
  }
  return out;
}

bool runs_blocks_whole(const RunResult& plan) {
  std::vector<std::pair<std::int32_t, std::int32_t>> blocks;
  blocks.reserve(plan.schedule.pieces.size());
  for (const auto& p : plan.schedule.pieces) {
    if (p.outcome != PieceOutcome::Completed) return false;
    blocks.emplace_back(p.launch, p.block);
  }
  std::sort(blocks.begin(), blocks.end());
  return std::adjacent_find(blocks.begin(), blocks.end()) == blocks.end();
}

double nearest_rank_pct(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

bool turnarounds_within(const PriorityReplay& r, ReplayBound bound) {
  return nearest_rank_pct(r.turnaround_err_pct, 0.5) < bound.median_pct &&
         nearest_rank_pct(r.turnaround_err_pct, 0.9) < bound.p90_pct;
}

bool replay_within(const PriorityReplay& r, ReplayBound bound) {
  return r.same_finish_order && turnarounds_within(r, bound);
}

PriorityReplay replay_as_priorities(const Workload& w, const GpuSpec& gpu, const RunResult& plan, RunOptions options,
                                    int levels, AloneTimeCache& alone) {
  if (levels < 1) throw std::invalid_argument("levels must be at least 1");
  if (plan.launches.size() != w.launches.size())
    throw std::invalid_argument("replay_as_priorities: the plan is not of this workload");
  PriorityReplay out;
  out.priorities = launch_priorities(plan, 0, 1 - levels);
  Workload prioritised = w;
  // CUDA's lower numbers go first, the workload's higher ones (docs/policies/priority.md).
  for (std::size_t i = 0; i < prioritised.launches.size(); ++i)
    prioritised.launches[i].priority = -out.priorities.priority[i];
  options.policy = "priority";
  options.policy_params.clear();
  out.replay = run_workload(prioritised, gpu, options, alone);
  for (std::size_t i = 0; i < w.launches.size(); ++i) {
    const double replayed = static_cast<double>(out.replay.launches[i].turnaround);
    const double planned = static_cast<double>(plan.launches[i].turnaround);
    out.turnaround_err_pct.push_back(replayed > 0 ? std::fabs(replayed - planned) / replayed * 100.0 : 0.0);
  }
  const auto finish_order = [](const RunResult& r) {
    std::vector<std::size_t> order(r.launches.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r.launches[a].finish < r.launches[b].finish; });
    return order;
  };
  out.same_finish_order = finish_order(plan) == finish_order(out.replay);
  return out;
}

}  // namespace gpusched::sim
