#include "core/dependency_order.h"

namespace gpusched {

std::vector<DependencyBreach> dependency_breaches(const Workload& w, const std::vector<LaunchOutcome>& launches) {
  std::vector<DependencyBreach> out;
  for (std::size_t i = 0; i < launches.size() && i < w.launches.size(); ++i) {
    if (launches[i].first_dispatch < 0) continue;
    for (const std::size_t p : w.dag.predecessors(i))
      if (p < launches.size() && launches[p].first_dispatch >= 0 && launches[i].first_dispatch < launches[p].finish)
        out.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(p),
                       launches[p].finish - launches[i].first_dispatch});
  }
  return out;
}

}  // namespace gpusched
