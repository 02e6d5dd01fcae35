#include "gui/model/run_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "core/store/report.h"

namespace gpusched::gui {

namespace {
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

bool matches(const store::RunSummary& run, const RunBrowserFilter& f) {
  const auto& i = run.info;
  if (!f.mode.empty() && i.mode != f.mode) return false;
  if (!f.policy.empty() && i.policy != f.policy) return false;
  if (!f.gpu.empty() && i.gpu != f.gpu) return false;
  if (f.text.empty()) return true;
  const std::string needle = lower(f.text);
  for (const std::string* field : {&i.workload, &i.policy, &i.policy_params, &i.gpu, &i.interference, &i.sweep})
    if (lower(*field).find(needle) != std::string::npos) return true;
  return false;
}

std::string ComparisonGroup::title() const {
  return fmt::format("{} x{} · {} · {} · seed {}", gpu, gpu_count, mode, interference, seed);
}

std::size_t WorkloadGroup::run_count() const {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.runs.size();
  return n;
}

std::vector<WorkloadGroup> group_runs_for_browser(const std::vector<store::RunSummary>& runs,
                                                  const RunBrowserFilter& filter) {
  std::vector<const store::RunSummary*> kept;
  for (const auto& r : runs)
    if (matches(r, filter)) kept.push_back(&r);
  std::sort(kept.begin(), kept.end(), [](const auto* a, const auto* b) { return a->info.id < b->info.id; });

  std::map<std::string, WorkloadGroup> by_workload;
  using GroupKey = std::tuple<std::string, int, std::string, std::string, std::uint64_t>;
  std::map<std::string, std::map<GroupKey, std::size_t>> group_index;
  for (const auto* r : kept) {
    const auto& i = r->info;
    auto& w = by_workload[i.workload];
    w.workload = i.workload;
    const GroupKey key{i.gpu, i.gpu_count, i.mode, i.interference, i.seed};
    auto& index = group_index[i.workload];
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, w.groups.size()).first;
      w.groups.push_back({i.gpu, i.gpu_count, i.mode, i.interference, i.seed, {}});
    }
    w.groups[it->second].runs.push_back(r);
  }
  std::vector<WorkloadGroup> out;
  for (auto& [_, w] : by_workload) out.push_back(std::move(w));
  return out;
}

std::vector<std::string> distinct_values(const std::vector<store::RunSummary>& runs, const std::string& field) {
  std::set<std::string> values;
  for (const auto& r : runs) values.insert(store::field_value(r.info, field));
  return {values.begin(), values.end()};
}

}  // namespace gpusched::gui
