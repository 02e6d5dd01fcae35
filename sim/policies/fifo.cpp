// fifo: the hardware's left-over policy. Blocks issue in launch arrival order; a later launch's blocks
// only once all earlier launches' blocks are issued. Placement round-robin (Fermi, Kepler) or to the SM
// with the most free resources (Maxwell and later; Gilman et al.). docs/policies/fifo.md.
#include "sim/policies/ordered_issue.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class FifoPolicy final : public Policy {
 public:
  explicit FifoPolicy(const Params& p) : issue_(p) {}
  std::string name() const override { return "fifo"; }
  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    issue_.run(v, events, a, v.active());
  }

 private:
  OrderedIssue issue_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, fifo, "fifo",
                         "hardware left-over policy: blocks in arrival order, a later launch only once earlier ones "
                         "have issued all blocks",
                         {gpusched::sim::placement_param()},
                         [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::FifoPolicy>(p); })
