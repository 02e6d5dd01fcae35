#include "core/slot_occupancy.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>

namespace gpusched {

std::vector<TimeNs> slot_occupancy(const std::vector<BlockRecord>& records, int residency) {
  std::vector<TimeNs> out(records.size(), 0);
  if (records.empty()) return out;
  const int slots = std::max(1, residency);
  TimeNs launch_start = records.front().start;
  for (const auto& r : records) launch_start = std::min(launch_start, r.start);
  // Records grouped by SM, each SM's in block-index order (the hardware's dispatch order).
  std::vector<std::size_t> order(records.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = records[a];
    const auto& y = records[b];
    if (x.sm != y.sm) return x.sm < y.sm;
    return x.block < y.block;
  });
  std::priority_queue<TimeNs, std::vector<TimeNs>, std::greater<>> free_at;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const BlockRecord& r = records[order[i]];
    if (i == 0 || records[order[i - 1]].sm != r.sm) {
      free_at = {};
      for (int k = 0; k < slots; ++k) free_at.push(launch_start);
    }
    const TimeNs freed = free_at.top();
    free_at.pop();
    const TimeNs dispatch = std::min(freed, r.start);
    out[order[i]] = r.end - dispatch;
    free_at.push(r.end);
  }
  return out;
}

}  // namespace gpusched
