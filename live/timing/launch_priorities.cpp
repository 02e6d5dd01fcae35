#include "live/timing/launch_priorities.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace gpusched::live {

LaunchPriorities launch_priorities(const RunResult& plan, int least, int greatest) {
  const std::size_t n = plan.launches.size();
  LaunchPriorities out;
  out.priority.assign(n, least);
  out.levels_given = least - greatest + 1;
  constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();
  std::vector<TimeNs> last_start(n, kNone);
  for (const auto& p : plan.schedule.pieces) {
    const auto i = static_cast<std::size_t>(p.launch);
    if (i < n) last_start[i] = std::max(last_start[i], p.start);
  }
  // Launches with pieces, by the end of their window: each one's level is at least that of every overlapping
  // launch that comes after it (ends later), one more where that launch was released first; visiting the latest
  // end first, those are known.
  auto before = [&](std::size_t a, std::size_t b) {  // a issues before b
    if (last_start[a] != last_start[b]) return last_start[a] < last_start[b];
    if (plan.launches[a].release != plan.launches[b].release)
      return plan.launches[a].release < plan.launches[b].release;
    return a < b;
  };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i)
    if (last_start[i] != kNone) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return before(b, a); });
  std::vector<int> level(n, 0);
  for (std::size_t x = 0; x < order.size(); ++x) {
    const std::size_t i = order[x];
    for (std::size_t y = 0; y < x; ++y) {
      const std::size_t j = order[y];  // issues after i
      const bool overlap = plan.launches[j].release <= last_start[i] && plan.launches[i].release <= last_start[j];
      // Among grids of one priority the hardware goes in release order: i needs a higher level than j only when
      // j was released first.
      const bool inverted = plan.launches[j].release < plan.launches[i].release ||
                            (plan.launches[j].release == plan.launches[i].release && j < i);
      if (overlap) level[i] = std::max(level[i], level[j] + (inverted ? 1 : 0));
    }
    out.levels_needed = std::max(out.levels_needed, level[i] + 1);
    const int p = least - level[i];
    if (p < greatest) ++out.clamped;
    out.priority[i] = std::max(p, greatest);
  }
  return out;
}

}  // namespace gpusched::live
