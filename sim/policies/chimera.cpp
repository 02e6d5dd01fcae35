// chimera, preempt-switch, preempt-drain, preempt-flush: preemptive spatial multitasking (seed 003).
//
// The kernel scheduler splits each GPU's SMs among the running launches with Smart Even (section 4). When
// a launch is owed SMs and no SM is free, the launches holding more than their quota give SMs up: Chimera's
// Algorithm 1 picks which SMs and, per resident block, which technique (flush, drain or context switch)
// meets the latency limit at the least throughput overhead. The single-technique policies run the same
// partitioning and selection with one technique (preempt-flush drains blocks it may not flush). A
// preempted SM is drained in the engine (it takes no blocks) until its last block is gone; then its new
// owner fills it. Flushed and switched blocks go back to their launch, which issues them first.
//
// Launches with a deadline are killed when they miss it (section 4.1: "the synthetic benchmark is killed
// if it misses the deadline"), unless kill_at_deadline=false. docs/policies/chimera.md.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/policies/chimera_preemption.h"
#include "sim/policies/issue.h"
#include "sim/policies/smart_even.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

using chimera::Technique;

class ChimeraPolicy final : public Policy {
 public:
  ChimeraPolicy(std::string name, const Params& p, std::vector<Technique> techniques, Technique fallback)
      : name_(std::move(name)),
        preemptor_(preemption_settings(p, std::move(techniques), fallback)),
        kill_at_deadline_(p.get_bool("kill_at_deadline")),
        sm_group_(static_cast<int>(p.get_int("sm_group"))) {
    if (sm_group_ < 1) throw std::invalid_argument("policy " + name_ + ": sm_group must be at least 1");
  }

  std::string name() const override { return name_; }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (all_.empty()) init(v);
    preemptor_.observe(v, events);
    bool repartition = false;
    bool need_changed = false;  // a launch's need for SMs fell, without changing the partition (below)
    bool only_finishes = true;  // the batch holds block ends only
    for (const auto& e : events) {
      if (e.kind != EventKind::BlockFinished) only_finishes = false;
      switch (e.kind) {
        case EventKind::LaunchReleased:
          repartition = true;
          if (kill_at_deadline_ && v.launch(e.launch).deadline >= 0)
            a.set_timer(std::max(v.now(), v.launch(e.launch).deadline), e.launch);
          break;
        case EventKind::LaunchFinished:
          repartition = true;
          break;
        case EventKind::Timer: {
          const auto l = static_cast<std::int32_t>(e.tag);
          if (v.launch(l).phase != LaunchPhase::Finished) {
            a.kill(l);  // LaunchFinished follows
            killed_[static_cast<std::size_t>(l)] = 1;
          }
          break;
        }
        case EventKind::SmDrained: {
          auto& p = pending_[static_cast<std::size_t>(e.sm)];
          if (p >= 0) {
            latencies_.push_back(v.now() - p);
            p = -1;
            a.undrain_sm(e.sm);
            repartition = true;
          }
          break;
        }
        case EventKind::BlockFinished:
          // Only a finished block lowers a launch's unfinished blocks, and so its need for SMs.
          if (!repartition && v.launch(e.launch).phase == LaunchPhase::Released) {
            const int need = need_of(v, e.launch);
            auto& last = last_need_[static_cast<std::size_t>(e.launch)];
            if (need != last) {
              // A need still above the launch's quota leaves every round of Smart Even's water-filling as it
              // was (the launch takes the same share each round and stays open), so the quotas, deficits and
              // owners would all come out the same: when the last partition left no deficit, partitioning again
              // would change nothing. Under a long queue most launches hold a quota of one SM while their need
              // falls block by block: this is what keeps a partition from running at nearly every block end.
              if (settled_ && need > quota_of_[static_cast<std::size_t>(e.launch)]) {
                last = need;
                need_changed = true;
              } else {
                repartition = true;
              }
            }
          }
          count_ignored_work(e, v.now());
          break;
        case EventKind::BlockSaved:
          count_ignored_work(e, v.now());
          break;
        default:
          break;
      }
    }
    // Other events (a save, a flush, a timer) may give a launch blocks to issue again, which the pass over
    // every SM after a partition would place on SMs that did not free anything: until such a pass has run,
    // partition as before.
    if (!only_finishes) unfilled_ = true;
    if (need_changed && unfilled_) repartition = true;
    if (repartition) {
      partition(v, a);
      unfilled_ = false;
    }
    std::span<const std::int32_t> candidates = v.freed_sms();
    if (repartition) {
      candidates = all_;
    } else if (need_changed && candidates.size() > 1) {
      // Stands for the pass over every SM a partition is followed by. Only the freed SMs can have room for their
      // owners (since the last such pass every other SM was filled, or its owner had nothing to issue, and no
      // save or flush has returned blocks: `unfilled_`), and the pass visits them in id order.
      sorted_freed_.assign(candidates.begin(), candidates.end());
      std::sort(sorted_freed_.begin(), sorted_freed_.end());
      candidates = sorted_freed_;
    }
    for (const std::int32_t sm : candidates) {
      const std::int32_t o = owner_[static_cast<std::size_t>(sm)];
      if (o >= 0 && pending_[static_cast<std::size_t>(sm)] < 0 && v.launch(o).phase == LaunchPhase::Released)
        a.fill(o, sm);
    }
  }

  std::vector<std::pair<std::string, double>> metrics() const override {
    auto m = preemptor_.metrics();
    double sum = 0, worst = 0;
    std::int64_t over = 0;
    for (const TimeNs t : latencies_) {
      sum += static_cast<double>(t);
      worst = std::max(worst, static_cast<double>(t));
      if (static_cast<double>(t) > preemptor_.settings().latency_limit_ns) ++over;
    }
    m.emplace_back("sm_preemption_latency_mean_ns",
                   latencies_.empty() ? 0.0 : sum / static_cast<double>(latencies_.size()));
    m.emplace_back("sm_preemption_latency_max_ns", worst);
    m.emplace_back("sm_preemptions_over_limit", static_cast<double>(over));
    m.emplace_back("sm_preemptions", static_cast<double>(latencies_.size()));
    double ignored = 0;
    for (std::size_t l = 0; l < window_work_.size(); ++l)
      if (killed_[l]) ignored += window_work_[l];
    m.emplace_back("ignored_work_ns", ignored);
    return m;
  }

 private:
  void init(const EngineView& v) {
    if (v.sms_per_gpu() % sm_group_ != 0)
      throw std::invalid_argument("policy " + name_ + ": sm_group " + std::to_string(sm_group_) +
                                  " does not divide the GPU's " + std::to_string(v.sms_per_gpu()) + " SMs");
    all_ = all_sms(v);
    owner_.assign(all_.size(), -1);
    pending_.assign(all_.size(), -1);
    windows_.assign(all_.size(), {});
    gpu_of_.assign(static_cast<std::size_t>(v.launch_count()), -1);
    last_need_.assign(static_cast<std::size_t>(v.launch_count()), -1);
    quota_of_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    window_work_.assign(static_cast<std::size_t>(v.launch_count()), 0.0);
    killed_.assign(static_cast<std::size_t>(v.launch_count()), 0);
  }

  // SMs a launch can fill: its unfinished blocks (to issue or resident) over its blocks per SM.
  static int need_of(const EngineView& v, std::int32_t l) {
    const auto& L = v.launch(l);
    const std::int64_t per_sm = std::max(1, std::min(L.residency, L.residency_cap));
    const std::int64_t blocks = L.issuable() + L.resident;
    return static_cast<int>(std::min<std::int64_t>(v.sms_per_gpu(), (blocks + per_sm - 1) / per_sm));
  }

  void partition(const EngineView& v, Actions& a) {
    const int per_gpu = v.sms_per_gpu();
    for (auto& o : owner_)
      if (o >= 0 && v.launch(o).phase != LaunchPhase::Released) o = -1;
    // Each launch runs on one GPU: a new one goes to the GPU with the fewest running launches.
    std::vector<int> load(static_cast<std::size_t>(v.gpu_count()), 0);
    for (const std::int32_t l : v.active())
      if (gpu_of_[static_cast<std::size_t>(l)] >= 0)
        ++load[static_cast<std::size_t>(gpu_of_[static_cast<std::size_t>(l)])];
    for (const std::int32_t l : v.active()) {
      auto& g = gpu_of_[static_cast<std::size_t>(l)];
      if (g >= 0) continue;
      g = v.launch(l).gpu >= 0 ? v.launch(l).gpu
                               : static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      ++load[static_cast<std::size_t>(g)];
    }
    settled_ = true;
    for (int gpu = 0; gpu < v.gpu_count(); ++gpu) partition_gpu(v, a, gpu, per_gpu);
  }

  void partition_gpu(const EngineView& v, Actions& a, int gpu, int per_gpu) {
    // Launches the GPU can run (preempted ones keep their grids).
    std::vector<std::int32_t> launches;
    int grids_free = v.free_grids(gpu);
    for (const std::int32_t l : v.active())
      if (gpu_of_[static_cast<std::size_t>(l)] == gpu && shares_the_sms(v.launch(l).grid_gpu >= 0, grids_free))
        launches.push_back(l);
    std::vector<int> need(launches.size());
    for (std::size_t i = 0; i < launches.size(); ++i) {
      need[i] = need_of(v, launches[i]);
      last_need_[static_cast<std::size_t>(launches[i])] = need[i];
    }
    // With sm_group > 1 the SMs go in groups of that many consecutive SMs, never split between launches: Smart Even
    // shares the groups, and a launch's need is the groups its blocks can fill.
    const int g = sm_group_;
    std::vector<int> quota;
    if (g == 1) {
      quota = smart_even_quotas(need, per_gpu, true);
    } else {
      std::vector<int> need_groups(need.size());
      for (std::size_t i = 0; i < need.size(); ++i) need_groups[i] = (need[i] + g - 1) / g;
      quota = smart_even_quotas(need_groups, per_gpu / g, true);
      for (std::size_t i = 0; i < need.size(); ++i) {
        quota[i] *= g;
        need[i] = need_groups[i] * g;
      }
    }
    for (std::size_t i = 0; i < launches.size(); ++i) quota_of_[static_cast<std::size_t>(launches[i])] = quota[i];
    const int first = gpu * per_gpu;
    // Index of each launch in `launches` (a search per SM made this quadratic in the queue, issue "Speed").
    // A launch of this GPU left out of the partition (it holds no grid and none is free) is marked `kOutside`.
    if (index_scratch_.size() < static_cast<std::size_t>(v.launch_count()))
      index_scratch_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    for (const std::int32_t l : v.active())
      if (gpu_of_[static_cast<std::size_t>(l)] == gpu) index_scratch_[static_cast<std::size_t>(l)] = kOutside;
    for (std::size_t i = 0; i < launches.size(); ++i) index_scratch_[static_cast<std::size_t>(launches[i])] = i;
    auto index_of = [&](std::int32_t l) { return index_scratch_[static_cast<std::size_t>(l)]; };
    std::vector<int> have(launches.size(), 0);
    std::vector<int> free_sms;  // the first SM of each free group
    for (int sm = first; sm < first + per_gpu; ++sm) {
      auto& o = owner_[static_cast<std::size_t>(sm)];
      if (o >= 0 && index_of(o) == kOutside) o = -1;  // given to it when it could start; it may no longer
      if (o >= 0) ++have[index_of(o)];
    }
    for (int sm = first; sm < first + per_gpu; sm += g) {
      bool unowned = true;
      for (int k = sm; k < sm + g; ++k) unowned = unowned && owner_[static_cast<std::size_t>(k)] < 0;
      if (unowned) free_sms.push_back(sm);
    }
    // Free SMs (including ones still emptying for a launch that has gone) go to launches below quota, a group at a
    // time.
    std::size_t next_free = 0;
    for (std::size_t i = 0; i < launches.size(); ++i)
      while (have[i] < quota[i] && next_free < free_sms.size()) {
        const int at = free_sms[next_free++];
        for (int k = at; k < at + g; ++k) give(v, k, launches[i]);
        have[i] += g;
      }
    // Launches still below what they can fill take SMs from launches above their quota, by preemption. (Only
    // launches above quota now can give: surpluses only shrink below, so the list keeps the same order and choices.)
    std::vector<std::size_t> above;
    for (std::size_t s = 0; s < launches.size(); ++s)
      if (have[s] > quota[s]) above.push_back(s);
    for (std::size_t d = 0; d < launches.size(); ++d) {
      int deficit = std::min(quota[d], need[d]) - have[d];
      for (const std::size_t s : above) {
        if (deficit <= 0) break;
        const int surplus = have[s] - quota[s];
        if (s == d || surplus <= 0) continue;
        const auto preempt = [&](const chimera::SmPlan& plan) {
          give(v, plan.sm, launches[d]);
          pending_[static_cast<std::size_t>(plan.sm)] = v.now();
          a.drain_sm(plan.sm);
          preemptor_.apply(plan, a);
          --have[s];
          ++have[d];
          --deficit;
        };
        if (g == 1) {
          std::vector<int> candidates;
          for (int sm = first; sm < first + per_gpu; ++sm)
            if (owner_[static_cast<std::size_t>(sm)] == launches[s] && pending_[static_cast<std::size_t>(sm)] < 0)
              candidates.push_back(sm);
          const auto count = static_cast<std::size_t>(std::min(deficit, surplus));
          for (const auto& plan : preemptor_.select(v, launches[s], candidates, count)) preempt(plan);
        } else {
          std::vector<std::vector<int>> groups;  // the victim's groups, none of their SMs already being preempted
          for (int sm = first; sm < first + per_gpu; sm += g) {
            bool whole = true;
            for (int k = sm; k < sm + g; ++k)
              whole = whole && owner_[static_cast<std::size_t>(k)] == launches[s] &&
                      pending_[static_cast<std::size_t>(k)] < 0;
            if (!whole) continue;
            auto& group = groups.emplace_back();
            for (int k = sm; k < sm + g; ++k) group.push_back(k);
          }
          const auto count = static_cast<std::size_t>((std::min(deficit, surplus) + g - 1) / g);
          for (const auto& plans : preemptor_.select_groups(v, launches[s], groups, count))
            for (const auto& plan : plans) preempt(plan);
        }
      }
      if (deficit > 0) settled_ = false;  // a later partition may find SMs to take (blocks progress meanwhile)
    }
  }

  // Hands an SM to launch `l`; for a launch with a deadline, the SM's work for others from the latency
  // limit to the deadline is what the launch would have had (Figure 7's effective throughput).
  std::vector<std::size_t> index_scratch_;
  static constexpr std::size_t kOutside = static_cast<std::size_t>(-1);

  void give(const EngineView& v, int sm, std::int32_t l) {
    owner_[static_cast<std::size_t>(sm)] = l;
    const auto& L = v.launch(l);
    if (L.deadline < 0) return;
    const auto from = L.release + static_cast<TimeNs>(std::llround(preemptor_.settings().latency_limit_ns));
    if (from >= L.deadline) return;
    auto& w = windows_[static_cast<std::size_t>(sm)];  // kept sorted by end
    w.insert(std::upper_bound(w.begin(), w.end(), L.deadline, [](TimeNs t, const Window& x) { return t < x.end; }),
             Window{l, from, L.deadline});
  }

  void count_ignored_work(const EngineEvent& e, TimeNs now) {
    if (e.sm < 0) return;
    // Newest ends first; a window that ended before the piece started ends the search (ends are sorted).
    const auto& ws = windows_[static_cast<std::size_t>(e.sm)];
    for (auto it = ws.rbegin(); it != ws.rend() && it->end > e.tag; ++it) {
      const auto& w = *it;
      if (w.owner == e.launch) continue;
      const TimeNs overlap = std::min(now, w.end) - std::max(e.tag, w.start);
      if (overlap > 0) window_work_[static_cast<std::size_t>(w.owner)] += static_cast<double>(overlap);
    }
  }

  struct Window {
    std::int32_t owner;
    TimeNs start, end;
  };

  std::string name_;
  ChimeraPreemptor preemptor_;
  bool kill_at_deadline_;
  int sm_group_;  // SMs given and taken together (1: each on its own, as the paper)
  std::vector<std::int32_t> all_, owner_;
  std::vector<TimeNs> pending_;  // per SM: when its preemption was requested, -1 if none
  std::vector<int> gpu_of_, last_need_;
  std::vector<int> quota_of_;  // per launch: its SMs in the last partition
  bool settled_ = false;       // the last partition left no launch short of SMs it could take
  bool unfilled_ = true;       // events since the last pass over every SM may have left room unused
  std::vector<std::int32_t> sorted_freed_;
  std::vector<TimeNs> latencies_;
  std::vector<std::vector<Window>> windows_;
  std::vector<double> window_work_;
  std::vector<char> killed_;
};

std::vector<ParamSpec> chimera_params() {
  auto p = preemption_params();
  p.push_back({"kill_at_deadline", ParamType::Bool, "true",
               "kill a launch with a deadline when it misses it (section 4.1's real-time task)"});
  p.push_back({"sm_group", ParamType::Int, "1",
               "SMs given and preempted together, in groups of this many consecutive SMs (1: one by one, as the "
               "paper; 2: Hopper's green-context groups, so that no group is shared: docs/policies/chimera.md)"});
  return p;
}

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, chimera, "chimera",
    "Smart Even spatial multitasking with Chimera's collaborative preemption: flush, drain or switch per "
    "block under a latency limit (seed 003)",
    gpusched::sim::chimera_params(), [](const gpusched::sim::Params& p) {
      using gpusched::chimera::Technique;
      return std::make_unique<gpusched::sim::ChimeraPolicy>(
          "chimera", p, std::vector<Technique>{Technique::Flush, Technique::Drain, Technique::Switch},
          Technique::Switch);
    })

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, preempt_switch, "preempt-switch",
                         "Smart Even spatial multitasking preempting SMs by context switching only (seed 003)",
                         gpusched::sim::chimera_params(), [](const gpusched::sim::Params& p) {
                           using gpusched::chimera::Technique;
                           return std::make_unique<gpusched::sim::ChimeraPolicy>(
                               "preempt-switch", p, std::vector<Technique>{Technique::Switch}, Technique::Switch);
                         })

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, preempt_drain, "preempt-drain",
                         "Smart Even spatial multitasking preempting SMs by draining only (seed 003)",
                         gpusched::sim::chimera_params(), [](const gpusched::sim::Params& p) {
                           using gpusched::chimera::Technique;
                           return std::make_unique<gpusched::sim::ChimeraPolicy>(
                               "preempt-drain", p, std::vector<Technique>{Technique::Drain}, Technique::Drain);
                         })

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, preempt_flush, "preempt-flush",
                         "Smart Even spatial multitasking preempting SMs by flushing; blocks past their "
                         "idempotence point are drained (seed 003)",
                         gpusched::sim::chimera_params(), [](const gpusched::sim::Params& p) {
                           using gpusched::chimera::Technique;
                           return std::make_unique<gpusched::sim::ChimeraPolicy>(
                               "preempt-flush", p, std::vector<Technique>{Technique::Flush}, Technique::Drain);
                         })
