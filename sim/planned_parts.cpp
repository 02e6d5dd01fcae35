#include "sim/planned_parts.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "sim/launch_priorities.h"
#include "sim/resident_levels.h"

namespace gpusched::sim {

bool every_launch_has_parts(const std::vector<std::vector<PlannedPart>>& cut) {
  return !cut.empty() && std::all_of(cut.begin(), cut.end(), [](const auto& c) { return !c.empty(); });
}

// The parts of pieces are cut at the same instants (a plan whose blocks all run whole stops none); a launch's parts
// are block ranges when its pieces, in start order, are its blocks in index order.
std::vector<std::vector<PlannedPart>> planned_parts(const RunResult& plan, bool at_residency_changes) {
  const std::size_t n = plan.launches.size();
  std::vector<std::vector<PlannedPart>> out(n);
  for (const auto& p : plan.schedule.pieces)
    if (static_cast<std::size_t>(p.launch) < n && p.outcome != PieceOutcome::Completed) return out;  // blocks in pieces
  // Whole blocks: the launches of such plans share SMs at once (mpmax, srtf's samples), so the rule on hand-overs, made
  // for plans that stop and resume blocks, would cut them at every block of another launch; their cut is as measured
  // before that rule (docs/validation.md, "Safe points off the sample loop"). Empty for a plan over several GPUs.
  const auto cut = planned_piece_parts(
      plan, {.apart_after_hand_over = false, .apart_where_residency_changes = at_residency_changes});
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<PlannedPart> parts;
    std::int32_t next_block = 0;
    bool ranges = true;
    for (const auto& piece_part : cut[i]) {
      PlannedPart part{next_block, 0, piece_part.sms, piece_part.start};
      for (const std::size_t k : piece_part.pieces) {
        if (plan.schedule.pieces[k].block != next_block) {
          ranges = false;  // not blocks first..first+blocks-1 in start order: no grid of its own can carry it out
          break;
        }
        ++next_block;
      }
      if (!ranges) break;
      part.blocks = next_block - part.first;
      parts.push_back(std::move(part));
    }
    if (ranges) out[i] = std::move(parts);
  }
  return out;
}

std::vector<std::vector<PlannedPieces>> planned_piece_parts(const RunResult& plan, const PieceCut& how,
                                                            std::size_t* unjoined) {
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
  for (std::size_t k = 0; k < pieces.size(); ++k)  // by the plan: the SM changes hands at a stopped piece's end
    if (stopped_before_block_end(pieces[k].outcome)) instants.push_back(pieces[k].end);
  std::sort(instants.begin(), instants.end());
  instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
  const auto epoch = [&](TimeNs t) { return std::upper_bound(instants.begin(), instants.end(), t) - instants.begin(); };
  // Each SM's piece starts and their launches, by start: whether another launch took an SM between two of a
  // launch's parts. Only the rule on hand-overs reads them (plans of whole blocks are cut without it).
  std::vector<std::vector<std::pair<TimeNs, std::int32_t>>> starts_on;
  for (const auto& p : pieces) {
    if (!how.apart_after_hand_over) break;
    if (static_cast<std::size_t>(p.launch) >= n || p.sm < 0) continue;
    if (starts_on.size() <= static_cast<std::size_t>(p.sm)) starts_on.resize(static_cast<std::size_t>(p.sm) + 1);
    starts_on[static_cast<std::size_t>(p.sm)].emplace_back(p.start, p.launch);
  }
  for (auto& v : starts_on) std::sort(v.begin(), v.end());
  // Whether a launch other than `launch` starts a piece on one of `sms` after `after` and no later than `before`.
  // Between two consecutive starts of a launch's pieces any piece that starts is another launch's; at `before` itself
  // the launch's own part starts too, and another launch that starts there at the same instant takes the SM as well.
  const auto others_start_on = [&](const std::vector<int>& sms, std::int32_t launch, TimeNs after, TimeNs before) {
    for (const int sm : sms) {
      const auto& v = starts_on[static_cast<std::size_t>(sm)];
      auto it = std::upper_bound(v.begin(), v.end(), std::pair{after, std::numeric_limits<std::int32_t>::max()});
      for (; it != v.end() && it->first <= before; ++it)
        if (it->second != launch) return true;
    }
    return false;
  };
  // Per launch and instant's window (epoch): the most of the launch's blocks the plan runs at once on one SM during it
  // (only where PieceCut::apart_where_residency_changes reads it).
  std::vector<std::vector<int>> residency(how.apart_where_residency_changes ? n : 0);
  for (std::size_t i = 0; i < residency.size(); ++i) {
    auto& most = residency[i];
    most.assign(instants.size() + 1, 0);
    std::vector<std::vector<std::pair<TimeNs, int>>> changes;  // per SM: (time, +1 start / -1 end)
    for (const std::size_t k : of[i]) {
      const auto& p = pieces[k];
      if (p.sm < 0) continue;
      if (changes.size() <= static_cast<std::size_t>(p.sm)) changes.resize(static_cast<std::size_t>(p.sm) + 1);
      changes[static_cast<std::size_t>(p.sm)].emplace_back(p.start, 1);
      changes[static_cast<std::size_t>(p.sm)].emplace_back(p.end, -1);
    }
    for (auto& c : changes)
      for_each_resident_level(c, [&](TimeNs from, TimeNs to, int level) {
        // Every window the level overlaps.
        for (auto e = epoch(from), last = epoch(to - 1); e <= last; ++e)
          most[static_cast<std::size_t>(e)] = std::max(most[static_cast<std::size_t>(e)], level);
      });
  }
  if (unjoined) *unjoined = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = of[i];
    int last_residency = -1;   // the residency of the window of the launch's last part (apart_where_residency_changes)
    bool counted_one = false;  // the launch has a part as merge_within 0 cuts it
    std::vector<int> last_unjoined_sms;  // that part's SMs
    for (std::size_t k = 0; k < s.size();) {
      const auto e = epoch(pieces[s[k]].start);
      // The launch's piece that starts last before this part (none for its first).
      const TimeNs previous_start = k > 0 ? pieces[s[k - 1]].start : -1;
      PlannedPieces part;
      part.start = pieces[s[k]].start;
      for (; k < s.size() && epoch(pieces[s[k]].start) == e; ++k) {
        part.pieces.push_back(s[k]);
        part.sms.push_back(pieces[s[k]].sm);
      }
      std::sort(part.sms.begin(), part.sms.end());
      part.sms.erase(std::unique(part.sms.begin(), part.sms.end()), part.sms.end());
      const bool handed_over = how.apart_after_hand_over && previous_start >= 0 &&
                               others_start_on(part.sms, static_cast<std::int32_t>(i), previous_start, part.start);
      const int part_residency = residency.empty() ? 0 : residency[i][static_cast<std::size_t>(e)];
      const bool residency_changed = !residency.empty() && last_residency >= 0 && part_residency != last_residency;
      last_residency = part_residency;
      const auto merges = [&](const std::vector<int>& sms) {
        return sms == part.sms && !handed_over && !residency_changed;
      };
      if (!counted_one || !merges(last_unjoined_sms)) {  // merge_within 0 merges only parts on the same SMs
        if (unjoined) ++*unjoined;
        last_unjoined_sms = part.sms;
        counted_one = true;
      }
      auto& parts = out[i];
      if (!parts.empty() && (merges(parts.back().sms) || part.start - parts.back().start < how.merge_within)) {
        auto& into = parts.back();
        into.pieces.insert(into.pieces.end(), part.pieces.begin(), part.pieces.end());
        std::vector<int> sms;
        std::set_union(into.sms.begin(), into.sms.end(), part.sms.begin(), part.sms.end(), std::back_inserter(sms));
        into.sms = std::move(sms);
      } else {
        parts.push_back(std::move(part));
      }
    }
  }
  return out;
}

std::vector<PlannedPartPiece> planned_part_pieces(const RunResult& plan,
                                                  const std::vector<std::vector<PlannedPart>>& cut) {
  std::vector<PlannedPartPiece> out;
  const auto& pieces = plan.schedule.pieces;
  if (!every_launch_has_parts(cut)) return out;
  // The plan's piece of each block, by launch and block.
  std::vector<std::vector<std::size_t>> of_block(cut.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    auto& v = of_block.at(static_cast<std::size_t>(pieces[i].launch));
    if (v.size() <= static_cast<std::size_t>(pieces[i].block)) v.resize(static_cast<std::size_t>(pieces[i].block) + 1);
    v[static_cast<std::size_t>(pieces[i].block)] = i;
  }
  for (std::size_t l = 0; l < cut.size(); ++l)
    for (std::size_t j = 0; j < cut[l].size(); ++j) {
      const std::size_t at = out.size();
      for (std::int32_t b = cut[l][j].first; b < cut[l][j].first + cut[l][j].blocks; ++b) {
        const auto& p = pieces[of_block[l].at(static_cast<std::size_t>(b))];
        out.push_back({static_cast<std::int32_t>(l), static_cast<std::int32_t>(j), b, p.start, p.end});
      }
      std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(at), out.end(),
                       [](const PlannedPartPiece& a, const PlannedPartPiece& b) { return a.start < b.start; });
    }
  return out;
}

std::vector<PlannedPartPiece> planned_part_pieces(const RunResult& plan, bool at_residency_changes) {
  if (runs_blocks_whole(plan)) return planned_part_pieces(plan, planned_parts(plan, at_residency_changes));
  std::vector<PlannedPartPiece> out;
  const auto& pieces = plan.schedule.pieces;
  const auto cut = planned_piece_parts(plan);
  if (cut.empty() || std::any_of(cut.begin(), cut.end(), [](const auto& c) { return c.empty(); })) return out;
  for (std::size_t l = 0; l < cut.size(); ++l)
    for (std::size_t j = 0; j < cut[l].size(); ++j)
      for (const std::size_t i : cut[l][j].pieces)
        out.push_back({static_cast<std::int32_t>(l), static_cast<std::int32_t>(j), pieces[i].block, pieces[i].start,
                       pieces[i].end});
  return out;
}

std::vector<std::vector<char>> sample_parts(const RunResult& plan, const std::vector<std::vector<PlannedPieces>>& cut) {
  const auto samples = planned_samples(plan);
  std::vector<std::vector<char>> out(cut.size());
  for (std::size_t i = 0; i < cut.size(); ++i) {
    out[i].assign(cut[i].size(), 0);
    if (i >= samples.size() || !samples[i]) continue;
    const PlannedSample& sample = *samples[i];
    for (std::size_t j = 0; j < cut[i].size(); ++j) {
      const auto& pieces = cut[i][j].pieces;
      out[i][j] = !pieces.empty() && std::all_of(pieces.begin(), pieces.end(), [&](std::size_t k) {
        const BlockPiece& p = plan.schedule.pieces.at(k);
        return p.block < sample.blocks && p.sm == sample.sm && p.start < sample.end;
      });
    }
  }
  return out;
}

}  // namespace gpusched::sim
