// Chimera's preemption machinery for policies (seed 003 sections 3.1-3.4): the statistics an SM reports
// (instructions executed per block, cycles, the kernel's CPI), the cost estimates and Algorithm 1 from
// core/chimera_select, and carrying a plan out through the engine's actions. Shared by `chimera`, the
// single-technique `preempt-*` policies and `srtf-chimera`. docs/policies/chimera.md.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/chimera_select.h"
#include "sim/engine.h"
#include "sim/params.h"

namespace gpusched::sim {

struct PreemptionSettings {
  double latency_limit_ns = 15'000.0;
  std::vector<chimera::Technique> techniques;                // candidates per block
  chimera::Technique fallback = chimera::Technique::Switch;  // for blocks no candidate preempts in time
  bool strict_idempotence = false;  // strict: only kernels idempotent throughout may be flushed
  bool block_cpi = false;           // drain estimates from each block's own CPI (default: the kernel's average)
  double headroom_ns = 0.0;         // plans aim at latency_limit - headroom (section 4.1 suggests headroom)
};

// The parameters every Chimera-style policy declares: latency_limit_us, idempotence, drain_cpi, headroom_us.
std::vector<ParamSpec> preemption_params();
// Reads them; `techniques`/`fallback` are the policy's own.
PreemptionSettings preemption_settings(const Params& p, std::vector<chimera::Technique> techniques,
                                       chimera::Technique fallback);

class ChimeraPreemptor {
 public:
  explicit ChimeraPreemptor(PreemptionSettings s) : settings_(std::move(s)) {}
  const PreemptionSettings& settings() const { return settings_; }

  // Keeps each launch's completed-block statistics (the hardware counters Chimera reads).
  void observe(const EngineView& v, std::span<const EngineEvent> events);

  // Algorithm 1: plans for `count` of the candidate SMs, preempting the blocks of launch `victim` there.
  std::vector<chimera::SmPlan> select(const EngineView& v, std::int32_t victim, std::span<const int> sms,
                                      std::size_t count) const;
  // Algorithm 1 over groups of SMs taken whole (chimera's sm_group): each group's plan is its SMs' plans, its latency
  // theirs at most (they drain at once) and its overhead their sum; plans for `count` of the candidate groups, each
  // as its SMs' plans.
  std::vector<std::vector<chimera::SmPlan>> select_groups(const EngineView& v, std::int32_t victim,
                                                          const std::vector<std::vector<int>>& groups,
                                                          std::size_t count) const;
  // One SM's plan for the victim's blocks on it (lines 2-17).
  chimera::SmPlan plan_sm(const EngineView& v, std::int32_t victim, int sm) const;

  // Flushes and switches the blocks the plan says; drained blocks are left to finish.
  void apply(const chimera::SmPlan& plan, Actions& a);

  // Blocks preempted by each technique, SM plans carried out, and those whose estimate missed the limit.
  std::vector<std::pair<std::string, double>> metrics() const;

 private:
  struct LaunchStats {
    double block_ns = 0.0;  // summed durations of blocks that ran start to end in one piece
    std::int64_t blocks = 0;
    std::int64_t interrupted = 0;  // its blocks switched out and not finished since (none: no lookup)
    // One bit per block of the launch, set while the block has been switched out and has not finished; allocated at
    // the launch's first switch, freed when it finishes. (A hash set of (launch, block) was 12 % of srtf-chimera's
    // run on a long queue, where millions of blocks are switched.)
    std::vector<std::uint64_t> interrupted_bits;
  };
  chimera::KernelObservation kernel_observation(const EngineView& v, std::int32_t l) const;
  static double instructions_per_block(const EngineView& v, std::int32_t l);
  double target_latency() const { return settings_.latency_limit_ns - settings_.headroom_ns; }

  PreemptionSettings settings_;
  std::vector<LaunchStats> stats_;
  std::int64_t by_technique_[3] = {0, 0, 0};
  std::int64_t sm_plans_ = 0, sm_plans_late_ = 0;
};

}  // namespace gpusched::sim
