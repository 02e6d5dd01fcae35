// The stored validations (a live run and the simulation that predicted it) summarised for the GUI's Validation
// view (issue "Fidelity 2"): per validation the per-launch turnaround errors and the makespan error, per policy
// their spread over the stored validations, and for one validation the data of its scatter and block-time CDFs.
// Errors are |measured - predicted| / measured in percent, quantiles by nearest rank: the figures of
// `gpusched-live validate`, docs/validation.md and docs/validation/native.csv. Plain C++, no Qt types.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/store/store.h"

namespace gpusched::gui {

struct ValidationEntry {
  std::int64_t live_run = 0, predicted_run = 0;
  std::string policy, workload, gpu, interference, created_at;
  std::size_t launches = 0;
  double turnaround_median_pct = 0, turnaround_p90_pct = 0, turnaround_max_pct = 0;
  double makespan_pct = 0;         // |measured - predicted| / measured
  double makespan_signed_pct = 0;  // (predicted - measured) / measured: + when the prediction is too long
};

// Median, smallest and largest of one figure over a policy's validations.
struct Spread {
  double median = 0, min = 0, max = 0;
};

struct PolicyValidation {
  std::string policy;
  std::size_t validations = 0;
  Spread turnaround_median_pct, turnaround_p90_pct, makespan_pct;
};

struct ValidationSummary {
  std::vector<ValidationEntry> entries;    // in the store's order of validations
  std::vector<PolicyValidation> policies;  // by policy name
};

// The errors of one validation from its two runs' launches and makespans (launches matched by index).
ValidationEntry validation_entry(const store::RunSummary& live, const std::vector<store::LaunchRow>& live_launches,
                                 const store::RunSummary& predicted,
                                 const std::vector<store::LaunchRow>& predicted_launches);
// Per policy, the spread of each entry's figures (median of the entries' medians, and so on).
std::vector<PolicyValidation> summarize_by_policy(const std::vector<ValidationEntry>& entries);
// Every stored validation (launches and metrics only: no block rows are read). Throws what the store throws.
ValidationSummary summarize_validations(const store::Store& store);

// One validation in detail: per launch (predicted, measured) turnaround in ns, and the two block-time samples
// (sorted, ns) with their two-sample KS statistic.
struct ValidationDetail {
  std::vector<std::pair<double, double>> turnarounds;  // (predicted, measured)
  std::vector<double> predicted_block_times, measured_block_times;
  std::optional<double> block_time_ks;  // when both runs kept their blocks
  // The predicted pieces are compared as block stamps would show them (their recorded raw time scaled as the
  // prediction scaled the slot occupancy) when the workload file could be read and is the one predicted;
  // otherwise as stored (slot occupancies), which `raw_equivalent` false says.
  bool raw_equivalent = false;
};
// `workload_file`: where to read the workload for the raw equivalents ("" or unreadable: stored times).
ValidationDetail validation_detail(const store::RunRecord& predicted, const store::RunRecord& live,
                                   const std::string& workload_file);

// At most `max_points` (x, F(x)) points of a sorted sample's empirical CDF, as steps: evenly spaced ranks, the
// first and last values included. Empty for an empty sample.
std::vector<std::pair<double, double>> cdf_points(const std::vector<double>& sorted, std::size_t max_points);

}  // namespace gpusched::gui
