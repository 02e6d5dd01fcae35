// serial: one launch at a time on the whole GPU, in arrival order. It defines each launch's time alone.
// docs/policies/serial.md.
#include "sim/policies/ordered_issue.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class SerialPolicy final : public Policy {
 public:
  explicit SerialPolicy(const Params& p) : issue_(p) {}
  std::string name() const override { return "serial"; }
  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    // The first active launch stays first until it finishes, so nothing else ever shares the GPU.
    issue_.run(v, events, a, v.active(), /*only_first=*/true);
  }

 private:
  OrderedIssue issue_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, serial, "serial",
                         "one launch at a time on the whole GPU, in arrival order (defines time alone)",
                         {gpusched::sim::placement_param()},
                         [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::SerialPolicy>(p); })
