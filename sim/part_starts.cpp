#include "sim/part_starts.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/plan_adherence.h"
#include "sim/planned_parts.h"

namespace gpusched::sim {

PlanPartIndex::PlanPartIndex(const RunResult& plan, bool at_residency_changes)
    : PlanPartIndex(plan, planned_part_pieces(plan, at_residency_changes)) {}

PlanPartIndex::PlanPartIndex(const RunResult& plan, const std::vector<PlannedPartPiece>& cut) : plan_(&plan) {
  const auto launches = static_cast<std::int32_t>(plan.launches.size());
  const auto& planned = plan.schedule.pieces;
  // Dense blocks: each launch's blocks 0..(its largest planned block), launch after launch.
  std::vector<std::int32_t> blocks_of(static_cast<std::size_t>(launches), 0);
  for (const auto& p : planned)
    if (p.launch >= 0 && p.launch < launches && p.block >= 0)
      blocks_of[static_cast<std::size_t>(p.launch)] =
          std::max(blocks_of[static_cast<std::size_t>(p.launch)], p.block + 1);
  block_base_.assign(static_cast<std::size_t>(launches) + 1, 0);
  for (std::int32_t l = 0; l < launches; ++l)
    block_base_[static_cast<std::size_t>(l) + 1] =
        block_base_[static_cast<std::size_t>(l)] + static_cast<std::size_t>(blocks_of[static_cast<std::size_t>(l)]);
  part_base_.assign(static_cast<std::size_t>(launches) + 1, 0);
  cut_ = !cut.empty();
  if (!cut_) {
    // Each launch that has pieces is one part, planned at its first piece's start.
    std::vector<TimeNs> first(static_cast<std::size_t>(launches), -1);
    for (const auto& p : planned)
      if (p.launch >= 0 && p.launch < launches) {
        auto& f = first[static_cast<std::size_t>(p.launch)];
        f = f < 0 ? p.start : std::min(f, p.start);
      }
    for (std::int32_t l = 0; l < launches; ++l) {
      if (first[static_cast<std::size_t>(l)] >= 0)
        parts_.push_back(PartStart{l, 0, first[static_cast<std::size_t>(l)], -1});
      part_base_[static_cast<std::size_t>(l) + 1] = parts_.size();
    }
    return;
  }
  // The cut's parts, in launch then part order, each planned at its earliest piece.
  std::vector<std::int32_t> parts_per_launch(static_cast<std::size_t>(launches), 0);
  for (const auto& p : cut)
    parts_per_launch[static_cast<std::size_t>(p.launch)] =
        std::max(parts_per_launch[static_cast<std::size_t>(p.launch)], p.part + 1);
  std::vector<TimeNs> part_first;
  for (std::int32_t l = 0; l < launches; ++l)
    part_base_[static_cast<std::size_t>(l) + 1] =
        part_base_[static_cast<std::size_t>(l)] +
        static_cast<std::size_t>(parts_per_launch[static_cast<std::size_t>(l)]);
  part_first.assign(part_base_.back(), -1);
  for (const auto& p : cut) {
    auto& f = part_first[part_base_[static_cast<std::size_t>(p.launch)] + static_cast<std::size_t>(p.part)];
    f = f < 0 ? p.start : std::min(f, p.start);
  }
  std::vector<std::ptrdiff_t> dense_part(part_first.size(), -1);
  for (std::int32_t l = 0; l < launches; ++l) {
    const std::size_t base = parts_.size();
    for (std::int32_t j = 0; j < parts_per_launch[static_cast<std::size_t>(l)]; ++j) {
      const std::size_t k = part_base_[static_cast<std::size_t>(l)] + static_cast<std::size_t>(j);
      if (part_first[k] < 0) continue;
      dense_part[k] = static_cast<std::ptrdiff_t>(parts_.size());
      parts_.push_back(PartStart{l, j, part_first[k], -1});
    }
    part_base_[static_cast<std::size_t>(l)] = base;
  }
  part_base_.back() = parts_.size();
  // part_at needs every part of a launch present: the cut numbers them 0.. without gaps; where it did not, fall back
  // to a search (never taken by planned_part_pieces' cuts, kept for safety).
  gapless_ = std::all_of(dense_part.begin(), dense_part.end(), [](std::ptrdiff_t d) { return d >= 0; });
  // Each block's pieces' parts, in the order the plan starts them (ties in the cut's order).
  std::vector<std::vector<std::pair<TimeNs, std::int32_t>>> by_start(block_base_.back());
  for (const auto& p : cut)
    if (const auto b = block_at(p.launch, p.block); b >= 0)
      by_start[static_cast<std::size_t>(b)].emplace_back(p.start, p.part);
  parts_of_block_.resize(by_start.size());
  for (std::size_t b = 0; b < by_start.size(); ++b) {
    auto& v = by_start[b];
    std::stable_sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [start, part] : v) parts_of_block_[b].push_back(part);
  }
  // Each planned piece's part: its block's parts, by the piece's ordinal among its block's pieces.
  part_of_piece_.assign(planned.size(), -1);
  {
    std::vector<std::vector<std::size_t>> of_block(block_base_.back());
    for (std::size_t p = 0; p < planned.size(); ++p)
      if (const auto b = block_at(planned[p].launch, planned[p].block); b >= 0)
        of_block[static_cast<std::size_t>(b)].push_back(p);
    for (std::size_t b = 0; b < of_block.size(); ++b) {
      auto& v = of_block[b];
      const auto& parts = parts_of_block_[b];
      if (parts.empty()) continue;
      std::stable_sort(v.begin(), v.end(),
                       [&](std::size_t x, std::size_t y) { return planned[x].start < planned[y].start; });
      for (std::size_t k = 0; k < v.size(); ++k) part_of_piece_[v[k]] = parts[std::min(k, parts.size() - 1)];
    }
  }
  // Each part's planned SMs.
  for (const auto& p : planned) sm_slots_ = std::max(sm_slots_, p.sm + 1);
  int gpus = 1;
  for (const auto& p : planned) gpus = std::max(gpus, p.gpu + 1);
  sms_.assign(parts_.size(), {});
  for (std::size_t p = 0; p < planned.size(); ++p) {
    if (part_of_piece_[p] < 0 || planned[p].gpu < 0 || planned[p].sm < 0) continue;
    const auto k = part_at(planned[p].launch, part_of_piece_[p]);
    if (k < 0) continue;
    auto& bits = sms_[static_cast<std::size_t>(k)];
    if (bits.empty()) bits.assign(static_cast<std::size_t>(gpus) * static_cast<std::size_t>(sm_slots_), 0);
    bits[static_cast<std::size_t>(planned[p].gpu) * static_cast<std::size_t>(sm_slots_) +
         static_cast<std::size_t>(planned[p].sm)] = 1;
  }
}

std::ptrdiff_t PlanPartIndex::block_at(std::int32_t launch, std::int32_t block) const {
  if (launch < 0 || static_cast<std::size_t>(launch) + 1 >= block_base_.size() || block < 0) return -1;
  const std::size_t at = block_base_[static_cast<std::size_t>(launch)] + static_cast<std::size_t>(block);
  return at < block_base_[static_cast<std::size_t>(launch) + 1] ? static_cast<std::ptrdiff_t>(at) : -1;
}

std::ptrdiff_t PlanPartIndex::part_at(std::int32_t launch, std::int32_t part) const {
  if (launch < 0 || static_cast<std::size_t>(launch) + 1 >= part_base_.size() || part < 0) return -1;
  const std::size_t begin = part_base_[static_cast<std::size_t>(launch)],
                    end = part_base_[static_cast<std::size_t>(launch) + 1];
  if (gapless_) {
    const std::size_t at = begin + static_cast<std::size_t>(part);
    return at < end ? static_cast<std::ptrdiff_t>(at) : -1;
  }
  for (std::size_t k = begin; k < end; ++k)
    if (parts_[k].part == part) return static_cast<std::ptrdiff_t>(k);
  return -1;
}

std::vector<PartStart> part_starts(const RunResult& plan, const Schedule& executed) {
  return part_starts(PlanPartIndex(plan), executed);
}

std::vector<PartStart> part_starts(const PlanPartIndex& index, const Schedule& executed) {
  std::vector<PartStart> parts = index.parts_;
  const auto earliest = [&](PartStart& s, std::size_t i) {
    if (s.executed < 0 || executed.pieces[i].start < s.executed) {
      s.executed = executed.pieces[i].start;
      s.executed_piece = static_cast<std::ptrdiff_t>(i);
    }
  };
  if (!index.cut_) {
    for (std::size_t i = 0; i < executed.pieces.size(); ++i)
      if (const auto k = index.part_at(executed.pieces[i].launch, 0); k >= 0)
        earliest(parts[static_cast<std::size_t>(k)], i);
    return parts;
  }
  // Each block's executed pieces, in (launch, block) order, each by start: the k-th is the block's k-th planned piece.
  std::vector<std::vector<std::size_t>> of_block(index.parts_of_block_.size());
  for (std::size_t i = 0; i < executed.pieces.size(); ++i) {
    const auto b = index.block_at(executed.pieces[i].launch, executed.pieces[i].block);
    if (b >= 0 && !index.parts_of_block_[static_cast<std::size_t>(b)].empty())
      of_block[static_cast<std::size_t>(b)].push_back(i);
  }
  for (std::size_t b = 0; b < of_block.size(); ++b) {
    auto& v = of_block[b];
    if (v.empty()) continue;
    std::stable_sort(v.begin(), v.end(),
                     [&](std::size_t x, std::size_t y) { return executed.pieces[x].start < executed.pieces[y].start; });
    const auto& of = index.parts_of_block_[b];
    const std::int32_t launch = executed.pieces[v.front()].launch;
    for (std::size_t k = 0; k < v.size(); ++k) {
      const auto at = index.part_at(launch, of[std::min(k, of.size() - 1)]);
      if (at < 0) throw std::logic_error("part_starts: a block's part is not among its launch's");
      earliest(parts[static_cast<std::size_t>(at)], v[k]);
    }
  }
  return parts;
}

std::vector<double> part_start_delays_us(const std::vector<PartStart>& starts) {
  std::vector<double> out;
  for (const auto& s : starts)
    if (s.executed >= 0) out.push_back(static_cast<double>(s.executed - s.planned) / 1e3);
  return out;
}

std::vector<TimeNs> launch_issue_ready(const RunResult& plan, const Schedule& executed,
                                       const std::vector<std::size_t>& executed_plan_piece,
                                       const std::vector<PartStart>& starts) {
  return launch_issue_ready(PlanPartIndex(plan), executed, executed_plan_piece, starts);
}

std::vector<TimeNs> launch_issue_ready(const PlanPartIndex& index, const Schedule& executed,
                                       const std::vector<std::size_t>& executed_plan_piece,
                                       const std::vector<PartStart>& starts) {
  std::vector<TimeNs> out(starts.size(), -1);
  if (!index.cut_) return out;
  const auto on = [&](std::ptrdiff_t part, std::int16_t gpu, std::int16_t sm) {
    const auto& bits = index.sms_[static_cast<std::size_t>(part)];
    if (bits.empty() || gpu < 0 || sm < 0 || sm >= index.sm_slots_) return false;
    const std::size_t at =
        static_cast<std::size_t>(gpu) * static_cast<std::size_t>(index.sm_slots_) + static_cast<std::size_t>(sm);
    return at < bits.size() && bits[at] != 0;
  };
  using SmKey = std::pair<std::int16_t, std::int16_t>;  // (gpu, SM)
  // Per launch, its executed pieces that ran on an SM the plan gave their part: (start, part, SM), sorted.
  std::vector<std::vector<std::tuple<TimeNs, std::int32_t, SmKey>>> on_own_sms(index.part_base_.size() - 1);
  for (std::size_t i = 0; i < executed.pieces.size(); ++i) {
    const auto& e = executed.pieces[i];
    const std::int32_t part = index.part_of_piece_[executed_plan_piece[i]];
    if (part < 0 || e.launch < 0 || static_cast<std::size_t>(e.launch) >= on_own_sms.size()) continue;
    if (const auto k = index.part_at(e.launch, part); k >= 0 && on(k, e.gpu, e.sm))
      on_own_sms[static_cast<std::size_t>(e.launch)].emplace_back(e.start, part, SmKey{e.gpu, e.sm});
  }
  for (auto& v : on_own_sms) std::sort(v.begin(), v.end());
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const auto& s = starts[k];
    const auto mine = index.part_at(s.launch, s.part);
    if (s.executed < 0 || mine < 0 || index.sms_[static_cast<std::size_t>(mine)].empty() || s.launch < 0 ||
        static_cast<std::size_t>(s.launch) >= on_own_sms.size())
      continue;
    // The latest start no later than the part's own: walk back from there to the first that qualifies.
    const auto& v = on_own_sms[static_cast<std::size_t>(s.launch)];
    auto it = std::upper_bound(v.begin(), v.end(), s.executed,
                               [](TimeNs t, const auto& piece) { return t < std::get<0>(piece); });
    while (it != v.begin()) {
      --it;
      const auto& [start, part, sm] = *it;
      if (part < s.part && on(mine, sm.first, sm.second)) {
        out[k] = start;
        break;
      }
    }
  }
  return out;
}

std::vector<double> part_start_delays_after_ready_us(const RunResult& plan, const RunResult& executed,
                                                     const std::vector<PartStart>& starts,
                                                     const std::vector<TimeNs>& planned_wait, bool in_issue_order) {
  return part_start_delays_after_ready_us(PlanPartIndex(plan), executed, starts, planned_wait, in_issue_order);
}

std::vector<double> part_start_delays_after_ready_us(const PlanPartIndex& index, const RunResult& executed,
                                                     const std::vector<PartStart>& starts,
                                                     const std::vector<TimeNs>& planned_wait, bool in_issue_order) {
  auto both = part_start_delays_both_us(index, executed, starts, planned_wait);
  return in_issue_order ? std::move(both.after_ready_us) : std::move(both.slot_only_us);
}

PartStartDelays part_start_delays_both_us(const PlanPartIndex& index, const RunResult& executed,
                                          const std::vector<PartStart>& starts,
                                          const std::vector<TimeNs>& planned_wait) {
  PartStartDelays out;
  const RunResult& plan = index.plan();
  const auto mapping = plan_piece_by_ordinal(plan.schedule, executed.schedule);
  if (!mapping) return out;
  const auto by_piece = plan_adherence(plan, executed, *mapping, planned_wait);
  const auto issue_ready = launch_issue_ready(index, executed.schedule, *mapping, starts);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    if (starts[k].executed_piece < 0) continue;
    const auto& a = by_piece.pieces[static_cast<std::size_t>(starts[k].executed_piece)];
    const auto delay_us = [&](TimeNs ready) { return static_cast<double>(a.executed_start - (ready + a.wait)) / 1e3; };
    out.after_ready_us.push_back(delay_us(std::max(a.ready, issue_ready[k])));
    out.slot_only_us.push_back(delay_us(std::max(a.ready, TimeNs{-1})));  // as with no issue-order time (-1)
  }
  return out;
}

std::vector<TimeNs> front_end_starts(const std::vector<TimeNs>& release, TimeNs interval) {
  std::vector<TimeNs> out = release;
  if (interval <= 0 || release.empty()) return out;
  std::vector<std::size_t> order(release.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return release[a] < release[b]; });
  TimeNs free_at = release[order.front()];
  for (const std::size_t k : order) {
    out[k] = std::max(release[k], free_at);
    free_at = out[k] + interval;
  }
  return out;
}

}  // namespace gpusched::sim
