#include "core/slot_occupancy.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace gpusched {

namespace {

// Slots per SM, given the records grouped by SM in dispatch order.
std::vector<TimeNs> occupancy_in_order(const std::vector<BlockRecord>& records, const std::vector<std::size_t>& order,
                                       int residency) {
  std::vector<TimeNs> out(records.size(), 0);
  const int slots = std::max(1, residency);
  TimeNs launch_start = records.front().start;
  for (const auto& r : records) launch_start = std::min(launch_start, r.start);
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

}  // namespace

std::vector<TimeNs> slot_occupancy(const std::vector<BlockRecord>& records, int residency) {
  if (records.empty()) return {};
  // Records grouped by SM (a stable counting pass: files are written in block order, so each SM's records come
  // out in block-index order, the hardware's dispatch order; a bucket that does not is sorted).
  std::int64_t sms = 0;  // (an SM id may be INT32_MAX in a file of no GPU)
  for (const auto& r : records) sms = std::max<std::int64_t>(sms, std::int64_t{r.sm} + 1);
  std::vector<std::size_t> order(records.size());
  if (static_cast<std::uint64_t>(sms) > 2 * records.size() + 4096) {
    // SM ids far beyond the records (a profile naming no GPU, so unchecked): sort instead of a bucket per id.
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return records[x].sm != records[y].sm ? records[x].sm < records[y].sm : records[x].block < records[y].block;
    });
    return occupancy_in_order(records, order, residency);
  }
  std::vector<std::size_t> first(static_cast<std::size_t>(sms) + 1, 0);
  for (const auto& r : records) ++first[static_cast<std::size_t>(r.sm) + 1];
  for (std::size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < records.size(); ++i) order[next[static_cast<std::size_t>(records[i].sm)]++] = i;
  }
  for (std::size_t sm = 0; sm + 1 < first.size(); ++sm) {
    const auto b = order.begin() + static_cast<std::ptrdiff_t>(first[sm]);
    const auto e = order.begin() + static_cast<std::ptrdiff_t>(first[sm + 1]);
    const auto by_block = [&](std::size_t x, std::size_t y) { return records[x].block < records[y].block; };
    if (!std::is_sorted(b, e, by_block)) std::sort(b, e, by_block);
  }
  return occupancy_in_order(records, order, residency);
}

}  // namespace gpusched
