#include "sim/parts_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "core/occupancy.h"
#include "core/plan_adherence.h"
#include "sim/duration_model.h"
#include "sim/parts_run.h"
#include "sim/policies/issue.h"
#include "sim/policy.h"
#include "sim/resident_levels.h"

namespace gpusched::sim {
namespace {

// The part of launch i's cut holding `block`: the last whose first block is at most it (parts are block ranges in
// order).
std::size_t part_of_block(const std::vector<PlannedPart>& parts, std::int32_t block) {
  const auto it = std::upper_bound(parts.begin(), parts.end(), block,
                                   [](std::int32_t b, const PlannedPart& part) { return b < part.first; });
  return static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, it - parts.begin() - 1));
}

bool sms_meet(const std::vector<int>& a, const std::vector<int>& b) {  // ascending; empty: every SM
  if (a.empty() || b.empty()) return true;
  for (std::size_t x = 0, y = 0; x < a.size() && y < b.size();) {
    if (a[x] == b[y]) return true;
    (a[x] < b[y] ? x : y) += 1;
  }
  return false;
}

// window_priorities over parts: two parts compete only where their SMs meet.
LaunchPriorities priorities_of_parts(const std::vector<TimeNs>& release, const std::vector<TimeNs>& last_start,
                                     const std::vector<const std::vector<int>*>& sms, int least, int greatest) {
  return window_priorities(release, last_start, least, greatest,
                           [&](std::size_t a, std::size_t b) { return sms_meet(*sms[a], *sms[b]); });
}

// Part `part` of a launch of `k` as a kernel of its own (the replay runs each part as a launch): a copy of k, of the
// same name (so the same interference weights), whose block b is the launch's block part.first + b. Its recorded
// block times are the launch's blocks' own, and where the launch's block has no record, the one the launch draws
// for it (`launch_draws`: its draw base), so a part's blocks take the times the plan gave them. Taking block b's
// record for the part's block b instead ran every part at the times of the launch's first blocks: live-h200's
// spatial plan replayed 9.9 % long (gather-s2's recorded first wave is 18 % slower than its later blocks, sgemm's
// 13-16 % faster, and every part took them), where the GPU ran it 0.1 % off
// (docs/validation.md, "Block times in the parts replay"). The record sets' means and sorted durations stay the
// kernel's: they describe the kernel, not the part.
std::shared_ptr<KernelProfile> part_kernel(const KernelProfile& k, const PlannedPart& part,
                                           std::uint64_t launch_draws) {
  auto copy = std::make_shared<KernelProfile>(k);
  const auto slice = [&](const std::vector<TimeNs>& by_block) {
    std::vector<TimeNs> out(static_cast<std::size_t>(part.blocks), -1);
    for (std::size_t b = 0; b < out.size(); ++b) {
      const std::size_t at = static_cast<std::size_t>(part.first) + b;
      if (at < by_block.size()) out[b] = by_block[at];
    }
    return out;
  };
  for (RecordSet& set : copy->record_sets) {
    set.duration_by_block = slice(set.duration_by_block);
    if (!set.alternate_by_block.empty()) set.alternate_by_block = slice(set.alternate_by_block);
  }
  if (RecordSet* primary = copy->record_sets.empty() ? nullptr : &copy->record_sets.back();
      primary && !primary->sorted_durations.empty()) {
    for (std::size_t b = 0; b < primary->duration_by_block.size(); ++b)
      if (primary->duration_by_block[b] < 0)
        primary->duration_by_block[b] = recorded_duration(k, part.first + static_cast<std::int64_t>(b), launch_draws);
  }
  return copy;
}

}  // namespace

LaunchPriorities part_priorities(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                 const std::vector<std::vector<PlannedPart>>& cut, int least, int greatest) {
  std::vector<std::size_t> first_of(cut.size() + 1, 0);  // flattened index of each launch's first part
  for (std::size_t i = 0; i < cut.size(); ++i) first_of[i + 1] = first_of[i] + cut[i].size();
  std::vector<TimeNs> release(first_of.back()), last_start(first_of.back(), kNoWindow);
  std::vector<const std::vector<int>*> sms(first_of.back());
  for (std::size_t i = 0; i < cut.size(); ++i)
    for (std::size_t j = 0; j < cut[i].size(); ++j) {
      release[first_of[i] + j] = part_release(w, gpu, i, cut[i][j].start);
      sms[first_of[i] + j] = &cut[i][j].sms;
    }
  for (const auto& p : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(p.launch);
    if (i >= cut.size() || cut[i].empty()) continue;
    TimeNs& last = last_start[first_of[i] + part_of_block(cut[i], p.block)];
    last = std::max(last, p.start);
  }
  return priorities_of_parts(release, last_start, sms, least, greatest);
}

LaunchPriorities part_priorities(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                 const std::vector<std::vector<PlannedPieces>>& cut, int least, int greatest) {
  std::vector<TimeNs> release, last_start;
  std::vector<const std::vector<int>*> sms;
  for (std::size_t i = 0; i < cut.size(); ++i)
    for (const PlannedPieces& part : cut[i]) {
      release.push_back(part_release(w, gpu, i, part.start));
      TimeNs last = kNoWindow;
      for (const std::size_t k : part.pieces) last = std::max(last, plan.schedule.pieces.at(k).start);
      last_start.push_back(last);
      sms.push_back(&part.sms);
    }
  return priorities_of_parts(release, last_start, sms, least, greatest);
}

std::vector<std::vector<int>> planned_part_residency(const RunResult& plan,
                                                     const std::vector<std::vector<PlannedPart>>& cut) {
  std::vector<std::vector<int>> out(cut.size());
  std::map<std::tuple<std::size_t, std::size_t, int>, std::vector<std::pair<TimeNs, int>>> changes;  // part, SM
  for (std::size_t i = 0; i < cut.size(); ++i) out[i].assign(cut[i].size(), 0);
  for (const auto& p : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(p.launch);
    if (i >= cut.size() || cut[i].empty()) continue;
    auto& c = changes[{i, part_of_block(cut[i], p.block), p.sm}];
    c.push_back({p.start, 1});
    c.push_back({p.end, -1});
  }
  for (auto& [key, c] : changes) {
    int& r = out[std::get<0>(key)][std::get<1>(key)];
    for_each_resident_level(c, [&r](TimeNs, TimeNs, int level) { r = std::max(r, level); });
  }
  return out;
}

std::vector<std::vector<int>> binding_part_caps(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                                const std::vector<std::vector<PlannedPart>>& cut) {
  auto caps = planned_part_residency(plan, cut);
  for (std::size_t i = 0; i < caps.size(); ++i) {
    const int holds = std::max(1, compute_occupancy(gpu, w.kernel_of(i).shape()).blocks_per_sm);
    for (int& c : caps[i])
      if (c >= holds) c = 0;
  }
  return caps;
}

namespace {

// The checks every public entry makes before it works anything out from the cut.
void require_parts_of(const Workload& w, const RunResult& plan, const std::vector<std::vector<PlannedPart>>& cut,
                      int levels) {
  if (levels < 1) throw std::invalid_argument("levels must be at least 1");
  if (plan.launches.size() != w.launches.size() || cut.size() != w.launches.size())
    throw std::invalid_argument("replay_in_parts: the plan or its parts are not of this workload");
}

// replay_in_parts with what its options need worked out by the caller, its arguments checked (require_parts_of)
// (replay_parts_ways works them out once for its four ways): `residency`, binding_part_caps where the parts are held
// (else empty); `by_part`, part_priorities' priorities where each part has its own (else empty).
PriorityReplay replay_in_parts_given(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                     const std::vector<std::vector<PlannedPart>>& cut, RunOptions options, int levels,
                                     AloneTimeCache& alone, const std::vector<std::vector<int>>& residency,
                                     const std::vector<int>& by_part,
                                     const std::vector<std::vector<int>>& context_sms) {
  const std::size_t n = w.launches.size();
  std::size_t parts_in_cut = 0;
  for (const auto& c : cut) parts_in_cut += c.size();
  if (!context_sms.empty() && context_sms.size() != parts_in_cut)
    throw std::invalid_argument("replay_in_parts: the green contexts are not one a part");
  const auto priorities = launch_priorities(plan, 0, 1 - levels);
  PartLaunches parts;
  const bool capped = !residency.empty();
  for (std::size_t i = 0; i < n; ++i) {
    if (cut[i].empty()) throw std::invalid_argument("replay_in_parts: launch " + w.launches[i].id + " has no parts");
    for (std::size_t j = 0; j < cut[i].size(); ++j) {
      const PlannedPart& part = cut[i][j];
      auto kernel = part_kernel(w.kernel_of(i), part, draw_base(options.seed, i));
      kernel->grid = {part.blocks, 1, 1};
      parts.kernels.push_back(kernel);
      Launch l;
      l.id = w.launches[i].id + "#" + std::to_string(j);
      l.kernel = parts.kernels.size() - 1;
      l.tenant = w.launches[i].tenant.empty() ? w.launches[i].id : w.launches[i].tenant;
      l.arrival = part_release(w, gpu, i, part.start);
      // CUDA's lower numbers go first, the workload's higher ones
      l.priority = -(by_part.empty() ? priorities.priority[i] : by_part[parts.launches.size()]);
      parts.launches.push_back(std::move(l));
      // Where the part runs: its planned SMs, or its green context's (an empty context: every SM).
      parts.sms.push_back(context_sms.empty() ? part.sms : context_sms[parts.launches.size() - 1]);
      parts.owner.push_back(i);
      parts.caps.push_back(capped && residency[i][j] > 0 ? residency[i][j] : INT_MAX);
      std::vector<std::int32_t> blocks(static_cast<std::size_t>(part.blocks));
      std::iota(blocks.begin(), blocks.end(), part.first);
      parts.block_of.push_back(std::move(blocks));
    }
  }
  return run_part_launches(w, gpu, plan, std::move(parts), std::move(options), alone, priorities);
}

}  // namespace

PriorityReplay replay_in_parts(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                               const std::vector<std::vector<PlannedPart>>& cut, RunOptions options, int levels,
                               AloneTimeCache& alone, PartsReplayOptions parts_options,
                               const std::vector<std::vector<int>>& context_sms) {
  require_parts_of(w, plan, cut, levels);
  const auto residency = parts_options.capped ? binding_part_caps(w, gpu, plan, cut) : std::vector<std::vector<int>>{};
  const auto by_part =
      parts_options.part_priorities ? part_priorities(w, gpu, plan, cut, 0, 1 - levels).priority : std::vector<int>{};
  return replay_in_parts_given(w, gpu, plan, cut, std::move(options), levels, alone, residency, by_part, context_sms);
}

const char* parts_way_name(PartsReplayOptions way) {
  return way.capped && way.part_priorities ? "both"
         : way.capped                      ? "held to the plan's blocks an SM"
         : way.part_priorities             ? "each at its own priority"
                                           : "at their launches' priorities";
}

std::string fused_choice_reason(const std::vector<PartsWay>& ways, PartsDecision decision, double makespan_bound_pct) {
  if (!decision.fused || ways.empty()) return {};
  return fmt::format(
      "no way within the bound, and at their launches' priorities the parts run the plan {:+.1f} % long (beyond "
      "{:.1f} %): carried out by the fused worker, which keeps the plan's mix on each SM",
      ways[0].makespan_err_pct, makespan_bound_pct);
}

std::vector<double> replay_start_delays_us(const Workload& w, const RunResult& plan,
                                           const std::vector<std::vector<PlannedPart>>& cut,
                                           const PriorityReplay& replay) {
  return replay_start_delays_us(PlanPartIndex(plan, planned_part_pieces(plan, cut)), planned_waits(w, plan), replay);
}

std::vector<double> replay_start_delays_us(const PlanPartIndex& plan, const std::vector<TimeNs>& planned_waits,
                                           const PriorityReplay& replay) {
  return part_start_delays_after_ready_us(plan, replay.in_workload, part_starts(plan, replay.in_workload.schedule),
                                          planned_waits);
}

std::vector<PartsWay> replay_parts_ways(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                        const std::vector<std::vector<PlannedPart>>& cut, const RunOptions& options,
                                        int levels, AloneTimeCache& alone,
                                        const std::vector<std::vector<int>>& context_sms) {
  require_parts_of(w, plan, cut, levels);
  const auto own_priorities = part_priorities(w, gpu, plan, cut, 0, 1 - levels);
  // Parts the plan holds below their kernel's residency for more than one round of blocks: not a part that has few
  // blocks left (a launch's last one), but a launch the plan runs beside others on the same SMs.
  std::size_t held = 0;
  const auto caps = binding_part_caps(w, gpu, plan, cut);
  for (std::size_t i = 0; i < caps.size(); ++i)
    for (std::size_t j = 0; j < caps[i].size(); ++j)
      if (caps[i][j] > 0 && cut[i][j].blocks > caps[i][j] * static_cast<int>(cut[i][j].sms.size())) ++held;
  // The plan's side of the start delays, once for the four ways.
  const PlanPartIndex index(plan, planned_part_pieces(plan, cut));
  const auto waits = planned_waits(w, plan);
  std::vector<PartsWay> out;
  for (const PartsReplayOptions v :
       {PartsReplayOptions{}, PartsReplayOptions{.capped = true}, PartsReplayOptions{.part_priorities = true},
        PartsReplayOptions{.capped = true, .part_priorities = true}}) {
    PartsWay way;
    way.options = v;
    way.replay = replay_in_parts_given(w, gpu, plan, cut, options, levels, alone,
                                       v.capped ? caps : std::vector<std::vector<int>>{},
                                       v.part_priorities ? own_priorities.priority : std::vector<int>{}, context_sms);
    way.start_delays_us = replay_start_delays_us(index, waits, way.replay);
    way.parts_short = v.part_priorities ? own_priorities.clamped : 0;
    way.held_parts = held;
    way.makespan_err_pct = 100.0 * static_cast<double>(way.replay.replay.metrics.makespan - plan.metrics.makespan) /
                           static_cast<double>(std::max<TimeNs>(1, plan.metrics.makespan));
    out.push_back(std::move(way));
  }
  return out;
}

PartsDecision choose_parts_way(const std::vector<PartsWay>& ways, PartsChoice rule, double makespan_bound_pct) {
  const bool makespan_bound = makespan_bound_pct > 0;
  const bool plain_off = makespan_bound && !ways.empty() && ways[0].held_parts > 0 &&
                         std::abs(ways[0].makespan_err_pct) > makespan_bound_pct;
  const auto eligible = [&](const PartsWay& way) {
    if (!turnarounds_within(way.replay)) return false;
    if (!makespan_bound) return true;
    const double bound = plain_off && way.options.capped ? makespan_bound_pct / 2 : makespan_bound_pct;
    return std::abs(way.makespan_err_pct) <= bound && (!plain_off || way.parts_short == 0);
  };
  std::size_t chosen = ways.size();
  for (std::size_t k = 0; k < ways.size() && chosen == ways.size(); ++k)
    if (eligible(ways[k])) chosen = k;
  if (chosen == ways.size()) return {.way = 0, .fused = plain_off};
  if (rule == PartsChoice::First) return {.way = chosen};
  const auto p99 = [&](std::size_t k) { return nearest_rank_pct(ways[k].start_delays_us, 0.99); };
  const std::size_t first = chosen;
  for (std::size_t k = first + 1; k < ways.size(); ++k)
    if (eligible(ways[k]) && ways[k].parts_short == 0 && !ways[k].start_delays_us.empty() &&
        (!ways[k].options.capped || ways[first].options.capped) && p99(k) < 0.5 * p99(first) && p99(k) < p99(chosen))
      chosen = k;
  return {.way = chosen};
}

}  // namespace gpusched::sim
