// mpmax: Just-in-time MPMax (seed 001 section 5.2.2). Each launch that is still issuing sets aside, on
// every SM, room for one block of each co-running launch that has none there yet; the reservation is
// recomputed from the launches issuing at that instant, and vanishes when a launch runs alone (it then
// reoccupies the space). Launches issue in FIFO order, each until its MPMax limit on the SM is reached.
// No reservation is made for a launch whose block could never share an SM with the issuing launch's.
// docs/policies/mpmax.md.
#include <algorithm>

#include "sim/policies/issue.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class MpmaxPolicy final : public Policy {
 public:
  explicit MpmaxPolicy(const Params& p) : params_(p) {}
  std::string name() const override { return "mpmax"; }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (all_.empty()) {
      placement_.placement = resolve_placement(params_, v.gpu());
      all_ = all_sms(v);
    }
    const bool full = structural(events);
    const auto candidates = full ? std::span<const std::int32_t>(all_) : std::span<const std::int32_t>(v.freed_sms());
    for (const std::int32_t l : v.active()) {
      if (v.launch(l).issuable() == 0) continue;
      issue_blocks(v, a, l, candidates, placement_, [&](int sm) { return room_with_reservation(v, l, sm); });
    }
    // Reservations can be unsatisfiable together (each launch leaving room for the others on an empty SM):
    // an SM left empty takes one block of the first launch in FIFO order that fits, so nothing deadlocks.
    for (const std::int32_t sm : candidates) {
      if (v.sm(sm).blocks > 0) continue;
      for (const std::int32_t l : v.active())
        if (v.room_for(l, sm) > 0) {
          a.dispatch(l, sm, 1);
          break;
        }
    }
  }

 private:
  static bool pair_fits(const GpuSpec& g, const BlockFootprint& x, const BlockFootprint& y) {
    return x.threads + y.threads <= g.max_threads_per_sm && x.warps + y.warps <= g.max_warps_per_sm &&
           x.registers + y.registers <= g.registers_per_sm &&
           x.shared_memory + y.shared_memory <= g.shared_memory_per_sm && g.max_blocks_per_sm >= 2;
  }

  // Blocks of `l` that fit on `sm` while leaving room for one block of every other issuing launch that
  // has no block on this SM.
  static std::int64_t room_with_reservation(const EngineView& v, std::int32_t l, int sm) {
    const std::int64_t room = v.room_for(l, sm);
    if (room == 0) return 0;
    const auto& g = v.gpu();
    const auto& s = v.sm(sm);
    long threads = g.max_threads_per_sm - s.threads, warps = g.max_warps_per_sm - s.warps;
    long regs = g.registers_per_sm - s.registers, smem = g.shared_memory_per_sm - s.shared_memory;
    long slots = g.max_blocks_per_sm - s.blocks;
    for (const std::int32_t k : v.active()) {
      const auto& other = v.launch(k);
      if (k == l || other.issuable() == 0 || other.resident_per_sm[static_cast<std::size_t>(sm)] > 0) continue;
      if (other.gpu >= 0 && other.gpu != s.gpu) continue;
      if (!pair_fits(g, v.launch(l).footprint, other.footprint)) continue;  // could never share an SM
      threads -= other.footprint.threads;
      warps -= other.footprint.warps;
      regs -= other.footprint.registers;
      smem -= other.footprint.shared_memory;
      slots -= 1;
    }
    const auto& f = v.launch(l).footprint;
    long fit = std::min({slots, threads / f.threads, warps / f.warps});
    if (f.registers > 0) fit = std::min(fit, regs / f.registers);
    if (f.shared_memory > 0) fit = std::min(fit, smem / f.shared_memory);
    return std::max<std::int64_t>(0, std::min<std::int64_t>(room, fit));
  }

  Params params_;
  PlacementState placement_;
  std::vector<std::int32_t> all_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, mpmax, "mpmax",
                         "Just-in-time MPMax (seed 001): each launch leaves room on every SM for one block of each "
                         "co-running launch",
                         {gpusched::sim::placement_param()},
                         [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::MpmaxPolicy>(p); })
