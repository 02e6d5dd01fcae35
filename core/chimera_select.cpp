#include "core/chimera_select.h"

#include <algorithm>
#include <tuple>

namespace gpusched::chimera {

std::string_view to_string(Technique t) {
  switch (t) {
    case Technique::Flush: return "flush";
    case Technique::Drain: return "drain";
    case Technique::Switch: return "switch";
  }
  return "switch";
}

std::vector<Cost> estimate_costs(std::span<const BlockObservation> blocks, const KernelObservation& kernel,
                                 const CostModel& model, std::span<const Technique> allowed) {
  std::vector<Cost> out;
  out.reserve(blocks.size() * allowed.size());
  const bool known = kernel.instructions_per_block > 0 && kernel.ns_per_instruction > 0;
  double most_executed = 0.0;
  for (const auto& b : blocks) most_executed = std::max(most_executed, b.executed);
  // The kernel's IPC on this SM: every resident block issues 1/CPI instructions per ns.
  const double sm_ipc = known ? static_cast<double>(blocks.size()) / kernel.ns_per_instruction : kUnknown;
  for (const auto& b : blocks) {
    for (const Technique t : allowed) {
      Cost c{b.id, t, 0.0, 0.0};
      switch (t) {
        case Technique::Switch:
          c.latency = static_cast<double>(b.context_bytes) / model.switch_bytes_per_ns;
          c.overhead = known ? sm_ipc * 2.0 * c.latency : kUnknown;
          break;
        case Technique::Drain:
          if (known) {
            const double cpi = b.ns_per_instruction > 0 ? b.ns_per_instruction : kernel.ns_per_instruction;
            c.latency = std::max(0.0, kernel.instructions_per_block - b.executed) * cpi;
            c.overhead = most_executed - b.executed;
          } else {
            c.latency = c.overhead = kUnknown;
          }
          break;
        case Technique::Flush:
          if (!b.flushable) continue;  // past its idempotence point: not a candidate
          c.latency = model.flush_latency_ns;
          c.overhead = b.executed;
          break;
      }
      out.push_back(c);
    }
  }
  return out;
}

namespace {

void add_to_plan(SmPlan& plan, const Cost& c, double& switch_latency) {
  plan.choices.push_back(c);
  plan.overhead += c.overhead;
  if (c.technique == Technique::Switch) switch_latency += c.latency;
  else plan.latency = std::max(plan.latency, c.latency);
}

}  // namespace

SmPlan plan_sm(int sm, std::span<const Cost> costs, std::span<const Cost> fallback_costs, double latency_limit,
               std::size_t block_count) {
  std::vector<Cost> sorted(costs.begin(), costs.end());
  std::sort(sorted.begin(), sorted.end(), [](const Cost& a, const Cost& b) {
    return std::tie(a.overhead, a.latency, a.technique, a.id) < std::tie(b.overhead, b.latency, b.technique, b.id);
  });
  SmPlan plan;
  plan.sm = sm;
  double switch_latency = 0.0;
  std::vector<std::int32_t> chosen;
  chosen.reserve(block_count);
  for (const auto& c : sorted) {
    // Saves of one SM queue on its bandwidth: a switch meets the limit only if the SM's switches so far and
    // this one all finish within it.
    const double latency = c.technique == Technique::Switch ? switch_latency + c.latency : c.latency;
    if (latency > latency_limit) continue;
    if (std::find(chosen.begin(), chosen.end(), c.id) != chosen.end()) continue;
    chosen.push_back(c.id);
    add_to_plan(plan, c, switch_latency);
  }
  for (const auto& c : fallback_costs)  // lines 14-16: blocks no technique preempts in time are switched
    if (std::find(chosen.begin(), chosen.end(), c.id) == chosen.end()) {
      chosen.push_back(c.id);
      add_to_plan(plan, c, switch_latency);
    }
  plan.latency = std::max(plan.latency, switch_latency);
  return plan;
}

std::vector<SmPlan> select_sms(std::vector<SmPlan> candidates, std::size_t count, double latency_limit) {
  std::sort(candidates.begin(), candidates.end(), [](const SmPlan& a, const SmPlan& b) {
    return std::tie(a.overhead, a.latency, a.sm) < std::tie(b.overhead, b.latency, b.sm);
  });
  std::vector<SmPlan> out;
  std::vector<SmPlan> late;
  for (auto& c : candidates) {
    if (out.size() < count && c.latency <= latency_limit) out.push_back(std::move(c));
    else late.push_back(std::move(c));
  }
  if (out.size() < count) {
    std::stable_sort(late.begin(), late.end(), [](const SmPlan& a, const SmPlan& b) {
      return std::tie(a.latency, a.overhead, a.sm) < std::tie(b.latency, b.overhead, b.sm);
    });
    for (auto& c : late) {
      if (out.size() == count) break;
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace gpusched::chimera
