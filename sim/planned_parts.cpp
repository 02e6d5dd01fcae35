#include "sim/planned_parts.h"

#include <algorithm>
#include <limits>

namespace gpusched::sim {

std::vector<std::vector<PlannedPart>> planned_parts(const RunResult& plan) {
  const std::size_t n = plan.launches.size();
  std::vector<std::vector<PlannedPart>> out(n);
  struct Start {
    TimeNs start;
    std::int32_t block;
    int sm;
  };
  std::vector<std::vector<Start>> starts(n);
  for (const auto& p : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(p.launch);
    if (i >= n) continue;
    if (p.gpu != 0 || p.outcome != PieceOutcome::Completed) return out;  // several GPUs, or blocks in pieces
    starts[i].push_back({p.start, p.block, p.sm});
  }
  // The instants where the partition may change: each launch's first start, last start and end.
  std::vector<TimeNs> instants;
  for (std::size_t i = 0; i < n; ++i) {
    auto& s = starts[i];
    if (s.empty()) continue;
    std::sort(s.begin(), s.end(), [](const Start& a, const Start& b) {
      return a.start != b.start ? a.start < b.start : a.block < b.block;
    });
    instants.push_back(s.front().start);
    instants.push_back(s.back().start);
    if (plan.launches[i].finish >= 0) instants.push_back(plan.launches[i].finish);
  }
  std::sort(instants.begin(), instants.end());
  instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
  const auto epoch = [&](TimeNs t) { return std::upper_bound(instants.begin(), instants.end(), t) - instants.begin(); };

  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = starts[i];
    std::vector<PlannedPart> parts;
    std::int32_t next_block = 0;
    bool ranges = true;
    for (std::size_t k = 0; k < s.size() && ranges;) {
      const auto e = epoch(s[k].start);
      PlannedPart part;
      part.first = next_block;
      part.start = s[k].start;
      for (; k < s.size() && epoch(s[k].start) == e; ++k) {
        if (s[k].block != next_block) {
          ranges = false;  // not blocks first..first+blocks-1 in start order: no grid of its own can carry it out
          break;
        }
        ++next_block;
        part.sms.push_back(s[k].sm);
      }
      part.blocks = next_block - part.first;
      std::sort(part.sms.begin(), part.sms.end());
      part.sms.erase(std::unique(part.sms.begin(), part.sms.end()), part.sms.end());
      if (!parts.empty() && parts.back().sms == part.sms)
        parts.back().blocks += part.blocks;  // the partition changed elsewhere, not for this launch
      else
        parts.push_back(std::move(part));
    }
    if (ranges) out[i] = std::move(parts);
  }
  return out;
}

std::vector<std::vector<PlannedPieces>> planned_piece_parts(const RunResult& plan) {
  const std::size_t n = plan.launches.size();
  std::vector<std::vector<PlannedPieces>> out(n);
  const auto& pieces = plan.schedule.pieces;
  std::vector<std::vector<std::size_t>> of(n);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const auto& p = pieces[k];
    const auto i = static_cast<std::size_t>(p.launch);
    if (i >= n) continue;
    if (p.gpu != 0) return out;
    of[i].push_back(k);
  }
  std::vector<TimeNs> instants;
  for (std::size_t i = 0; i < n; ++i) {
    auto& s = of[i];
    if (s.empty()) continue;
    std::sort(s.begin(), s.end(), [&](std::size_t a, std::size_t b) {
      const auto &x = pieces[a], &y = pieces[b];
      return x.start != y.start ? x.start < y.start : x.block != y.block ? x.block < y.block : a < b;
    });
    instants.push_back(pieces[s.front()].start);
    instants.push_back(pieces[s.back()].start);
    if (plan.launches[i].finish >= 0) instants.push_back(plan.launches[i].finish);
  }
  for (const auto& p : pieces)
    if (p.outcome == PieceOutcome::Flushed || p.outcome == PieceOutcome::SwitchedOut ||
        p.outcome == PieceOutcome::Killed)
      instants.push_back(p.end);  // the SM changes hands here
  std::sort(instants.begin(), instants.end());
  instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
  const auto epoch = [&](TimeNs t) { return std::upper_bound(instants.begin(), instants.end(), t) - instants.begin(); };
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = of[i];
    for (std::size_t k = 0; k < s.size();) {
      const auto e = epoch(pieces[s[k]].start);
      PlannedPieces part;
      part.start = pieces[s[k]].start;
      for (; k < s.size() && epoch(pieces[s[k]].start) == e; ++k) {
        part.pieces.push_back(s[k]);
        part.sms.push_back(pieces[s[k]].sm);
      }
      std::sort(part.sms.begin(), part.sms.end());
      part.sms.erase(std::unique(part.sms.begin(), part.sms.end()), part.sms.end());
      auto& parts = out[i];
      if (!parts.empty() && parts.back().sms == part.sms)
        parts.back().pieces.insert(parts.back().pieces.end(), part.pieces.begin(), part.pieces.end());
      else
        parts.push_back(std::move(part));
    }
  }
  return out;
}

}  // namespace gpusched::sim
