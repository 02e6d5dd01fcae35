// Aggregates of stored runs for reports and the GUI: runs grouped by any of their settings, and per group the
// mean, geometric mean and spread of each metric.
#pragma once
#include <string>
#include <vector>

#include "core/store/store.h"

namespace gpusched::store {

// Fields runs can be grouped by.
const std::vector<std::string>& group_fields();
// The value of one field of a run ("policy" -> "srtf"); throws std::invalid_argument for unknown fields.
std::string field_value(const RunInfo& run, const std::string& field);

struct Stats {
  std::size_t n = 0;
  double mean = 0, geomean = 0, stddev = 0, min = 0, max = 0, median = 0;
  double q1 = 0, q3 = 0;         // lower and upper quartiles (medians of the lower and upper halves; box plots)
  bool geomean_defined = false;  // every value > 0
};
Stats summarize(std::vector<double> values);

// The metrics a report shows, by name and how to read them from a run.
struct ReportMetric {
  const char* name;
  double (*get)(const Metrics&);
};
const std::vector<ReportMetric>& report_metrics();  // stp, antt, strict_f, makespan_over_bound

struct RunGroup {
  std::vector<std::string> key;  // one value per group field
  std::vector<const RunSummary*> runs;
  std::vector<Stats> stats;  // one per report metric
};
// Groups in order of first appearance; an empty `fields` puts every run in one group.
std::vector<RunGroup> group_runs(const std::vector<RunSummary>& runs, const std::vector<std::string>& fields);

}  // namespace gpusched::store
