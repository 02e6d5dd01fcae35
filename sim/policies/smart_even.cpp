#include "sim/policies/smart_even.h"

#include <algorithm>
#include <cstddef>

namespace gpusched::sim {

std::vector<int> smart_even_quotas(std::span<const int> need, int sms, bool hand_out_leftover) {
  std::vector<int> quota(need.size(), 0);
  int left = sms;
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < need.size(); ++i) open.push_back(i);
  while (left > 0 && !open.empty()) {
    const int share = std::max(1, left / static_cast<int>(open.size()));
    std::vector<std::size_t> still;
    int given = 0;
    for (const std::size_t i : open) {
      const int give = std::max(0, std::min({share, need[i] - quota[i], left - given}));
      quota[i] += give;
      given += give;
      if (quota[i] < need[i]) still.push_back(i);
    }
    left -= given;
    if (given == 0) break;
    open.swap(still);
  }
  if (hand_out_leftover)
    for (std::size_t i = 0; left > 0 && !quota.empty(); i = (i + 1) % quota.size(), --left) ++quota[i];
  return quota;
}

}  // namespace gpusched::sim
