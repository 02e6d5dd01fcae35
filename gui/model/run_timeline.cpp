#include "gui/model/run_timeline.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "core/gpu_spec.h"

namespace gpusched::gui {

TimelineModel timeline_from_record(const store::RunRecord& record) {
  std::vector<TimelineLaunch> launches;
  launches.reserve(record.launches.size());
  for (const auto& l : record.launches)
    launches.push_back(
        {l.id, l.kernel, l.tenant, l.outcome.arrival, l.outcome.finish, l.outcome.blocks, l.outcome.killed});
  std::vector<int> sms;
  if (const GpuSpec* preset = find_gpu_preset(record.info.gpu))
    sms.assign(static_cast<std::size_t>(std::max(1, record.info.gpu_count)), preset->sm_count);
  return TimelineModel(record.schedule, std::move(launches), std::move(sms));
}

std::vector<std::string> distinct_labels(const std::vector<const store::RunInfo*>& runs) {
  std::map<std::string, std::set<std::string>> params;
  for (const auto* r : runs) params[r->policy].insert(r->policy_params);
  std::vector<std::string> out;
  for (const auto* r : runs)
    out.push_back(params[r->policy].size() > 1 && !r->policy_params.empty()
                      ? fmt::format("{} ({})", r->policy, r->policy_params)
                      : r->policy);
  return out;
}

std::string run_title(const store::RunInfo& info) {
  return fmt::format("#{} {} on {} x{}, {}, workload {}", info.id, info.policy, info.gpu, info.gpu_count, info.mode,
                     info.workload);
}

}  // namespace gpusched::gui
