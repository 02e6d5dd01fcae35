#include "sim/policies/chimera_preemption.h"

#include <algorithm>
#include <stdexcept>

namespace gpusched::sim {

using chimera::Technique;

namespace {
// Instructions a block executes when the profile does not say: any constant works, because Chimera only
// compares instruction counts of blocks of one kernel and turns them into time through the same kernel's CPI.
constexpr double kDefaultInstructionsPerBlock = 1000.0;

}  // namespace

std::vector<ParamSpec> preemption_params() {
  return {{"latency_limit_us", ParamType::Double, "15", "preemption latency limit (us) the preemption must meet"},
          {"idempotence", ParamType::String, "relaxed",
           "when a block may be flushed: relaxed (until its idempotence point) or strict (only kernels "
           "idempotent throughout)"},
          {"drain_cpi", ParamType::String, "kernel",
           "CPI for drain estimates: kernel (the kernel's average over completed blocks, section 3.2) or block "
           "(each block's own so far; not in the paper)"},
          {"headroom_us", ParamType::Double, "0",
           "plan for latency_limit - headroom, leaving room for estimation errors (section 4.1 suggests it; "
           "not in the paper's runs)"}};
}

PreemptionSettings preemption_settings(const Params& p, std::vector<Technique> techniques, Technique fallback) {
  PreemptionSettings s;
  s.latency_limit_ns = p.get_double("latency_limit_us") * 1000.0;
  if (!(s.latency_limit_ns >= 0)) throw std::invalid_argument("parameter 'latency_limit_us' must be >= 0");
  const auto& idem = p.get_string("idempotence");
  if (idem != "relaxed" && idem != "strict")
    throw std::invalid_argument("parameter 'idempotence' expects relaxed or strict, found \"" + idem + "\"");
  s.strict_idempotence = idem == "strict";
  const auto& cpi = p.get_string("drain_cpi");
  if (cpi != "kernel" && cpi != "block")
    throw std::invalid_argument("parameter 'drain_cpi' expects kernel or block, found \"" + cpi + "\"");
  s.block_cpi = cpi == "block";
  s.headroom_ns = p.get_double("headroom_us") * 1000.0;
  if (!(s.headroom_ns >= 0) || s.headroom_ns > s.latency_limit_ns)
    throw std::invalid_argument("parameter 'headroom_us' must be in [0, latency_limit_us]");
  s.techniques = std::move(techniques);
  s.fallback = fallback;
  return s;
}

void ChimeraPreemptor::observe(const EngineView& v, std::span<const EngineEvent> events) {
  if (stats_.empty()) stats_.resize(static_cast<std::size_t>(v.launch_count()));
  for (const auto& e : events) {
    const auto word = static_cast<std::size_t>(e.block) / 64;
    const std::uint64_t bit = std::uint64_t{1} << (static_cast<unsigned>(e.block) % 64);
    switch (e.kind) {
      case EventKind::BlockSaved: {
        auto& s = stats_[static_cast<std::size_t>(e.launch)];
        if (s.interrupted_bits.empty())
          s.interrupted_bits.assign(static_cast<std::size_t>(v.launch(e.launch).total_blocks + 63) / 64, 0);
        if (!(s.interrupted_bits[word] & bit)) {
          s.interrupted_bits[word] |= bit;
          ++s.interrupted;
        }
        break;
      }
      case EventKind::BlockFinished: {
        auto& s = stats_[static_cast<std::size_t>(e.launch)];
        if (s.interrupted > 0 && (s.interrupted_bits[word] & bit)) {
          s.interrupted_bits[word] &= ~bit;
          --s.interrupted;
          break;  // its last piece is not its duration
        }
        s.block_ns += static_cast<double>(v.now() - e.tag);
        ++s.blocks;
        break;
      }
      case EventKind::LaunchFinished: {  // after its last block's event (a killed launch's blocks send none)
        auto& s = stats_[static_cast<std::size_t>(e.launch)];
        s.interrupted = 0;
        s.interrupted_bits = {};
        break;
      }
      default:
        break;
    }
  }
}

double ChimeraPreemptor::instructions_per_block(const EngineView& v, std::int32_t l) {
  const auto& k = *v.launch(l).kernel;
  return k.instructions_per_block && *k.instructions_per_block > 0 ? *k.instructions_per_block
                                                                   : kDefaultInstructionsPerBlock;
}

chimera::KernelObservation ChimeraPreemptor::kernel_observation(const EngineView& v, std::int32_t l) const {
  chimera::KernelObservation k;
  if (static_cast<std::size_t>(l) >= stats_.size()) return k;
  const auto& s = stats_[static_cast<std::size_t>(l)];
  if (s.blocks == 0) return k;  // nothing measured yet: drain costs unknown
  k.instructions_per_block = instructions_per_block(v, l);
  k.ns_per_instruction = s.block_ns / (static_cast<double>(s.blocks) * k.instructions_per_block);
  return k;
}

chimera::SmPlan ChimeraPreemptor::plan_sm(const EngineView& v, std::int32_t victim, int sm) const {
  const auto& launch = v.launch(victim);
  const double per_block = instructions_per_block(v, victim);
  const double until = launch.kernel->idempotent_until;
  std::vector<chimera::BlockObservation> blocks;
  for (const std::int32_t slot : v.sm(sm).residents) {
    const auto& b = v.resident(slot);
    if (b.launch != victim || b.state != BlockState::Running) continue;
    const double progress = v.progress(slot);
    chimera::BlockObservation o;
    o.id = slot;
    o.executed = progress * per_block;
    o.flushable = settings_.strict_idempotence ? until >= 1.0 : (until >= 1.0 || progress < until);
    o.context_bytes = launch.kernel->context_bytes_per_block;
    if (settings_.block_cpi && progress > 0) o.ns_per_instruction = static_cast<double>(b.total) / per_block;
    blocks.push_back(o);
  }
  chimera::CostModel model;
  model.switch_bytes_per_ns = static_cast<double>(launch.kernel->context_bytes_per_block) /
                              std::max<double>(1.0, static_cast<double>(v.switch_time(victim)));
  if (launch.kernel->context_bytes_per_block == 0) model.switch_bytes_per_ns = 1.0;
  model.flush_latency_ns = static_cast<double>(v.config().costs.flush_latency);
  const auto kernel = kernel_observation(v, victim);
  // A kernel whose blocks cannot be stopped (KernelProfile::stoppable) is drained, whatever the techniques.
  static const std::vector<Technique> drain_only{Technique::Drain};
  const bool stoppable = launch.kernel->stoppable;
  const auto costs = chimera::estimate_costs(blocks, kernel, model, stoppable ? settings_.techniques : drain_only);
  const Technique fallback[] = {stoppable ? settings_.fallback : Technique::Drain};
  auto fallback_costs = chimera::estimate_costs(blocks, kernel, model, fallback);
  if (fallback[0] == Technique::Flush) fallback_costs.clear();  // a flush cannot be forced
  return chimera::plan_sm(sm, costs, fallback_costs, target_latency(), blocks.size());
}

std::vector<chimera::SmPlan> ChimeraPreemptor::select(const EngineView& v, std::int32_t victim,
                                                      std::span<const int> sms, std::size_t count) const {
  std::vector<chimera::SmPlan> plans;
  plans.reserve(sms.size());
  for (const int sm : sms) plans.push_back(plan_sm(v, victim, sm));
  return chimera::select_sms(std::move(plans), count, target_latency());
}

std::vector<std::vector<chimera::SmPlan>> ChimeraPreemptor::select_groups(const EngineView& v, std::int32_t victim,
                                                                          const std::vector<std::vector<int>>& groups,
                                                                          std::size_t count) const {
  // Each group stands in select_sms as one SmPlan numbered by its index; the chosen ones are expanded afterwards.
  std::vector<std::vector<chimera::SmPlan>> per_group;
  std::vector<chimera::SmPlan> summaries;
  per_group.reserve(groups.size());
  summaries.reserve(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    chimera::SmPlan summary;
    summary.sm = static_cast<int>(g);
    auto& plans = per_group.emplace_back();
    for (const int sm : groups[g]) {
      plans.push_back(plan_sm(v, victim, sm));
      summary.latency = std::max(summary.latency, plans.back().latency);
      summary.overhead += plans.back().overhead;
    }
    summaries.push_back(std::move(summary));
  }
  std::vector<std::vector<chimera::SmPlan>> out;
  for (const auto& chosen : chimera::select_sms(std::move(summaries), count, target_latency()))
    out.push_back(std::move(per_group[static_cast<std::size_t>(chosen.sm)]));
  return out;
}

void ChimeraPreemptor::apply(const chimera::SmPlan& plan, Actions& a) {
  ++sm_plans_;
  if (plan.latency > settings_.latency_limit_ns) ++sm_plans_late_;
  for (const auto& c : plan.choices) {
    ++by_technique_[static_cast<int>(c.technique)];
    if (c.technique == Technique::Flush)
      a.flush(c.id);
    else if (c.technique == Technique::Switch)
      a.context_switch(c.id);
  }
}

std::vector<std::pair<std::string, double>> ChimeraPreemptor::metrics() const {
  return {{"preempted_sms", static_cast<double>(sm_plans_)},
          {"preempted_sms_estimated_late", static_cast<double>(sm_plans_late_)},
          {"blocks_flushed", static_cast<double>(by_technique_[static_cast<int>(Technique::Flush)])},
          {"blocks_drained", static_cast<double>(by_technique_[static_cast<int>(Technique::Drain)])},
          {"blocks_switched", static_cast<double>(by_technique_[static_cast<int>(Technique::Switch)])}};
}

}  // namespace gpusched::sim
