#include "core/metrics.h"

#include <algorithm>
#include <limits>

namespace gpusched {

Metrics compute_launch_metrics(std::vector<LaunchOutcome>& launches, TurnaroundFrom from) {
  Metrics m;
  if (launches.empty()) return m;
  double min_slowdown = std::numeric_limits<double>::infinity();
  double max_slowdown = 0.0;
  TimeNs first_arrival = std::numeric_limits<TimeNs>::max();
  TimeNs last_finish = 0;
  for (auto& l : launches) {
    l.turnaround = l.finish - (from == TurnaroundFrom::Arrival ? l.arrival : l.release);
    l.slowdown = l.alone > 0 ? static_cast<double>(l.turnaround) / static_cast<double>(l.alone) : 1.0;
    // A zero-length launch (no blocks) counts as running at its own speed.
    if (l.alone <= 0 || l.turnaround <= 0) l.slowdown = 1.0;
    m.stp += 1.0 / l.slowdown;
    m.antt += l.slowdown;
    min_slowdown = std::min(min_slowdown, l.slowdown);
    max_slowdown = std::max(max_slowdown, l.slowdown);
    first_arrival = std::min(first_arrival, l.arrival);
    last_finish = std::max(last_finish, l.finish);
    if (l.deadline_missed) ++m.deadline_misses;
  }
  m.antt /= static_cast<double>(launches.size());
  m.strict_f = max_slowdown > 0 ? min_slowdown / max_slowdown : 1.0;
  m.makespan = last_finish - first_arrival;
  for (const auto& l : launches) m.bound_longest = std::max(m.bound_longest, l.arrival - first_arrival + l.alone);
  return m;
}

}  // namespace gpusched
