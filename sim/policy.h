// The policy interface: after each batch of simultaneous events the engine calls on_events with a
// read-only view and an Actions object. Policies keep their own state; they never touch the engine's.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/workload.h"
#include "sim/engine.h"

namespace gpusched::sim {

// A new submission of a workload's launches (seed 002's reordering): the order they are submitted in and
// the stream (hardware queue) of each, by workload index. Streams replace the workload's own stream
// order; explicit `after` dependencies stay.
struct Submission {
  std::vector<std::size_t> order;
  std::vector<std::string> stream;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // Called once before the run with each launch's time alone; a policy that reorders submissions
  // returns the new one. The runner maps results back to workload order.
  virtual std::optional<Submission> resubmit(const Workload& /*w*/, const GpuSpec& /*gpu*/,
                                             const std::vector<TimeNs>& /*alone*/) {
    return std::nullopt;
  }
  virtual void on_events(const EngineView& view, std::span<const EngineEvent> events, Actions& actions) = 0;
  // Figures particular to the policy, read once after the run (RunResult::policy_metrics).
  virtual std::vector<std::pair<std::string, double>> metrics() const { return {}; }
};

}  // namespace gpusched::sim
