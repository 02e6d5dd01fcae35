#include "core/plan_adherence.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/prediction_errors.h"

namespace gpusched {

PlanAdherence plan_adherence(const RunResult& planned, const RunResult& executed,
                             const std::vector<std::size_t>& executed_plan_piece,
                             const std::vector<TimeNs>& planned_wait, const std::vector<double>& body_factor) {
  const auto& plan = planned.schedule.pieces;
  const auto& exec = executed.schedule.pieces;
  if (executed_plan_piece.size() != exec.size())
    throw std::invalid_argument("plan_adherence: one planned piece is needed per executed piece");
  if (!planned_wait.empty() && planned_wait.size() != plan.size())
    throw std::invalid_argument("plan_adherence: one planned wait is needed per planned piece");
  if (planned.launches.size() != executed.launches.size())
    throw std::invalid_argument("plan_adherence: the runs have different launches");
  if (!body_factor.empty() && body_factor.size() != planned.launches.size())
    throw std::invalid_argument("plan_adherence: one body factor is needed per launch");

  // Per planned piece, its executed piece (-1: not executed, e.g. skipped because its block had already ended).
  std::vector<std::ptrdiff_t> executed_of(plan.size(), -1);
  for (std::size_t i = 0; i < exec.size(); ++i) {
    const std::size_t p = executed_plan_piece[i];
    if (p >= plan.size() || plan[p].launch != exec[i].launch || plan[p].block != exec[i].block)
      throw std::invalid_argument("plan_adherence: an executed piece maps to a planned piece of another block");
    executed_of[p] = static_cast<std::ptrdiff_t>(i);
  }

  // Hand-offs: a planned piece starting at the instant another piece ended on its SM waited for that piece; among
  // several, the one whose execution ended last (the one that held it up).
  // The planned pieces by (GPU, SM, end), ties in piece order: one sorted array, searched per piece (a map of lists
  // cost more in allocations than the search: docs/performance.md, "Part start delays").
  using EndKey = std::tuple<int, int, TimeNs>;
  const auto end_key = [&](std::size_t p) { return EndKey{plan[p].gpu, plan[p].sm, plan[p].end}; };
  std::vector<std::size_t> by_end(plan.size());
  for (std::size_t p = 0; p < plan.size(); ++p) by_end[p] = p;
  std::stable_sort(by_end.begin(), by_end.end(), [&](std::size_t a, std::size_t b) { return end_key(a) < end_key(b); });
  std::vector<std::ptrdiff_t> hand_off(plan.size(), -1);
  for (std::size_t p = 0; p < plan.size(); ++p) {
    const EndKey at{plan[p].gpu, plan[p].sm, plan[p].start};
    const auto [first, last] = std::equal_range(by_end.begin(), by_end.end(), at, [&](const auto& x, const auto& y) {
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, EndKey>)
        return x < end_key(y);
      else
        return end_key(x) < y;
    });
    if (first == last) continue;
    TimeNs latest = -1;
    for (auto it = first; it != last; ++it) {
      const std::size_t r = *it;
      if (r == p || executed_of[r] < 0) continue;
      const TimeNs end = exec[static_cast<std::size_t>(executed_of[r])].end;
      if (end > latest) {
        latest = end;
        hand_off[p] = static_cast<std::ptrdiff_t>(r);
      }
    }
  }

  PlanAdherence out;
  out.pieces.resize(exec.size());
  std::vector<double> delays, offsets;
  for (std::size_t i = 0; i < exec.size(); ++i) {
    const std::size_t p = executed_plan_piece[i];
    const auto l = static_cast<std::size_t>(plan[p].launch);
    auto& a = out.pieces[i];
    a.plan_piece = p;
    a.planned_start = plan[p].start;
    a.planned_end = plan[p].end;
    a.executed_start = exec[i].start;
    a.executed_end = exec[i].end;
    // Without a hand-off: released in the execution, as long after its launch's release as in the plan.
    a.ready = executed.launches[l].release + (plan[p].start - planned.launches[l].release);
    if (hand_off[p] >= 0) {
      const TimeNs handed = exec[static_cast<std::size_t>(executed_of[static_cast<std::size_t>(hand_off[p])])].end;
      if (handed >= a.ready) {
        a.ready = handed;
        a.hand_off = hand_off[p];
      }
    }
    a.wait = planned_wait.empty() ? 0 : planned_wait[p];
    a.hand_off_delay = a.executed_start - (a.ready + a.wait);
    a.moved = exec[i].sm != plan[p].sm || exec[i].gpu != plan[p].gpu;
    out.moved += a.moved;
    if (!a.moved) delays.push_back(static_cast<double>(a.hand_off_delay) / 1e3);
    offsets.push_back(static_cast<double>(a.executed_start - a.planned_start) / 1e3);
  }
  if (!delays.empty()) {
    out.hand_off_delay_median_us = nearest_rank(delays, 0.5);
    out.hand_off_delay_p99_us = nearest_rank(delays, 0.99);
  }
  if (!offsets.empty()) out.start_offset_median_us = nearest_rank(offsets, 0.5);

  // Each launch's error along the chain of hand-offs ending at its last executed piece.
  const std::size_t n = planned.launches.size();
  std::vector<std::ptrdiff_t> last(n, -1);
  for (std::size_t i = 0; i < exec.size(); ++i) {
    const auto l = static_cast<std::size_t>(exec[i].launch);
    if (last[l] < 0 || exec[i].end > exec[static_cast<std::size_t>(last[l])].end)
      last[l] = static_cast<std::ptrdiff_t>(i);
  }
  out.launches.resize(n);
  for (std::size_t l = 0; l < n; ++l) {
    const auto& m = executed.launches[l];
    const auto& pr = planned.launches[l];
    auto& e = out.launches[l];
    e.error = (m.finish - m.release) - (pr.finish - pr.release);
    if (last[l] < 0) continue;
    std::size_t i = static_cast<std::size_t>(last[l]);
    e.order = out.pieces[i].planned_end - pr.finish;
    // Measured finish is the last piece's end; anything else (a launch finished by a kill) goes to the executor.
    e.executor = m.finish - exec[i].end;
    for (std::size_t guard = 0; guard <= exec.size(); ++guard) {
      const auto& a = out.pieces[i];
      ++e.chain;
      e.executor += a.hand_off_delay;
      const TimeNs planned_duration = a.planned_end - a.planned_start - a.wait;
      const TimeNs body =
          body_factor.empty()
              ? 0
              : static_cast<TimeNs>(std::llround(static_cast<double>(planned_duration) *
                                                 (body_factor[static_cast<std::size_t>(exec[i].launch)] - 1.0)));
      e.body += body;
      e.model += (a.executed_end - a.executed_start) - planned_duration - body;
      if (a.hand_off < 0) {
        const auto first = static_cast<std::size_t>(exec[i].launch);
        e.release = (executed.launches[first].release - planned.launches[first].release) - (m.release - pr.release);
        break;
      }
      i = static_cast<std::size_t>(executed_of[static_cast<std::size_t>(a.hand_off)]);
    }
  }
  return out;
}

std::optional<std::vector<std::size_t>> plan_piece_by_ordinal(const Schedule& planned, const Schedule& executed) {
  // Each schedule's pieces by (launch, block, start), ties in piece order: a block's pieces in a run, by start. One
  // sort each, not a map of lists (docs/performance.md, "Part start delays").
  using Key = std::tuple<std::int32_t, std::int32_t, TimeNs>;
  const auto by_start = [](const std::vector<BlockPiece>& pieces) {
    std::vector<std::size_t> order(pieces.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return Key{pieces[a].launch, pieces[a].block, pieces[a].start} <
             Key{pieces[b].launch, pieces[b].block, pieces[b].start};
    });
    return order;
  };
  const auto& plan = planned.pieces;
  const auto& exec = executed.pieces;
  const auto plan_order = by_start(plan), exec_order = by_start(exec);
  const auto block_of = [](const BlockPiece& p) { return std::pair{p.launch, p.block}; };
  std::vector<std::size_t> out(exec.size());
  std::size_t pi = 0;
  for (std::size_t ei = 0; ei < exec_order.size();) {
    const auto block = block_of(exec[exec_order[ei]]);
    while (pi < plan_order.size() && block_of(plan[plan_order[pi]]) < block) ++pi;
    if (pi == plan_order.size() || block_of(plan[plan_order[pi]]) != block) return std::nullopt;
    std::size_t plan_end = pi;
    while (plan_end < plan_order.size() && block_of(plan[plan_order[plan_end]]) == block) ++plan_end;
    for (std::size_t k = 0; ei < exec_order.size() && block_of(exec[exec_order[ei]]) == block; ++k, ++ei)
      out[exec_order[ei]] = plan_order[std::min(pi + k, plan_end - 1)];
    pi = plan_end;
  }
  return out;
}

double body_speed_factor(const RunResult& planned, const RunResult& executed,
                         const std::vector<std::size_t>& executed_plan_piece, const std::vector<TimeNs>& planned_wait) {
  const auto& plan = planned.schedule.pieces;
  const auto& exec = executed.schedule.pieces;
  if (executed_plan_piece.size() != exec.size() || (!planned_wait.empty() && planned_wait.size() != plan.size()))
    throw std::invalid_argument("body_speed_factor: one planned piece per executed piece, one wait per planned piece");
  double ran = 0, planned_total = 0;
  for (std::size_t i = 0; i < exec.size(); ++i) {
    const std::size_t p = executed_plan_piece[i];
    if (p >= plan.size()) throw std::invalid_argument("body_speed_factor: an executed piece maps to no planned piece");
    ran += static_cast<double>(exec[i].end - exec[i].start);
    planned_total += static_cast<double>(plan[p].end - plan[p].start - (planned_wait.empty() ? 0 : planned_wait[p]));
  }
  return planned_total > 0 && ran > 0 ? ran / planned_total : 1.0;
}

std::vector<TimeNs> planned_waits(const Workload& w, const RunResult& plan) {
  std::vector<TimeNs> wait;
  wait.reserve(plan.schedule.pieces.size());
  for (const auto& piece : plan.schedule.pieces)
    wait.push_back(
        std::max<TimeNs>(0, piece.end - piece.start - static_cast<TimeNs>(std::llround(raw_equivalent_ns(w, piece)))));
  return wait;
}

}  // namespace gpusched
