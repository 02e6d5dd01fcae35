#include "core/plan_adherence.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>
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
  std::map<std::tuple<int, int, TimeNs>, std::vector<std::size_t>> ended_at;
  for (std::size_t p = 0; p < plan.size(); ++p) ended_at[{plan[p].gpu, plan[p].sm, plan[p].end}].push_back(p);
  std::vector<std::ptrdiff_t> hand_off(plan.size(), -1);
  for (std::size_t p = 0; p < plan.size(); ++p) {
    const auto it = ended_at.find({plan[p].gpu, plan[p].sm, plan[p].start});
    if (it == ended_at.end()) continue;
    TimeNs latest = -1;
    for (const std::size_t r : it->second) {
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
  using Block = std::pair<std::int32_t, std::int32_t>;  // (launch, block)
  const auto by_start = [](const std::vector<BlockPiece>& pieces) {
    std::map<Block, std::vector<std::size_t>> of;
    for (std::size_t i = 0; i < pieces.size(); ++i) of[{pieces[i].launch, pieces[i].block}].push_back(i);
    for (auto& [block, v] : of)
      std::stable_sort(v.begin(), v.end(),
                       [&](std::size_t a, std::size_t b) { return pieces[a].start < pieces[b].start; });
    return of;
  };
  const auto plan_of = by_start(planned.pieces);
  std::vector<std::size_t> out(executed.pieces.size());
  for (const auto& [block, v] : by_start(executed.pieces)) {
    const auto it = plan_of.find(block);
    if (it == plan_of.end()) return std::nullopt;
    for (std::size_t k = 0; k < v.size(); ++k) out[v[k]] = it->second[std::min(k, it->second.size() - 1)];
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
