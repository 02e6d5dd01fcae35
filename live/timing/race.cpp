#include "live/timing/race.h"

#include <algorithm>

namespace gpusched::live {

std::int64_t race_crossover_ns(std::vector<RaceSample> v, int* misordered) {
  std::sort(v.begin(), v.end(), [](const RaceSample& p, const RaceSample& q) { return p.x_ns < q.x_ns; });
  // Threshold before sample k: samples [0, k) should be competitor-first, [k, n) successor-first.
  const int n = static_cast<int>(v.size());
  int wrong = 0;
  for (const auto& r : v) wrong += r.competitor_first ? 1 : 0;  // k = 0: every competitor-first one is wrong
  int best = wrong, best_k = 0;
  for (int k = 1; k <= n; ++k) {
    wrong += v[static_cast<std::size_t>(k - 1)].competitor_first ? -1 : 1;
    if (wrong < best) {
      best = wrong;
      best_k = k;
    }
  }
  if (misordered) *misordered = best;
  if (v.empty()) return 0;
  if (best_k == 0) return v.front().x_ns;
  if (best_k == n) return v.back().x_ns;
  return (v[static_cast<std::size_t>(best_k - 1)].x_ns + v[static_cast<std::size_t>(best_k)].x_ns) / 2;
}

}  // namespace gpusched::live
