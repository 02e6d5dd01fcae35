#include "core/store/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace gpusched::store {

const std::vector<std::string>& group_fields() {
  static const std::vector<std::string> fields{"workload", "policy", "params", "gpu",  "gpus",   "interference",
                                               "seed",     "mode",   "sweep",  "host", "version"};
  return fields;
}

std::string field_value(const RunInfo& r, const std::string& field) {
  if (field == "workload") return r.workload;
  if (field == "policy") return r.policy;
  if (field == "params") return r.policy_params.empty() ? r.policy : r.policy + "(" + r.policy_params + ")";
  if (field == "gpu") return r.gpu;
  if (field == "gpus") return std::to_string(r.gpu_count);
  if (field == "interference") return r.interference;
  if (field == "seed") return std::to_string(r.seed);
  if (field == "mode") return r.mode;
  if (field == "sweep") return r.sweep;
  if (field == "host") return r.host;
  if (field == "version") return r.version;
  std::string known;
  for (const auto& f : group_fields()) known += (known.empty() ? "" : ", ") + f;
  throw std::invalid_argument(fmt::format("unknown field '{}' (fields: {})", field, known));
}

Stats summarize(std::vector<double> v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  const auto median_of = [&](std::size_t first, std::size_t count) {
    return count % 2 ? v[first + count / 2] : (v[first + count / 2 - 1] + v[first + count / 2]) / 2;
  };
  s.median = median_of(0, v.size());
  // Tukey's hinges: the medians of the lower and upper halves (the middle value belongs to both when odd).
  const std::size_t half = (v.size() + 1) / 2;
  s.q1 = median_of(0, half);
  s.q3 = median_of(v.size() - half, half);
  double sum = 0, log_sum = 0;
  s.geomean_defined = v.front() > 0;
  for (double x : v) {
    sum += x;
    if (s.geomean_defined) log_sum += std::log(x);
  }
  s.mean = sum / static_cast<double>(v.size());
  s.geomean = s.geomean_defined ? std::exp(log_sum / static_cast<double>(v.size())) : 0.0;
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) : 0.0;  // sample deviation
  return s;
}

const std::vector<ReportMetric>& report_metrics() {
  static const std::vector<ReportMetric> metrics{
      {"stp", [](const Metrics& m) { return m.stp; }},
      {"antt", [](const Metrics& m) { return m.antt; }},
      {"strict_f", [](const Metrics& m) { return m.strict_f; }},
      {"makespan_over_bound", [](const Metrics& m) { return m.makespan_over_bound; }},
  };
  return metrics;
}

std::vector<RunGroup> group_runs(const std::vector<RunSummary>& runs, const std::vector<std::string>& fields) {
  for (const auto& f : fields) (void)field_value(RunInfo{}, f);  // checks the names before grouping
  std::vector<RunGroup> groups;
  std::map<std::vector<std::string>, std::size_t> index;
  for (const auto& r : runs) {
    std::vector<std::string> key;
    for (const auto& f : fields) key.push_back(field_value(r.info, f));
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({std::move(key), {}, {}});
    groups[it->second].runs.push_back(&r);
  }
  std::sort(groups.begin(), groups.end(), [](const RunGroup& a, const RunGroup& b) { return a.key < b.key; });
  for (auto& g : groups)
    for (const auto& m : report_metrics()) {
      std::vector<double> values;
      for (const auto* r : g.runs) values.push_back(m.get(r->metrics));
      g.stats.push_back(summarize(std::move(values)));
    }
  return groups;
}

}  // namespace gpusched::store
