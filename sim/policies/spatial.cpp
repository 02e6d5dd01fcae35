// spatial: spatial multitasking with Smart Even partitioning (seed 003 section 4, after Adriaens et al.).
// The SMs of each GPU are split evenly among the launches running on it; a launch that cannot fill its
// share (too few blocks left for its residency) gets only what it needs, and the rest is shared out again;
// SMs that no launch needs for a full wave are handed out round-robin rather than left idle.
// Partitions change when launches arrive, finish issuing or finish; an SM handed to another launch keeps
// running its blocks to completion (no preemption: the Chimera policies add that). docs/policies/spatial.md.
#include <algorithm>

#include "sim/policies/issue.h"
#include "sim/policies/smart_even.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class SpatialPolicy final : public Policy {
 public:
  explicit SpatialPolicy(const Params& p) : params_(p) {}
  std::string name() const override { return "spatial"; }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (all_.empty()) {
      all_ = all_sms(v);
      owner_.assign(all_.size(), -1);
      gpu_of_.assign(static_cast<std::size_t>(v.launch_count()), -1);
      issuing_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    }
    bool repartition = structural(events);
    for (const auto& e : events)  // a launch that has just issued its last block may need fewer SMs
      if (e.kind == EventKind::BlockFinished && e.launch >= 0 && issuing_[static_cast<std::size_t>(e.launch)] &&
          v.launch(e.launch).issuable() == 0)
        repartition = true;
    if (repartition) partition(v);
    const std::span<const std::int32_t> cands = repartition ? std::span<const std::int32_t>(all_) : v.freed_sms();
    for (const std::int32_t sm : cands) {
      const std::int32_t o = owner_[static_cast<std::size_t>(sm)];
      if (o < 0) continue;
      const std::int64_t n = v.room_for(o, sm);
      if (n > 0) {
        a.dispatch(o, sm, n);
        dispatched_.push_back(o);
      }
    }
    // Which launches still have blocks to issue, for the next call. Only a release or a dispatch changes
    // that here (spatial never takes blocks back), so only those launches are looked at again, not every
    // active one (hundreds under a long queue, at every block's end).
    for (const auto& e : events)
      if (e.kind == EventKind::LaunchReleased && e.launch >= 0) dispatched_.push_back(e.launch);
    for (const std::int32_t l : dispatched_) issuing_[static_cast<std::size_t>(l)] = v.launch(l).issuable() > 0;
    dispatched_.clear();
  }

 private:
  void partition(const EngineView& v) {
    const int per_gpu = v.sms_per_gpu();
    // Each launch runs on one GPU: a new launch goes to the GPU with the fewest launches still issuing.
    std::vector<int> load(static_cast<std::size_t>(v.gpu_count()), 0);
    for (const std::int32_t l : v.active())
      if (gpu_of_[static_cast<std::size_t>(l)] >= 0 && v.launch(l).issuable() > 0)
        ++load[static_cast<std::size_t>(gpu_of_[static_cast<std::size_t>(l)])];
    for (const std::int32_t l : v.active()) {
      auto& g = gpu_of_[static_cast<std::size_t>(l)];
      if (g >= 0) continue;
      g = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      ++load[static_cast<std::size_t>(g)];
    }
    for (int gpu = 0; gpu < v.gpu_count(); ++gpu) {
      // Launches with blocks to issue that the GPU can run (a grid frees at a launch's end, which repartitions).
      std::vector<std::int32_t> launches;
      int grids_free = v.free_grids(gpu);
      for (const std::int32_t l : v.active())
        if (gpu_of_[static_cast<std::size_t>(l)] == gpu && v.launch(l).issuable() > 0 &&
            shares_the_sms(v.launch(l).grid_gpu >= 0, grids_free))
          launches.push_back(l);
      // Smart Even: water-filling of SMs over the launches' needs; SMs nobody needs for a full wave still
      // go to launches with blocks to issue, so none idles.
      std::vector<int> need(launches.size());
      for (std::size_t i = 0; i < launches.size(); ++i) {
        const auto& L = v.launch(launches[i]);
        const std::int64_t per_sm = std::max(1, std::min(L.residency, L.residency_cap));
        need[i] = static_cast<int>(std::min<std::int64_t>(per_gpu, (L.issuable() + per_sm - 1) / per_sm));
      }
      const std::vector<int> quota = smart_even_quotas(need, per_gpu, true);
      // Keep current owners where quotas allow, then hand free SMs out in launch order.
      std::vector<int> have(launches.size(), 0);
      std::vector<std::int32_t> free_sms;
      for (int k = 0; k < per_gpu; ++k) {
        const int sm = gpu * per_gpu + k;
        const std::int32_t o = owner_[static_cast<std::size_t>(sm)];
        const auto it = std::find(launches.begin(), launches.end(), o);
        const std::size_t i = static_cast<std::size_t>(it - launches.begin());
        if (it != launches.end() && have[i] < quota[i])
          ++have[i];
        else {
          owner_[static_cast<std::size_t>(sm)] = -1;
          free_sms.push_back(sm);
        }
      }
      std::size_t next = 0;
      for (std::size_t i = 0; i < launches.size(); ++i)
        while (have[i] < quota[i] && next < free_sms.size()) {
          owner_[static_cast<std::size_t>(free_sms[next++])] = launches[i];
          ++have[i];
        }
    }
  }

  Params params_;
  std::vector<std::int32_t> all_, owner_, dispatched_;
  std::vector<char> issuing_;  // per launch: had blocks to issue at the end of the last call
  std::vector<int> gpu_of_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, spatial, "spatial",
                         "spatial multitasking: SMs split evenly among running launches, Smart Even (seed 003)", {},
                         [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::SpatialPolicy>(p);
                         })
