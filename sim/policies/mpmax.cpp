// mpmax: Just-in-time MPMax (seed 001 section 5.2.2). Each launch that is still issuing sets aside, on
// every SM, room for one block of each co-running launch that has none there yet; the reservation is
// recomputed from the launches issuing at that instant, and vanishes when a launch runs alone (it then
// reoccupies the space). Launches issue in FIFO order, each until its MPMax limit on the SM is reached.
// No reservation is made for a launch whose block could never share an SM with the issuing launch's.
// docs/policies/mpmax.md.
#include <algorithm>
#include <climits>
#include <set>

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
      const auto n = static_cast<std::size_t>(v.launch_count());
      seq_.assign(n, -1);
      class_.assign(n, -1);
      where_.assign(n, Where::None);
    }
    const bool full = structural(events);
    const auto candidates = full ? std::span<const std::int32_t>(all_) : std::span<const std::int32_t>(v.freed_sms());
    if (v.gpu_count() > 1) {  // launches tied to GPUs: the plain passes (the grouping below assumes one GPU)
      issue_every_launch(v, a, candidates);
      return;
    }
    for (const auto& e : events) {
      if (e.launch < 0) continue;
      if (e.kind == EventKind::LaunchReleased) {
        seq_[static_cast<std::size_t>(e.launch)] = next_seq_++;  // its place in v.active()
        class_[static_cast<std::size_t>(e.launch)] = class_of(v, e.launch);
      }
      update(v, e.launch);
    }
    issue_in_order(v, a, candidates);
    // Reservations can be unsatisfiable together (each launch leaving room for the others on an empty SM):
    // an SM left empty takes one block of the first launch in FIFO order that fits, so nothing deadlocks.
    for (const std::int32_t sm : candidates) {
      if (v.sm(sm).blocks > 0) continue;
      for (const auto& [seq, l] : issuing_)  // (launches with nothing to issue have no room)
        if (v.room_for(l, sm) > 0) {
          a.dispatch(l, sm, 1);
          update(v, l);
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

  // The passes as the policy is defined: every issuing launch in FIFO order, each reservation summed over
  // every other issuing launch. Quadratic in the queue; kept for several GPUs.
  void issue_every_launch(const EngineView& v, Actions& a, std::span<const std::int32_t> candidates) {
    for (const std::int32_t l : v.active()) {
      if (v.launch(l).issuable() == 0) continue;
      issue_blocks(v, a, l, candidates, placement_, [&](int sm) { return room_with_reservation(v, l, sm); });
    }
    for (const std::int32_t sm : candidates) {
      if (v.sm(sm).blocks > 0) continue;
      for (const std::int32_t l : v.active())
        if (v.room_for(l, sm) > 0) {
          a.dispatch(l, sm, 1);
          break;
        }
    }
  }

  // The same decisions on one GPU without passing over every queued launch (issue "Speed"). Launches with no
  // block resident anywhere (nearly all of a long queue) and the same footprint and residency are alike: the
  // engine and the reservation treat them identically. So once one of them gets nothing, the rest of its
  // kind in the pass get nothing either, as long as room only shrinks: placing n >= 1 blocks of a launch
  // takes n blocks' room on an SM and frees at most one block's reservation there, and only a launch that
  // runs out of blocks frees its reservation on the SMs where it has none; that restarts every kind.
  void issue_in_order(const EngineView& v, Actions& a, std::span<const std::int32_t> candidates) {
    std::vector<char> spent(classes_.size(), 0);  // kinds that got nothing since the last restart
    std::int64_t cursor = 0;                      // next place in v.active() order
    for (;;) {
      std::pair<std::int64_t, std::int32_t> next{LLONG_MAX, -1};
      if (auto it = busy_.lower_bound({cursor, -1}); it != busy_.end()) next = *it;
      for (std::size_t c = 0; c < classes_.size(); ++c) {
        if (spent[c]) continue;
        if (auto it = idle_[c].lower_bound({cursor, -1}); it != idle_[c].end()) next = std::min(next, *it);
      }
      if (next.second < 0) break;
      const std::int32_t l = next.second;
      cursor = next.first + 1;
      const bool alike = where_[static_cast<std::size_t>(l)] == Where::Idle;
      const std::int64_t issued =
          issue_blocks(v, a, l, candidates, placement_, [&](int sm) { return room_with_reservation_fast(v, l, sm); });
      update(v, l);
      if (issued == 0 && alike) spent[static_cast<std::size_t>(class_[static_cast<std::size_t>(l)])] = 1;
      if (issued > 0 && v.launch(l).issuable() == 0 && candidates.size() > 1) std::fill(spent.begin(), spent.end(), 0);
    }
  }

  // Kinds of launch for issue_in_order: the same block footprint and residency.
  std::int32_t class_of(const EngineView& v, std::int32_t l) {
    const auto& L = v.launch(l);
    for (std::size_t c = 0; c < classes_.size(); ++c) {
      const auto& K = v.launch(classes_[c]);
      if (K.residency == L.residency && K.footprint == L.footprint) return static_cast<std::int32_t>(c);
    }
    classes_.push_back(l);
    idle_.emplace_back();
    issuing_per_class_.push_back(0);
    return static_cast<std::int32_t>(classes_.size() - 1);
  }

  // Files launch l as issuing with no block resident anywhere and nothing set on it (Idle: alike within its
  // kind), issuing otherwise (Busy), or not issuing.
  void update(const EngineView& v, std::int32_t l) {
    const auto i = static_cast<std::size_t>(l);
    const auto& L = v.launch(l);
    const bool issuing = L.phase == LaunchPhase::Released && L.issuable() > 0;
    const Where now = !issuing                                                                 ? Where::None
                      : L.resident == 0 && L.residency_cap == INT_MAX && L.allowed_sms.empty() ? Where::Idle
                                                                                               : Where::Busy;
    const Where was = where_[i];
    if (now == was) return;
    const auto c = static_cast<std::size_t>(class_[i]);
    const std::pair<std::int64_t, std::int32_t> key{seq_[i], l};
    if (was == Where::Idle) idle_[c].erase(key);
    if (was == Where::Busy) busy_.erase(key);
    if (was == Where::None) {
      issuing_.insert(key);
      ++issuing_per_class_[c];
    }
    if (now == Where::Idle) idle_[c].insert(key);
    if (now == Where::Busy) busy_.insert(key);
    if (now == Where::None) {
      issuing_.erase(key);
      --issuing_per_class_[c];
    }
    where_[i] = now;
  }

  // room_with_reservation from counts per kind instead of a pass over every issuing launch: the launches
  // reserved for on `sm` are the issuing ones of each kind less those with a block on `sm` (found among its
  // resident blocks) and less l itself.
  std::int64_t room_with_reservation_fast(const EngineView& v, std::int32_t l, int sm) {
    const std::int64_t room = v.room_for(l, sm);
    if (room == 0) return 0;
    reserved_.assign(issuing_per_class_.begin(), issuing_per_class_.end());
    seen_.clear();
    for (const std::int32_t slot : v.sm(sm).residents) {
      const std::int32_t k = v.resident(slot).launch;
      if (std::find(seen_.begin(), seen_.end(), k) != seen_.end()) continue;
      seen_.push_back(k);
      if (where_[static_cast<std::size_t>(k)] != Where::None)
        --reserved_[static_cast<std::size_t>(class_[static_cast<std::size_t>(k)])];
    }
    if (v.launch(l).resident_per_sm[static_cast<std::size_t>(sm)] == 0)
      --reserved_[static_cast<std::size_t>(class_[static_cast<std::size_t>(l)])];
    const auto& g = v.gpu();
    const auto& s = v.sm(sm);
    const auto& f = v.launch(l).footprint;
    long threads = g.max_threads_per_sm - s.threads, warps = g.max_warps_per_sm - s.warps;
    long regs = g.registers_per_sm - s.registers, smem = g.shared_memory_per_sm - s.shared_memory;
    long slots = g.max_blocks_per_sm - s.blocks;
    for (std::size_t c = 0; c < classes_.size(); ++c) {
      const long n = reserved_[c];
      const auto& other = v.launch(classes_[c]).footprint;
      if (n == 0 || !pair_fits(g, f, other)) continue;  // none, or could never share an SM
      threads -= n * other.threads;
      warps -= n * other.warps;
      regs -= n * other.registers;
      smem -= n * other.shared_memory;
      slots -= n;
    }
    long fit = std::min({slots, threads / f.threads, warps / f.warps});
    if (f.registers > 0) fit = std::min(fit, regs / f.registers);
    if (f.shared_memory > 0) fit = std::min(fit, smem / f.shared_memory);
    return std::max<std::int64_t>(0, std::min<std::int64_t>(room, fit));
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
  enum class Where : std::uint8_t { None, Idle, Busy };
  std::vector<std::int64_t> seq_;  // per launch: its place in v.active()
  std::int64_t next_seq_ = 0;
  std::vector<std::int32_t> class_;  // per launch: its kind
  std::vector<Where> where_;
  std::vector<std::int32_t> classes_;                                  // a launch of each kind
  std::vector<std::set<std::pair<std::int64_t, std::int32_t>>> idle_;  // per kind, Idle launches by place
  std::set<std::pair<std::int64_t, std::int32_t>> busy_, issuing_;     // Busy; Idle and Busy
  std::vector<long> issuing_per_class_;
  std::vector<long> reserved_;
  std::vector<std::int32_t> seen_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, mpmax, "mpmax",
                         "Just-in-time MPMax (seed 001): each launch leaves room on every SM for one block of each "
                         "co-running launch",
                         {gpusched::sim::placement_param()},
                         [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::MpmaxPolicy>(p); })
