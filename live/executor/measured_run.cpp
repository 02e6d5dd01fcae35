#include "live/executor/measured_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/metrics.h"
#include "core/occupancy.h"

namespace gpusched::live {

RunResult measured_run(const Workload& w, const GpuSpec& gpu, Schedule measured, const std::vector<TimeNs>& alone,
                       const RunResult& predicted) {
  const std::size_t n = w.launches.size();
  if (alone.size() != n) throw std::invalid_argument("measured_run: one alone time per launch expected");
  RunResult r;
  r.workload = predicted.workload;
  r.policy = predicted.policy;
  r.policy_params = predicted.policy_params;
  r.gpu = predicted.gpu;
  r.gpu_count = 1;
  r.interference = predicted.interference;
  r.seed = predicted.seed;

  std::vector<TimeNs> first(n, -1), finish(n, -1);
  std::vector<std::int64_t> done(n, 0);
  for (const auto& p : measured.pieces) {
    const auto l = static_cast<std::size_t>(p.launch);
    if (l >= n) throw std::invalid_argument(fmt::format("measured_run: piece of unknown launch {}", p.launch));
    first[l] = first[l] < 0 ? p.start : std::min(first[l], p.start);
    finish[l] = std::max(finish[l], p.end);
    done[l] += p.outcome == PieceOutcome::Completed || p.outcome == PieceOutcome::Drained ||
               p.outcome == PieceOutcome::SwitchedIn;
  }
  // Releases in dependency order: the DAG's release order has every predecessor first.
  std::vector<TimeNs> release(n, 0);
  for (const std::size_t i : w.dag.release_order()) {
    release[i] = w.launches[i].arrival;
    for (const std::size_t p : w.dag.predecessors(i)) release[i] = std::max(release[i], finish[p]);
  }
  std::vector<double> warps_of(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& k = w.kernel_of(i);
    if (done[i] == 0 && !predicted.launches.at(i).killed)
      throw std::invalid_argument(fmt::format("launch '{}' has no block that ran to its end", w.launches[i].id));
    LaunchOutcome o;
    o.arrival = w.launches[i].arrival;
    o.release = release[i];
    o.first_dispatch = first[i];
    o.finish = finish[i];
    o.alone = alone[i];
    o.blocks = k.block_count();
    o.killed = predicted.launches.at(i).killed && done[i] < o.blocks;
    o.deadline_missed = w.launches[i].deadline && (o.killed || o.finish > *w.launches[i].deadline);
    r.launches.push_back(o);
    warps_of[i] = compute_occupancy(gpu, k.shape()).footprint.warps;
  }
  r.metrics = compute_launch_metrics(r.launches);
  auto& m = r.metrics;
  m.bound_area = predicted.metrics.bound_area;
  m.bound = std::max(m.bound_area, m.bound_longest);
  m.makespan_over_bound = m.bound > 0 ? static_cast<double>(m.makespan) / static_cast<double>(m.bound) : 1.0;

  // Utilisation: per SM, the union of its pieces' intervals; warp occupancy: pieces' time x warps.
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> per_sm(static_cast<std::size_t>(gpu.sm_count));
  double warp_time = 0;
  for (const auto& p : measured.pieces) {
    if (p.sm >= 0 && p.sm < gpu.sm_count) per_sm[static_cast<std::size_t>(p.sm)].emplace_back(p.start, p.end);
    warp_time += static_cast<double>(p.end - p.start) * warps_of[static_cast<std::size_t>(p.launch)];
    if (stopped_before_block_end(p.outcome)) ++m.preemptions;
    if (p.outcome == PieceOutcome::Flushed || p.outcome == PieceOutcome::Killed) m.wasted_work += p.end - p.start;
  }
  double busy = 0;
  for (auto& v : per_sm) {
    std::sort(v.begin(), v.end());
    TimeNs open = 0, close = -1;
    for (const auto& [s, e] : v) {
      if (s > close) {
        if (close > open) busy += static_cast<double>(close - open);
        open = s;
        close = e;
      } else {
        close = std::max(close, e);
      }
    }
    if (close > open) busy += static_cast<double>(close - open);
  }
  if (m.makespan > 0) {
    const double capacity = static_cast<double>(gpu.sm_count) * static_cast<double>(m.makespan);
    m.sm_utilization = busy / capacity;
    m.warp_occupancy = warp_time / (capacity * gpu.max_warps_per_sm);
  }
  r.schedule = std::move(measured);
  return r;
}

}  // namespace gpusched::live
