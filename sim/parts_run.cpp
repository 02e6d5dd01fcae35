#include "sim/parts_run.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <string>

#include "sim/part_starts.h"
#include "sim/policies/issue.h"
#include "sim/policy.h"

namespace gpusched::sim {
namespace {

// The hardware's dispatcher over grids confined to SM sets: on each SM that may take blocks, the pending grids
// that may run there in priority order (higher `priority` first, release order among equals), each filling what
// it can; a grid with blocks left holds the SMs it may run on against the grids behind it (head-of-line blocking,
// per SM). Built in code for one replay (not a registered policy: it needs each launch's SMs).
class ConfinedPriorityIssue final : public Policy {
 public:
  // `caps`: per launch its residency cap (INT_MAX: none).
  ConfinedPriorityIssue(std::vector<std::vector<int>> sms, std::vector<int> caps)
      : sms_(std::move(sms)), caps_(std::move(caps)) {}
  std::string name() const override { return "priority (parts)"; }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (all_.empty()) {
      all_ = all_sms(v);
      placement_.placement = v.gpu().placement;
    }
    const bool full = structural(events);
    for (const auto& e : events) {
      if (e.kind != EventKind::LaunchReleased) continue;
      const auto i = static_cast<std::size_t>(e.launch);
      if (!sms_[i].empty()) a.restrict_to_sms(e.launch, sms_[i]);
      if (caps_[i] < INT_MAX) a.set_residency_cap(e.launch, caps_[i]);
    }
    if (full) {
      order_ = v.active();
      std::stable_sort(order_.begin(), order_.end(),
                       [&](std::int32_t x, std::int32_t y) { return v.spec(x).priority > v.spec(y).priority; });
    }
    held_.assign(static_cast<std::size_t>(v.sm_count()), 0);
    const std::span<const std::int32_t> considered = full ? std::span<const std::int32_t>(all_) : v.freed_sms();
    for (const std::int32_t l : order_) {
      if (v.launch(l).issuable() == 0) continue;
      candidates_.clear();
      for (const std::int32_t sm : considered)
        if (!held_[static_cast<std::size_t>(sm)] && v.room_for(l, sm) > 0) candidates_.push_back(sm);
      issue_blocks(v, a, l, candidates_, placement_, [&](int sm) { return v.room_for(l, sm); });
      if (v.launch(l).issuable() == 0 || caps_[static_cast<std::size_t>(l)] < INT_MAX) continue;
      const auto& mine = sms_[static_cast<std::size_t>(l)];
      if (mine.empty()) return;  // a grid on every SM with blocks left holds them all
      for (const int sm : mine) held_[static_cast<std::size_t>(sm)] = 1;
    }
  }

 private:
  std::vector<std::vector<int>> sms_;  // per launch: its SMs (empty: every SM)
  std::vector<int> caps_;
  std::vector<std::int32_t> all_, order_, candidates_;
  std::vector<char> held_;
  PlacementState placement_;
};

}  // namespace

TimeNs part_release(const Workload& w, const GpuSpec& gpu, std::size_t launch, TimeNs start) {
  return std::max(w.launches[launch].arrival, start - gpu.launch_latency_ns);
}

PriorityReplay run_part_launches(const Workload& w, const GpuSpec& gpu, const RunResult& plan, PartLaunches parts,
                                 RunOptions options, AloneTimeCache& alone, LaunchPriorities priorities) {
  const std::size_t n = w.launches.size();
  PriorityReplay out;
  out.priorities = std::move(priorities);
  // A part on every SM runs unconfined.
  for (auto& sms : parts.sms)
    if (static_cast<int>(sms.size()) >= gpu.sm_count) sms.clear();
  // The front end starts the parts' grids one at a time (GpuSpec::grid_start_interval_ns): a grid released with many
  // others leaves it later. The engine adds the launch latency after.
  if (gpu.grid_start_interval_ns > 0) {
    std::vector<TimeNs> release;
    for (const auto& l : parts.launches) release.push_back(l.arrival);
    const auto starts = front_end_starts(release, gpu.grid_start_interval_ns);
    for (std::size_t k = 0; k < parts.launches.size(); ++k) parts.launches[k].arrival = starts[k];
  }
  if (parts.predecessors) {
    std::vector<std::vector<std::size_t>> parts_of(n);
    for (std::size_t k = 0; k < parts.owner.size(); ++k) parts_of[parts.owner[k]].push_back(k);
    for (std::size_t k = 0; k < parts.launches.size(); ++k)
      for (const std::size_t p : w.dag.predecessors(parts.owner[k]))
        parts.launches[k].after.insert(parts.launches[k].after.end(), parts_of[p].begin(), parts_of[p].end());
  }
  const Workload as_launches = make_workload(w.name + " in parts", std::move(parts.kernels), std::move(parts.launches));
  options.policy = "priority";
  options.policy_params.clear();
  options.policy_object = std::make_shared<ConfinedPriorityIssue>(std::move(parts.sms), std::move(parts.caps));
  options.keep_schedule = true;
  out.replay = run_workload(as_launches, gpu, options, alone);
  // The replay's pieces as the workload's: each part's launch, its blocks its launch's.
  const auto& owner = parts.owner;
  out.in_workload.schedule.pieces = std::move(out.replay.schedule.pieces);
  out.replay.schedule = {};
  for (auto& piece : out.in_workload.schedule.pieces) {
    const auto k = static_cast<std::size_t>(piece.launch);
    piece.launch = static_cast<std::int32_t>(owner[k]);
    piece.block = parts.block_of[k][static_cast<std::size_t>(piece.block)];
  }
  std::vector<TimeNs>& finish = out.launch_finish;
  std::vector<TimeNs>& first = out.launch_first_dispatch;
  finish.assign(n, 0);
  first.assign(n, -1);
  for (std::size_t k = 0; k < owner.size(); ++k) {
    const auto& part = out.replay.launches[k];
    finish[owner[k]] = std::max(finish[owner[k]], part.finish);
    if (part.first_dispatch >= 0 && (first[owner[k]] < 0 || part.first_dispatch < first[owner[k]]))
      first[owner[k]] = part.first_dispatch;
  }
  out.in_workload.launches = plan.launches;
  for (std::size_t i = 0; i < n; ++i) {
    auto& l = out.in_workload.launches[i];
    l.first_dispatch = first[i];
    l.finish = finish[i];
    l.turnaround = finish[i] - l.release;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double replayed = static_cast<double>(finish[i] - plan.launches[i].release);
    const double planned = static_cast<double>(plan.launches[i].turnaround);
    out.turnaround_err_pct.push_back(replayed > 0 ? std::fabs(replayed - planned) / replayed * 100.0 : 0.0);
  }
  const auto order_of = [n](const auto& finish_of) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return finish_of(a) < finish_of(b); });
    return order;
  };
  out.same_finish_order = order_of([&](std::size_t i) { return plan.launches[i].finish; }) ==
                          order_of([&](std::size_t i) { return finish[i]; });
  return out;
}

}  // namespace gpusched::sim
