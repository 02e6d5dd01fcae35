// RunResult: what one simulated (or measured) run produced: the Schedule, per-launch outcomes and the
// run's metrics, with the settings that identify it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/metrics.h"
#include "core/schedule.h"

namespace gpusched {

struct RunResult {
  std::string workload;
  std::string policy;
  std::string policy_params;  // "name=value,..." as resolved (defaults included)
  std::string gpu;
  int gpu_count = 1;
  std::string interference;
  std::uint64_t seed = 0;
  Schedule schedule;  // empty when the run streamed its Schedule to a file
  std::vector<LaunchOutcome> launches;
  Metrics metrics;
  std::int64_t events = 0;  // engine events processed
  // Figures particular to the policy (e.g. Chimera's technique mix), by name; printed, not stored.
  std::vector<std::pair<std::string, double>> policy_metrics;
};

// A policy figure by name, or `fallback` when the policy did not report it.
inline double policy_metric(const RunResult& r, std::string_view name, double fallback = 0.0) {
  for (const auto& [k, v] : r.policy_metrics)
    if (k == name) return v;
  return fallback;
}

}  // namespace gpusched
