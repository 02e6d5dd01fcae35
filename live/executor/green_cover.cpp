#include "live/executor/green_cover.h"

namespace gpusched::live {

std::vector<std::uint8_t> planned_sms(const LaunchQueues& q) {
  const std::size_t sms = q.sm_begin.empty() ? 0 : q.sm_begin.size() - 1;
  std::vector<std::uint8_t> out(sms, 0);
  for (std::size_t s = 0; s < sms; ++s) out[s] = q.sm_begin[s + 1] > q.sm_begin[s];
  return out;
}

}  // namespace gpusched::live
