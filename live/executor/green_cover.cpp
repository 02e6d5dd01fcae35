#include "live/executor/green_cover.h"

namespace gpusched::live {

std::vector<std::uint8_t> planned_sms(const LaunchQueues& q) {
  const std::size_t sms = q.sm_begin.empty() ? 0 : q.sm_begin.size() - 1;
  std::vector<std::uint8_t> out(sms, 0);
  for (std::size_t s = 0; s < sms; ++s) out[s] = q.sm_begin[s + 1] > q.sm_begin[s];
  return out;
}

std::vector<int> covering_groups(const std::vector<std::vector<int>>& group_sms,
                                 const std::vector<std::uint8_t>& wanted) {
  std::vector<int> out;
  for (std::size_t g = 0; g < group_sms.size(); ++g)
    for (const int sm : group_sms[g])
      if (sm >= 0 && static_cast<std::size_t>(sm) < wanted.size() && wanted[static_cast<std::size_t>(sm)]) {
        out.push_back(static_cast<int>(g));
        break;
      }
  if (out.size() == group_sms.size()) out.clear();
  return out;
}

std::vector<int> covering_groups_of_sms(const std::vector<std::vector<int>>& group_sms, const std::vector<int>& sms) {
  std::vector<std::uint8_t> wanted;
  for (const int sm : sms) {
    if (sm < 0) continue;
    if (static_cast<std::size_t>(sm) >= wanted.size()) wanted.resize(static_cast<std::size_t>(sm) + 1, 0);
    wanted[static_cast<std::size_t>(sm)] = 1;
  }
  return covering_groups(group_sms, wanted);
}

}  // namespace gpusched::live
