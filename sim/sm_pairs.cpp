#include "sim/sm_pairs.h"

#include <algorithm>
#include <stdexcept>

#include "sim/launch_priorities.h"
#include "sim/planned_parts.h"

namespace gpusched::sim {

std::vector<ConfinedWork> confined_work(const RunResult& plan, const PieceCut& cut_how) {
  const auto& pieces = plan.schedule.pieces;
  std::vector<ConfinedWork> out;
  if (runs_blocks_whole(plan)) {
    const auto cut = planned_parts(plan);
    if (every_launch_has_parts(cut)) {
      // Each block runs in one piece: a part's busy time is its block range's pieces.
      std::vector<std::vector<TimeNs>> block_time(cut.size());
      for (const auto& p : pieces) {
        auto& times = block_time[static_cast<std::size_t>(p.launch)];
        if (times.size() <= static_cast<std::size_t>(p.block)) times.resize(static_cast<std::size_t>(p.block) + 1, 0);
        times[static_cast<std::size_t>(p.block)] += p.end - p.start;
      }
      for (std::size_t l = 0; l < cut.size(); ++l)
        for (const auto& part : cut[l]) {
          ConfinedWork c{part.sms, 0};
          for (std::int32_t b = part.first; b < part.first + part.blocks; ++b)
            if (static_cast<std::size_t>(b) < block_time[l].size())
              c.busy += block_time[l][static_cast<std::size_t>(b)];
          out.push_back(std::move(c));
        }
      return out;
    }
  } else {
    const auto cut = planned_piece_parts(plan, cut_how);
    bool any = false;
    for (const auto& launch : cut)
      for (const auto& part : launch) {
        ConfinedWork c{part.sms, 0};
        for (const std::size_t i : part.pieces) c.busy += pieces[i].end - pieces[i].start;
        out.push_back(std::move(c));
        any = true;
      }
    if (any) return out;
  }
  // No cut: each launch whole, on every SM the plan gives it.
  std::vector<std::vector<std::uint8_t>> on;
  std::vector<TimeNs> busy;
  for (const auto& p : pieces) {
    const auto l = static_cast<std::size_t>(p.launch);
    if (on.size() <= l) {
      on.resize(l + 1);
      busy.resize(l + 1, 0);
    }
    auto& sms = on[l];
    if (sms.size() <= static_cast<std::size_t>(p.sm)) sms.resize(static_cast<std::size_t>(p.sm) + 1, 0);
    sms[static_cast<std::size_t>(p.sm)] = 1;
    busy[l] += p.end - p.start;
  }
  for (std::size_t l = 0; l < on.size(); ++l) {
    ConfinedWork c{{}, busy[l]};
    for (std::size_t s = 0; s < on[l].size(); ++s)
      if (on[l][s]) c.sms.push_back(static_cast<int>(s));
    if (!c.sms.empty()) out.push_back(std::move(c));
  }
  return out;
}

SpillWeights::SpillWeights(const std::vector<ConfinedWork>& work, int sm_count)
    : sm_count_(sm_count), us_(static_cast<std::size_t>(sm_count) * static_cast<std::size_t>(sm_count), 0.0) {
  if (sm_count <= 0) throw std::invalid_argument("spill weights: the GPU has no SM");
  std::vector<std::uint8_t> inside(static_cast<std::size_t>(sm_count));
  for (const auto& c : work) {
    if (c.sms.empty()) continue;
    std::fill(inside.begin(), inside.end(), 0);
    int n = 0;
    for (const int s : c.sms) {
      if (s < 0 || s >= sm_count) throw std::invalid_argument("spill weights: an SM beyond the GPU's");
      n += !inside[static_cast<std::size_t>(s)];
      inside[static_cast<std::size_t>(s)] = 1;
    }
    if (n == sm_count) continue;  // the whole GPU: nothing outside to spill onto
    const double per_sm_us = static_cast<double>(c.busy) / 1e3 / n;
    for (int a = 0; a < sm_count; ++a) {
      if (!inside[static_cast<std::size_t>(a)]) continue;
      for (int b = 0; b < sm_count; ++b) {
        if (inside[static_cast<std::size_t>(b)]) continue;
        us_[static_cast<std::size_t>(a * sm_count + b)] += per_sm_us;
        us_[static_cast<std::size_t>(b * sm_count + a)] += per_sm_us;
      }
    }
  }
}

double pairing_spill_us(const SpillWeights& w, const std::vector<SmPair>& pairs) {
  double sum = 0;
  for (const auto& p : pairs) sum += w(p[0], p[1]);
  return sum;
}

SmPairing pair_sms(const SpillWeights& w, std::vector<SmPair> start) {
  std::vector<int> seen(static_cast<std::size_t>(w.sm_count()), 0);
  for (const auto& p : start)
    for (const int s : p) {
      if (s < 0 || s >= w.sm_count() || seen[static_cast<std::size_t>(s)]++)
        throw std::invalid_argument("pair_sms: the starting pairs must hold every SM once");
    }
  if (2 * start.size() != static_cast<std::size_t>(w.sm_count()))
    throw std::invalid_argument("pair_sms: the starting pairs must hold every SM once");
  SmPairing r;
  r.start_spill_us = pairing_spill_us(w, start);
  // Relative tolerance, so that rounding cannot make two exchanges undo each other forever.
  const double eps = 1e-9 * std::max(1.0, r.start_spill_us);
  for (bool improved = true; improved;) {
    improved = false;
    for (std::size_t i = 0; i < start.size(); ++i)
      for (std::size_t j = i + 1; j < start.size(); ++j) {
        const auto [a, b] = start[i];
        const auto [c, d] = start[j];
        const double now = w(a, b) + w(c, d), ac = w(a, c) + w(b, d), ad = w(a, d) + w(b, c);
        if (ac < now - eps && ac <= ad) {
          start[i] = {a, c};
          start[j] = {b, d};
          improved = true;
        } else if (ad < now - eps) {
          start[i] = {a, d};
          start[j] = {b, c};
          improved = true;
        }
      }
  }
  r.spill_us = pairing_spill_us(w, start);
  r.pairs = std::move(start);
  return r;
}

void renumber_sms(RunResult& plan, const std::vector<int>& to) {
  if (plan.gpu_count > 1) throw std::invalid_argument("renumber_sms: a plan over one GPU only");
  std::vector<std::uint8_t> hit(to.size(), 0);
  for (const int s : to) {
    if (s < 0 || static_cast<std::size_t>(s) >= to.size() || hit[static_cast<std::size_t>(s)]++)
      throw std::invalid_argument("renumber_sms: not a permutation of the SMs");
  }
  for (const auto& p : plan.schedule.pieces)  // checked first: a plan is renumbered whole or not at all
    if (p.sm < 0 || static_cast<std::size_t>(p.sm) >= to.size())
      throw std::invalid_argument("renumber_sms: a piece on an SM beyond the GPU's");
  for (auto& p : plan.schedule.pieces) p.sm = static_cast<std::int16_t>(to[static_cast<std::size_t>(p.sm)]);
  std::stable_sort(
      plan.schedule.pieces.begin(), plan.schedule.pieces.end(),
      [](const BlockPiece& x, const BlockPiece& y) { return x.end != y.end ? x.end < y.end : x.sm < y.sm; });
}

std::optional<SmPairing> pair_sms_onto_groups(RunResult& plan, const std::vector<std::vector<int>>& group_sms,
                                              int sm_count, const PieceCut& cut_how) {
  if (plan.gpu_count > 1 || sm_count <= 0 || 2 * group_sms.size() != static_cast<std::size_t>(sm_count))
    return std::nullopt;
  std::vector<SmPair> groups;
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(sm_count), 0);
  for (const auto& g : group_sms) {
    if (g.size() != 2) return std::nullopt;
    for (const int s : g)
      if (s < 0 || s >= sm_count || seen[static_cast<std::size_t>(s)]++) return std::nullopt;
    groups.push_back({g[0], g[1]});
  }
  for (const auto& p : plan.schedule.pieces)
    if (p.sm < 0 || p.sm >= sm_count) return std::nullopt;
  SmPairing pairing = pair_sms(SpillWeights(confined_work(plan, cut_how), sm_count), groups);
  std::vector<int> to(static_cast<std::size_t>(sm_count));
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (int k = 0; k < 2; ++k)
      to[static_cast<std::size_t>(pairing.pairs[i][static_cast<std::size_t>(k)])] =
          groups[i][static_cast<std::size_t>(k)];
  renumber_sms(plan, to);
  return pairing;
}

}  // namespace gpusched::sim
