#include "gui/model/validation_summary.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/content_hash.h"
#include "core/prediction_errors.h"
#include "core/store/run_comparison.h"
#include "core/workload_io.h"

namespace gpusched::gui {

namespace {
double abs_pct(double measured, double predicted) {
  return measured > 0 ? 100.0 * std::abs(measured - predicted) / measured : 0.0;
}

Spread spread_of(std::vector<double> v) {
  if (v.empty()) return {};
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {nearest_rank(v, 0.5), *lo, *hi};
}
}  // namespace

ValidationEntry validation_entry(const store::RunSummary& live, const std::vector<store::LaunchRow>& live_launches,
                                 const store::RunSummary& predicted,
                                 const std::vector<store::LaunchRow>& predicted_launches) {
  ValidationEntry e;
  e.live_run = live.info.id;
  e.predicted_run = predicted.info.id;
  // The live run's label: the predicted policy, or e.g. "sjf (native)" where the hardware carried it out.
  e.policy = live.info.policy.empty() ? predicted.info.policy : live.info.policy;
  e.workload = predicted.info.workload;
  e.gpu = live.info.gpu;
  e.interference = predicted.info.interference;
  const std::size_t n = std::min(live_launches.size(), predicted_launches.size());
  e.launches = n;
  std::vector<double> errors;
  errors.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    errors.push_back(abs_pct(static_cast<double>(live_launches[i].outcome.turnaround),
                             static_cast<double>(predicted_launches[i].outcome.turnaround)));
  e.turnaround_median_pct = nearest_rank(errors, 0.5);
  e.turnaround_p90_pct = nearest_rank(errors, 0.9);
  e.turnaround_max_pct = errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  const auto measured = static_cast<double>(live.metrics.makespan);
  const auto planned = static_cast<double>(predicted.metrics.makespan);
  e.makespan_pct = abs_pct(measured, planned);
  e.makespan_signed_pct = measured > 0 ? 100.0 * (planned - measured) / measured : 0.0;
  return e;
}

std::vector<PolicyValidation> summarize_by_policy(const std::vector<ValidationEntry>& entries) {
  std::map<std::string, std::vector<const ValidationEntry*>> by_policy;
  for (const auto& e : entries) by_policy[e.policy].push_back(&e);
  std::vector<PolicyValidation> out;
  for (const auto& [policy, list] : by_policy) {
    std::vector<double> median, p90, makespan;
    for (const auto* e : list) {
      median.push_back(e->turnaround_median_pct);
      p90.push_back(e->turnaround_p90_pct);
      makespan.push_back(e->makespan_pct);
    }
    out.push_back({policy, list.size(), spread_of(median), spread_of(p90), spread_of(makespan)});
  }
  return out;
}

ValidationSummary summarize_validations(const store::Store& store) {
  ValidationSummary s;
  for (const auto& v : store.validations()) {
    const auto live = store.run_summary(v.live_run);
    const auto predicted = store.run_summary(v.predicted_run);
    if (!live || !predicted) continue;  // a run deleted by hand; the link goes with it in a well-formed store
    auto e = validation_entry(*live, store.launches(v.live_run), *predicted, store.launches(v.predicted_run));
    e.created_at = v.created_at;
    s.entries.push_back(std::move(e));
  }
  s.policies = summarize_by_policy(s.entries);
  return s;
}

ValidationDetail validation_detail(const store::RunRecord& predicted, const store::RunRecord& live,
                                   const std::string& workload_file) {
  ValidationDetail d;
  const std::size_t n = std::min(predicted.launches.size(), live.launches.size());
  for (std::size_t i = 0; i < n; ++i)
    d.turnarounds.emplace_back(static_cast<double>(predicted.launches[i].outcome.turnaround),
                               static_cast<double>(live.launches[i].outcome.turnaround));
  std::optional<Workload> w;
  if (!workload_file.empty()) {
    try {
      Warnings warnings;
      w = read_workload(workload_file, &warnings);
      if (workload_content_hash(*w) != predicted.info.workload_hash) w.reset();  // the file changed since
    } catch (const std::exception&) {
      w.reset();  // moved or unreadable: the stored times are shown, and said to be
    }
  }
  d.raw_equivalent = w.has_value();
  for (const auto& p : predicted.schedule.pieces)
    d.predicted_block_times.push_back(w ? raw_equivalent_ns(*w, p) : static_cast<double>(p.end - p.start));
  for (const auto& p : live.schedule.pieces) d.measured_block_times.push_back(static_cast<double>(p.end - p.start));
  if (!d.predicted_block_times.empty() && !d.measured_block_times.empty())
    d.block_time_ks = store::ks_statistic(d.measured_block_times, d.predicted_block_times);  // sorts both
  std::sort(d.predicted_block_times.begin(), d.predicted_block_times.end());
  std::sort(d.measured_block_times.begin(), d.measured_block_times.end());
  return d;
}

std::vector<std::pair<double, double>> cdf_points(const std::vector<double>& sorted, std::size_t max_points) {
  std::vector<std::pair<double, double>> out;
  const std::size_t n = sorted.size();
  if (n == 0 || max_points == 0) return out;
  const std::size_t k = std::min(n, std::max<std::size_t>(max_points, 2));
  out.reserve(k);
  for (std::size_t j = 0; j < k; ++j) {
    // The j-th of k evenly spaced ranks (1-based), the last one n: F steps to rank / n at that value.
    const std::size_t rank = k == 1 ? n : 1 + (j * (n - 1)) / (k - 1);
    out.emplace_back(sorted[rank - 1], static_cast<double>(rank) / static_cast<double>(n));
  }
  return out;
}

}  // namespace gpusched::gui
