#include "core/dependency_order.h"

#include <algorithm>
#include <limits>

namespace gpusched {

std::vector<DependencyBreach> dependency_breaches(const Workload& w, const Schedule& s) {
  const std::size_t n = w.launches.size();
  std::vector<TimeNs> first(n, std::numeric_limits<TimeNs>::max()), last(n, std::numeric_limits<TimeNs>::min());
  for (const auto& p : s.pieces) {
    if (p.launch < 0 || static_cast<std::size_t>(p.launch) >= n) continue;
    const auto i = static_cast<std::size_t>(p.launch);
    first[i] = std::min(first[i], p.start);
    last[i] = std::max(last[i], p.end);
  }
  std::vector<DependencyBreach> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (first[i] == std::numeric_limits<TimeNs>::max()) continue;
    for (const std::size_t p : w.dag.predecessors(i))
      if (last[p] != std::numeric_limits<TimeNs>::min() && first[i] < last[p])
        out.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(p), last[p] - first[i]});
  }
  return out;
}

}  // namespace gpusched
