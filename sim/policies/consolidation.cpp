// base: kernel consolidation (Ravi et al., HPDC 2011) as Kernelet's evaluation uses it for its BASE (seed 000,
// section 5.1): pending kernels are consolidated two at a time, in arrival order, into one launch whose blocks
// interleave (one of each in turn, as far as the SMs take them), without slicing and without a model; the
// next pair starts when both kernels of the current one have finished. The consolidated launch pays one
// launch overhead. docs/policies/kernelet.md says where this reading of "the kernel consolidation approach"
// comes from.
#include <cmath>

#include "sim/policies/issue.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class ConsolidationPolicy final : public Policy {
 public:
  explicit ConsolidationPolicy(const Params& p)
      : overhead_(static_cast<TimeNs>(std::llround(p.get_double("launch_overhead_us") * 1000.0))) {
    if (overhead_ < 0) throw std::invalid_argument("policy base: launch_overhead_us must be >= 0");
  }
  std::string name() const override { return "base"; }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (all_.empty()) all_ = all_sms(v);
    for (const auto& e : events)
      if (e.kind == EventKind::Timer) started_ = true;
    // The current pair is done when none of its kernels is still running: take the next two.
    bool busy = false;
    for (const std::int32_t l : pair_) busy |= v.launch(l).phase != LaunchPhase::Finished;
    if (!busy && !waiting_) {
      pair_.clear();
      for (const std::int32_t l : v.active())  // active() is in release order
        if (v.launch(l).phase == LaunchPhase::Released && pair_.size() < 2) pair_.push_back(l);
      if (!pair_.empty()) {
        started_ = overhead_ == 0;
        waiting_ = !started_;
        if (waiting_) a.set_timer(v.now() + overhead_, 0);
      }
    }
    if (started_) waiting_ = false;
    if (!started_) return;
    // Interleave: one block of each kernel in turn on each SM while either fits.
    for (const int sm : all_) {
      bool progress = true;
      while (progress) {
        progress = false;
        for (const std::int32_t l : pair_)
          if (v.launch(l).issuable() > 0 && a.fill(l, sm, 1) > 0) progress = true;
      }
    }
  }

 private:
  TimeNs overhead_;
  bool started_ = false, waiting_ = false;
  std::vector<std::int32_t> pair_, all_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, base, "base",
    "Kernelet's BASE (seed 000): Ravi et al.'s kernel consolidation, pending kernels run two at a "
    "time in arrival order as one interleaved launch",
    (std::vector<gpusched::sim::ParamSpec>{{"launch_overhead_us", gpusched::sim::ParamType::Double, "5",
                                            "cost of launching one consolidated pair, microseconds"}}),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::ConsolidationPolicy>(p); })
