// The run browser's grouping, in plain C++: runs filtered by mode, policy, GPU and free text, grouped by workload
// and, within a workload, by the settings under which policies can be compared (GPU and count, mode,
// interference model, seed). A comparison group is what the comparison view shows side by side.
#pragma once
#include <string>
#include <vector>

#include "core/store/store.h"

namespace gpusched::gui {

struct RunBrowserFilter {
  std::string mode;    // "" (all), "sim" or "live"
  std::string policy;  // "" or an exact policy name
  std::string gpu;     // "" or an exact GPU name
  std::string text;    // case-insensitive substring of workload, policy, parameters, GPU, interference or sweep
};

bool matches(const store::RunSummary& run, const RunBrowserFilter& filter);

struct ComparisonGroup {
  std::string gpu;
  int gpu_count = 1;
  std::string mode;
  std::string interference;
  std::uint64_t seed = 0;
  std::vector<const store::RunSummary*> runs;  // in id order
  std::string title() const;                   // "h100 x1 · sim · none · seed 1"
};

struct WorkloadGroup {
  std::string workload;
  std::vector<ComparisonGroup> groups;
  std::size_t run_count() const;
};

// Workloads in name order, their comparison groups in order of first run.
std::vector<WorkloadGroup> group_runs_for_browser(const std::vector<store::RunSummary>& runs,
                                                  const RunBrowserFilter& filter);

// The distinct values of a field over runs, sorted ("policy", "gpu", "mode").
std::vector<std::string> distinct_values(const std::vector<store::RunSummary>& runs, const std::string& field);

}  // namespace gpusched::gui
