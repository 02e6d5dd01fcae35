#include "core/kernel_profile.h"

#include <algorithm>
#include <cmath>

namespace gpusched {

double mean_block_ns_at(const KernelProfile& k, double residency) {
  const auto& sets = k.record_sets;
  if (sets.empty()) return 0.0;
  if (residency <= sets.front().residency) return sets.front().mean_ns;
  for (std::size_t i = 1; i < sets.size(); ++i) {
    if (residency > sets[i].residency) continue;
    const auto& lo = sets[i - 1];
    const auto& hi = sets[i];
    const double t = (residency - lo.residency) / static_cast<double>(hi.residency - lo.residency);
    return lo.mean_ns + t * (hi.mean_ns - lo.mean_ns);
  }
  return sets.back().mean_ns;
}

void finalize_record_set(RecordSet& set) {
  set.sorted_durations.clear();
  for (TimeNs d : set.duration_by_block)
    if (d >= 0) set.sorted_durations.push_back(d);
  std::sort(set.sorted_durations.begin(), set.sorted_durations.end());
  set.recorded = static_cast<std::int64_t>(set.sorted_durations.size());
  double sum = 0.0, sq = 0.0;
  for (TimeNs d : set.sorted_durations) sum += static_cast<double>(d);
  const double n = static_cast<double>(set.recorded);
  set.mean_ns = n > 0 ? sum / n : 0.0;
  for (TimeNs d : set.sorted_durations) {
    const double x = static_cast<double>(d) - set.mean_ns;
    sq += x * x;
  }
  set.stddev_ns = n > 1 ? std::sqrt(sq / (n - 1)) : 0.0;
}

void select_block_time(KernelProfile& k, BlockTime time) {
  for (auto& set : k.record_sets) {
    if (set.block_time == time || set.alternate_by_block.size() != set.duration_by_block.size()) continue;
    std::swap(set.duration_by_block, set.alternate_by_block);
    set.block_time = time;
    finalize_record_set(set);
  }
}

std::string_view to_string(BlockTime t) {
  return t == BlockTime::Raw ? "raw" : "slot";
}

std::optional<BlockTime> block_time_from_string(std::string_view s) {
  if (s == "slot") return BlockTime::Slot;
  if (s == "raw") return BlockTime::Raw;
  return std::nullopt;
}

}  // namespace gpusched
