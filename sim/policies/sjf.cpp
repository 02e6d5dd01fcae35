// sjf: the oracle of seed 001 (section 6): shortest job first by true time alone, switching between
// launches at thread-block boundaries (no preemption of running blocks). docs/policies/sjf.md.
#include <algorithm>

#include "sim/policies/ordered_issue.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class SjfPolicy final : public Policy {
 public:
  explicit SjfPolicy(const Params& p) : issue_(p) {}
  std::string name() const override { return "sjf"; }
  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (structural(events)) {
      order_ = v.active();
      // Shortest time alone first; ties by release order (stable sort over the active list).
      std::stable_sort(order_.begin(), order_.end(),
                       [&](std::int32_t x, std::int32_t y) { return v.launch(x).alone < v.launch(y).alone; });
    }
    issue_.run(v, events, a, order_);
  }

 private:
  OrderedIssue issue_;
  std::vector<std::int32_t> order_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, sjf, "sjf",
                         "oracle shortest-job-first by true time alone, switching at block boundaries (seed 001)",
                         {gpusched::sim::placement_param()},
                         [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::SjfPolicy>(p); })
