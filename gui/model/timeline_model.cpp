#include "gui/model/timeline_model.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

namespace gpusched::gui {

namespace {

void build_levels(TimelineRow& row);

// Greedy interval partitioning: bars sorted by start go to the lowest-numbered slot free at their start, which
// uses as many slots as the SM ever had resident blocks at once.
std::vector<TimelineRow> assign_slots(std::vector<TimelineBar>& bars) {
  std::sort(bars.begin(), bars.end(), [](const TimelineBar& a, const TimelineBar& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  std::vector<TimelineRow> rows;
  using Busy = std::pair<TimeNs, std::size_t>;  // (end, slot)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> free_slots;
  for (const auto& bar : bars) {
    while (!busy.empty() && busy.top().first <= bar.start) {
      free_slots.push(busy.top().second);
      busy.pop();
    }
    std::size_t slot;
    if (!free_slots.empty()) {
      slot = free_slots.top();
      free_slots.pop();
    } else {
      slot = rows.size();
      rows.emplace_back();
    }
    auto& row = rows[slot];
    if (bar.outcome != PieceOutcome::Completed) row.marks.push_back(static_cast<std::uint32_t>(row.bars.size()));
    row.bars.push_back(bar);
    busy.emplace(bar.end, slot);
  }
  if (rows.empty()) rows.emplace_back();
  for (auto& row : rows) build_levels(row);
  return rows;
}

// Levels at 1 us per pixel and every 4x coarser, while they still shrink the row by a quarter.
void build_levels(TimelineRow& row) {
  constexpr std::size_t kWorthIt = 64;  // rows shorter than this are walked as they are
  if (row.bars.size() < kWorthIt) return;
  // Level 0 is the bars themselves (one run each).
  std::vector<TimelineBar> runs = row.bars;
  std::vector<std::uint32_t> first(row.bars.size() + 1);
  for (std::size_t i = 0; i <= row.bars.size(); ++i) first[i] = static_cast<std::uint32_t>(i);
  for (double px = 1000.0; runs.size() >= kWorthIt; px *= 4) {
    // A single bar must be narrow at this zoom to merge; merged runs are made of narrow bars already.
    const auto narrow = [&](const TimelineBar& run, std::uint32_t bars_in_run) {
      return bars_in_run > 1 || static_cast<double>(run.end - run.start) < 3 * px;
    };
    std::vector<TimelineBar> merged;
    std::vector<std::uint32_t> merged_first;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (!merged.empty() && merged.back().launch == runs[r].launch &&
          static_cast<double>(runs[r].start - merged.back().end) < px && narrow(runs[r], first[r + 1] - first[r]) &&
          narrow(merged.back(), first[r] - merged_first.back())) {
        merged.back().end = runs[r].end;
        continue;
      }
      merged.push_back(runs[r]);
      merged_first.push_back(first[r]);
    }
    merged_first.push_back(static_cast<std::uint32_t>(row.bars.size()));
    if (merged.size() * 4 > runs.size() * 3) {
      if (px > 1e12) break;      // nothing merges any more at any zoom
      runs = std::move(merged);  // keep going: a coarser zoom may merge more
      first = std::move(merged_first);
      continue;
    }
    runs = merged;
    first = merged_first;
    row.levels.push_back({px, std::move(merged), std::move(merged_first)});
  }
}

GpuOccupancy occupancy_of(int gpu, int sms, const std::vector<TimelineLane>& lanes, int first, int last) {
  // +1 at each start, -1 at each end, per SM; ends before starts at equal times so that a block handing its
  // place to the next does not count twice.
  struct Change {
    TimeNs t;
    int delta;
    int sm;
  };
  std::vector<Change> changes;
  for (int l = first; l < last; ++l)
    for (const auto& row : lanes[static_cast<std::size_t>(l)].slots)
      for (const auto& b : row.bars) {
        changes.push_back({b.start, +1, l - first});
        changes.push_back({b.end, -1, l - first});
      }
  std::sort(changes.begin(), changes.end(),
            [](const Change& a, const Change& b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
  GpuOccupancy occ;
  occ.gpu = gpu;
  occ.sms = sms;
  std::vector<int> per_sm(static_cast<std::size_t>(last - first), 0);
  int busy = 0, resident = 0;
  for (std::size_t i = 0; i < changes.size();) {
    const TimeNs t = changes[i].t;
    for (; i < changes.size() && changes[i].t == t; ++i) {
      int& n = per_sm[static_cast<std::size_t>(changes[i].sm)];
      if (changes[i].delta > 0 && n++ == 0) ++busy;
      if (changes[i].delta < 0 && --n == 0) --busy;
      resident += changes[i].delta;
    }
    if (!occ.times.empty() && occ.busy_sms.back() == busy && occ.resident.back() == resident) continue;
    occ.times.push_back(t);
    occ.busy_sms.push_back(busy);
    occ.resident.push_back(resident);
    occ.peak_resident = std::max(occ.peak_resident, resident);
  }
  return occ;
}

}  // namespace

TimelineModel::TimelineModel(const Schedule& schedule, std::vector<TimelineLaunch> launches,
                             std::vector<int> sms_per_gpu)
    : launches_(std::move(launches)), pieces_(static_cast<std::int64_t>(schedule.pieces.size())) {
  for (const auto& p : schedule.pieces) {
    const auto g = static_cast<std::size_t>(p.gpu);
    if (sms_per_gpu.size() <= g) sms_per_gpu.resize(g + 1, 0);
    sms_per_gpu[g] = std::max(sms_per_gpu[g], p.sm + 1);
  }
  if (sms_per_gpu.empty()) sms_per_gpu.push_back(1);

  std::vector<std::vector<std::vector<TimelineBar>>> per_sm(sms_per_gpu.size());
  for (std::size_t g = 0; g < sms_per_gpu.size(); ++g) per_sm[g].resize(static_cast<std::size_t>(sms_per_gpu[g]));
  begin_ = std::numeric_limits<TimeNs>::max();
  end_ = std::numeric_limits<TimeNs>::min();
  for (const auto& p : schedule.pieces) {
    per_sm[static_cast<std::size_t>(p.gpu)][static_cast<std::size_t>(p.sm)].push_back(
        {p.start, p.end, p.launch, p.block, p.outcome});
    begin_ = std::min(begin_, p.start);
    end_ = std::max(end_, p.end);
  }
  for (const auto& l : launches_) {
    begin_ = std::min(begin_, l.arrival);
    end_ = std::max({end_, l.arrival, l.finish});
  }
  if (begin_ > end_) begin_ = end_ = 0;

  for (std::size_t g = 0; g < per_sm.size(); ++g) {
    lane_offsets_.push_back(static_cast<int>(lanes_.size()));
    for (std::size_t sm = 0; sm < per_sm[g].size(); ++sm)
      lanes_.push_back({static_cast<int>(g), static_cast<int>(sm), assign_slots(per_sm[g][sm])});
  }
  lane_offsets_.push_back(static_cast<int>(lanes_.size()));
  for (std::size_t g = 0; g < per_sm.size(); ++g)
    occupancy_.push_back(
        occupancy_of(static_cast<int>(g), sms_per_gpu[g], lanes_, lane_offsets_[g], lane_offsets_[g + 1]));
}

const TimelineBar* TimelineModel::bar_at(int lane, int slot, double t, double tolerance_ns) const {
  if (lane < 0 || lane >= static_cast<int>(lanes_.size())) return nullptr;
  const auto& slots = lanes_[static_cast<std::size_t>(lane)].slots;
  if (slot < 0 || slot >= static_cast<int>(slots.size())) return nullptr;
  const auto& bars = slots[static_cast<std::size_t>(slot)].bars;
  // The first bar ending after t - tolerance; it or its predecessor is the nearest.
  auto it = std::upper_bound(bars.begin(), bars.end(), t - tolerance_ns,
                             [](double v, const TimelineBar& b) { return v < static_cast<double>(b.end); });
  const TimelineBar* best = nullptr;
  double best_distance = tolerance_ns;
  for (auto c = it; c != bars.end() && static_cast<double>(c->start) <= t + tolerance_ns; ++c) {
    const double d = t < static_cast<double>(c->start) ? static_cast<double>(c->start) - t
                     : t > static_cast<double>(c->end) ? t - static_cast<double>(c->end)
                                                       : 0.0;
    if (d <= best_distance) {
      if (d == 0) return &*c;
      best = &*c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace gpusched::gui
