#include "sim/part_starts.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "core/plan_adherence.h"
#include "sim/planned_parts.h"

namespace gpusched::sim {

namespace {

using BlockKey = std::pair<std::int32_t, std::int32_t>;  // (launch, block)

// Each block's pieces' parts, in the order the plan starts them.
std::map<BlockKey, std::vector<std::int32_t>> parts_of_blocks(const std::vector<PlannedPartPiece>& pieces) {
  std::map<BlockKey, std::vector<std::pair<TimeNs, std::int32_t>>> by_start;
  for (const auto& p : pieces) by_start[{p.launch, p.block}].emplace_back(p.start, p.part);
  std::map<BlockKey, std::vector<std::int32_t>> out;
  for (auto& [key, v] : by_start) {
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto& parts = out[key];
    for (const auto& [start, part] : v) parts.push_back(part);
  }
  return out;
}

}  // namespace

std::vector<PartStart> part_starts(const RunResult& plan, const Schedule& executed) {
  const auto launches = static_cast<std::int32_t>(plan.launches.size());
  const auto cut = planned_part_pieces(plan);
  std::map<std::pair<std::int32_t, std::int32_t>, PartStart> parts;  // (launch, part)
  const auto earliest = [&](PartStart& s, std::size_t i) {
    if (s.executed < 0 || executed.pieces[i].start < s.executed) {
      s.executed = executed.pieces[i].start;
      s.executed_piece = static_cast<std::ptrdiff_t>(i);
    }
  };

  if (cut.empty()) {
    for (const auto& p : plan.schedule.pieces)
      if (p.launch >= 0 && p.launch < launches) {
        auto& s = parts.try_emplace({p.launch, 0}, PartStart{p.launch, 0, p.start, -1}).first->second;
        s.planned = std::min(s.planned, p.start);
      }
    for (std::size_t i = 0; i < executed.pieces.size(); ++i)
      if (const auto it = parts.find({executed.pieces[i].launch, 0}); it != parts.end()) earliest(it->second, i);
  } else {
    for (const auto& p : cut) {
      auto& s = parts.try_emplace({p.launch, p.part}, PartStart{p.launch, p.part, p.start, -1}).first->second;
      s.planned = std::min(s.planned, p.start);
    }
    const auto planned_parts_of = parts_of_blocks(cut);
    std::map<BlockKey, std::vector<std::size_t>> executed_of_block;  // each block's executed pieces
    for (std::size_t i = 0; i < executed.pieces.size(); ++i) {
      const auto& p = executed.pieces[i];
      if (planned_parts_of.count({p.launch, p.block})) executed_of_block[{p.launch, p.block}].push_back(i);
    }
    for (auto& [key, of_block] : executed_of_block) {
      std::stable_sort(of_block.begin(), of_block.end(), [&](std::size_t a, std::size_t b) {
        return executed.pieces[a].start < executed.pieces[b].start;
      });
      const auto& of = planned_parts_of.at(key);
      for (std::size_t k = 0; k < of_block.size(); ++k)
        earliest(parts.at({key.first, of[std::min(k, of.size() - 1)]}), of_block[k]);
    }
  }
  std::vector<PartStart> out;
  out.reserve(parts.size());
  for (const auto& [key, s] : parts) out.push_back(s);
  return out;
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
  std::vector<TimeNs> out(starts.size(), -1);
  const auto cut = planned_part_pieces(plan);
  if (cut.empty()) return out;
  const auto& planned = plan.schedule.pieces;
  // Each planned piece's part: the cut's parts of its block, by the piece's ordinal among its block's pieces.
  std::vector<std::int32_t> part_of(planned.size(), -1);
  {
    const auto parts_of = parts_of_blocks(cut);
    std::map<BlockKey, std::vector<std::size_t>> of_block;
    for (std::size_t p = 0; p < planned.size(); ++p) of_block[{planned[p].launch, planned[p].block}].push_back(p);
    for (auto& [key, v] : of_block) {
      const auto it = parts_of.find(key);
      if (it == parts_of.end()) continue;
      std::stable_sort(v.begin(), v.end(),
                       [&](std::size_t a, std::size_t b) { return planned[a].start < planned[b].start; });
      for (std::size_t k = 0; k < v.size(); ++k) part_of[v[k]] = it->second[std::min(k, it->second.size() - 1)];
    }
  }
  using PartKey = std::pair<std::int32_t, std::int32_t>;  // (launch, part)
  using SmKey = std::pair<std::int16_t, std::int16_t>;    // (gpu, SM)
  std::map<PartKey, std::set<SmKey>> sms_of;              // each part's planned SMs
  for (std::size_t p = 0; p < planned.size(); ++p)
    if (part_of[p] >= 0) sms_of[{planned[p].launch, part_of[p]}].insert({planned[p].gpu, planned[p].sm});
  // Per launch, its executed pieces that ran on an SM the plan gave their part: (start, part, SM).
  std::map<std::int32_t, std::vector<std::tuple<TimeNs, std::int32_t, SmKey>>> on_own_sms;
  for (std::size_t i = 0; i < executed.pieces.size(); ++i) {
    const auto& e = executed.pieces[i];
    const std::int32_t part = part_of[executed_plan_piece[i]];
    if (part < 0) continue;
    const SmKey sm{e.gpu, e.sm};
    if (const auto it = sms_of.find({e.launch, part}); it != sms_of.end() && it->second.count(sm))
      on_own_sms[e.launch].emplace_back(e.start, part, sm);
  }
  for (auto& [launch, v] : on_own_sms) std::sort(v.begin(), v.end());
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const auto& s = starts[k];
    const auto mine = sms_of.find({s.launch, s.part});
    const auto earlier = on_own_sms.find(s.launch);
    if (s.executed < 0 || mine == sms_of.end() || earlier == on_own_sms.end()) continue;
    // The latest start no later than the part's own: walk back from there to the first that qualifies.
    const auto& v = earlier->second;
    auto it = std::upper_bound(v.begin(), v.end(), s.executed,
                               [](TimeNs t, const auto& piece) { return t < std::get<0>(piece); });
    while (it != v.begin()) {
      --it;
      const auto& [start, part, sm] = *it;
      if (part < s.part && mine->second.count(sm)) {
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
  std::vector<double> out;
  const auto mapping = plan_piece_by_ordinal(plan.schedule, executed.schedule);
  if (!mapping) return out;
  const auto by_piece = plan_adherence(plan, executed, *mapping, planned_wait);
  const auto issue_ready = in_issue_order ? launch_issue_ready(plan, executed.schedule, *mapping, starts)
                                          : std::vector<TimeNs>(starts.size(), -1);
  for (std::size_t k = 0; k < starts.size(); ++k) {
    if (starts[k].executed_piece < 0) continue;
    const auto& a = by_piece.pieces[static_cast<std::size_t>(starts[k].executed_piece)];
    const TimeNs ready = std::max(a.ready, issue_ready[k]);
    out.push_back(static_cast<double>(a.executed_start - (ready + a.wait)) / 1e3);
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
