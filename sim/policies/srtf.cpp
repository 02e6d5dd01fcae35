// srtf and srtf-adaptive: Shortest Remaining Time First thread-block scheduling with the Simple Slicing
// predictor (seed 001 section 5.1). docs/policies/srtf.md says what is modelled and how the lost parts
// were read.
//
// srtf: one launch runs on the GPU at a time. A launch that arrives while another runs is sampled on one
// SM (the sample SM takes no more blocks of the running launch and runs the sampled one once space frees);
// when its first blocks there finish, the predictor's remaining time for it is compared with the running
// launch's, and the shorter one runs from then on, the other SMs handing over as their blocks finish.
// Launches waiting with predictions are compared again at every block completion, so the GPU switches back
// if predictions change. Queued launches are sampled one at a time in arrival order (`samples=K`: up to K at
// once, each on its own SM). `sampling=false` is the paper's zero-sampling experiment: remaining times come from
// the true time alone. `remaining=gpu` reads a launch's remaining time from its blocks left on the whole GPU
// instead of the largest of its SMs' predictions.
//
// srtf-chimera (not in either paper): as srtf, but a hand-off does not wait for the running launch's blocks:
// when SRTF switches to a shorter launch while the running one still has blocks to issue, every SM holding
// the running launch's blocks is preempted with Chimera's per-block choice (Algorithm 1 lines 2-17) under
// the latency limit; the preempted blocks are issued first when their launch runs again.
//
// srtf-adaptive: as srtf, but when the predicted slowdowns of the active launches under SRTF differ by
// more than `threshold`, it shares the GPU: the launch with the shortest remaining time is limited to
// `residency_limit` blocks per SM and the others fill the rest.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <memory_resource>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "core/simple_slicing.h"
#include "sim/policies/chimera_preemption.h"
#include "sim/policies/issue.h"
#include "sim/policies/room_index.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class SrtfPolicy final : public Policy {
 public:
  SrtfPolicy(const Params& p, bool adaptive, bool preempt = false)
      : adaptive_(adaptive),
        preempt_(preempt),
        sampling_enabled_(p.get_bool("sampling")),
        gpu_remaining_(parse_remaining(p.get_string("remaining"))),
        sample_slots_(static_cast<int>(p.get_int("samples"))),
        threshold_(adaptive ? p.get_double("threshold") : 0.0),
        residency_limit_(adaptive ? static_cast<int>(p.get_int("residency_limit")) : INT_MAX) {
    if (sample_slots_ < 1) throw std::invalid_argument("parameter 'samples' must be at least 1");
    using chimera::Technique;
    if (preempt_)
      preemptor_.emplace(
          preemption_settings(p, {Technique::Flush, Technique::Drain, Technique::Switch}, Technique::Switch));
  }

  std::string name() const override { return preempt_ ? "srtf-chimera" : adaptive_ ? "srtf-adaptive" : "srtf"; }

  std::vector<std::pair<std::string, double>> metrics() const override {
    return preemptor_ ? preemptor_->metrics() : std::vector<std::pair<std::string, double>>{};
  }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (!predictor_) {
      // Only the per-SM maxima the readings below ask for are kept (srtf-adaptive's slowdowns need the total).
      predictor_.emplace(v.sm_count(), SimpleSlicingPredictor::Tracking{.max_remaining = !gpu_remaining_,
                                                                        .max_total = adaptive_ && !gpu_remaining_,
                                                                        .gpu = gpu_remaining_});
      const auto n = static_cast<std::size_t>(v.launch_count());
      seq_.assign(n, -1);
      dirty_mark_.assign(n, 0);
      in_ready_.assign(n, 0);
      ready_it_.assign(n, ready_.end());
      in_issuing_.assign(n, 0);
      ready_key_.assign(n, 0);
      changed_mark_.assign(n, 0);
      class_bit_.assign(n, 0);
      ready_per_class_.assign(64, 0);
    }
    bool changed = observe(v, events);
    if (preemptor_) preemptor_->observe(v, events);
    const std::int32_t before = running_;
    changed |= decide(v);
    if (preemptor_ && before >= 0 && running_ != before && running_ >= 0 &&
        v.launch(before).phase == LaunchPhase::Released && v.launch(before).issuable() > 0)
      hand_off(v, a, before);
    if (preemptor_ && before >= 0) {
      mark(before);
      room_.reset_all();  // flushed and saved blocks free resources outside the freed-SM lists
    }
    if (adaptive_) changed |= adapt(v, a);
    dispatch(v, a, changed);
  }

 private:
  // The launches being sampled, each on its own SM (at most `samples`; the paper's one at a time is 1).
  struct Sample {
    std::int32_t launch;
    int sm;
    bool operator==(const Sample&) const = default;
  };

  // Feeds the predictor; returns true if what may run has changed.
  bool observe(const EngineView& v, std::span<const EngineEvent> events) {
    bool changed = false;
    for (const auto& e : events) {
      if (e.launch >= 0) mark(e.launch);
      switch (e.kind) {
        case EventKind::LaunchReleased: {
          seq_[static_cast<std::size_t>(e.launch)] = next_seq_++;  // its place in v.active()
          class_bit_[static_cast<std::size_t>(e.launch)] = room_.class_bit(v, e.launch);
          const auto& L = v.launch(e.launch);
          predictor_->on_launch(e.launch, L.total_blocks, L.residency, v.now());
          unsampled_.push_back(e.launch);
          changed = true;
          break;
        }
        case EventKind::BlockFinished:
          predictor_->on_block_end(e.launch, e.sm, v.now() - e.tag, v.now());
          break;
        case EventKind::LaunchFinished:
          predictor_->on_kernel_end(e.launch, v.now());
          std::erase(unsampled_, e.launch);
          if (running_ == e.launch) running_ = -1;
          std::erase_if(samples_, [&](const Sample& x) { return x.launch == e.launch; });
          changed = true;
          break;
        default:
          changed = true;
      }
    }
    return changed;
  }

  static bool parse_remaining(const std::string& s) {
    if (s == "sm-max") return false;
    if (s == "gpu") return true;
    throw std::invalid_argument("parameter 'remaining' expects sm-max or gpu, found \"" + s + "\"");
  }

  bool has_prediction(std::int32_t l) const { return !sampling_enabled_ || predictor_->has_prediction(l); }

  // Predicted remaining time: `sm-max`, the latest SM's remaining time (all SMs would work on it in parallel);
  // `gpu`, the launch's blocks left over the whole GPU at the SMs' mean rate; or, without sampling, the true
  // time alone scaled by the blocks not yet completed.
  TimeNs remaining(const EngineView& v, std::int32_t l) const {
    const auto& L = v.launch(l);
    if (!sampling_enabled_) return L.alone * (L.total_blocks - L.completed) / std::max<std::int64_t>(1, L.total_blocks);
    const auto r = gpu_remaining_ ? predictor_->gpu_remaining(l) : predictor_->max_remaining(l);
    return std::max<TimeNs>(0, r.value_or(0));
  }

  // Predicted total time alone (T_pred): used for slowdown estimates.
  TimeNs total(const EngineView& v, std::int32_t l) const {
    if (!sampling_enabled_) return std::max<TimeNs>(1, v.launch(l).alone);
    const auto t = gpu_remaining_ ? predictor_->gpu_predicted_total(l) : predictor_->max_predicted_total(l);
    return std::max<TimeNs>(1, t.value_or(1));
  }

  // Picks the running and sampled launches; returns true if either changed.
  bool decide(const EngineView& v) {
    const std::int32_t before_running = running_;
    bool samples_changed = false;
    refresh(v);
    // A sample is complete once its blocks on its sample SM give a prediction: the shorter one runs. (Samples
    // complete in slot order when several do at once.)
    std::erase_if(samples_, [&](const Sample& x) {
      if (!predictor_->remaining_on_sm(x.launch, x.sm)) return false;
      std::erase(unsampled_, x.launch);
      if (running_ < 0 || remaining(v, x.launch) < remaining(v, running_)) running_ = x.launch;
      samples_changed = true;
      return true;
    });
    // Shortest predicted remaining time among the launches with blocks to issue and a prediction; with
    // none predicted (or the GPU idle), the first to arrive runs without being sampled.
    // (ready_ holds exactly those launches in SRTF order, ties in v.active() order.)
    std::int32_t best = -1;
    for (const auto& r : ready_)
      if (!is_sampled(r.launch)) {
        best = r.launch;
        break;
      }
    // A launch the GPU cannot start (every resident grid held by others) is not running: it would keep the GPU idle.
    const bool running_done = running_ < 0 || v.launch(running_).issuable() == 0 || !v.can_start(running_);
    if (best >= 0 && (running_done || remaining(v, best) < remaining(v, running_))) running_ = best;
    if (running_ >= 0 && (v.launch(running_).issuable() == 0 || !v.can_start(running_))) running_ = -1;
    if (running_ < 0) {
      for (const auto& [seq, l] : issuing_)  // the launches of v.active() with blocks to issue, in its order
        if (!is_sampled(l) && v.can_start(l)) {
          running_ = l;
          std::erase(unsampled_, l);
          break;
        }
    }
    // Sample the next unsampled launches (arrival order) while another runs, one per free sample slot (the paper
    // samples one at a time: `samples` = 1).
    if (sampling_enabled_ && running_ >= 0 && static_cast<int>(samples_.size()) < sample_slots_) {
      for (const std::int32_t l : unsampled_) {
        if (static_cast<int>(samples_.size()) >= sample_slots_) break;
        if (l == running_ || v.launch(l).issuable() == 0 || has_prediction(l) || is_sampled(l)) continue;
        // Not started, so on no GPU yet: none of the launches after it can start either (a pass over them all at
        // every event made a long queue quadratic).
        if (!v.can_start(l)) break;
        // The first SMs of the GPU the running launch uses (SM 0 on one GPU for the first slot), as in the paper's
        // Figure 12.
        const int gpu = std::max(0, v.launch(running_).gpu);
        const int base =
            v.launch(l).gpu >= 0 && v.launch(l).gpu != gpu ? v.launch(l).gpu * v.sms_per_gpu() : gpu * v.sms_per_gpu();
        for (int slot = 0; slot < std::min(sample_slots_, v.sms_per_gpu()); ++slot)
          if (!is_sample_sm(base + slot)) {
            samples_.push_back(Sample{l, base + slot});
            samples_changed = true;
            break;
          }
      }
    }
    return running_ != before_running || samples_changed;
  }

  bool is_sampled(std::int32_t l) const {
    return std::any_of(samples_.begin(), samples_.end(), [&](const Sample& x) { return x.launch == l; });
  }
  const Sample* sample_on(int sm) const {
    for (const auto& x : samples_)
      if (x.sm == sm) return &x;
    return nullptr;
  }
  bool is_sample_sm(int sm) const { return sample_on(sm) != nullptr; }

  // SRTF/Adaptive: share when the SRTF order would be unfair; returns true if the mode changed.
  // The order is ready_: the active launches with blocks to issue and a prediction, by predicted remaining
  // time, ties in v.active() order.
  bool adapt(const EngineView& v, Actions& a) {
    refresh(v);  // a hand-off may have changed what is left to issue
    bool share = false;
    if (ready_.size() >= 2 && samples_.empty()) {
      // Slowdown of each launch if run to completion in SRTF order from now: (finish - release) / alone.
      const auto slowdown = [&](std::int32_t l, TimeNs finish) {
        return static_cast<double>(finish - v.launch(l).release) / static_cast<double>(total(v, l));
      };
      // The first and the last launch's slowdowns are two of those the pass below computes (the last finishes
      // after all the others: now + the sum of every remaining time), so when they already differ by more than
      // the threshold, either way round, the spread does too, and the pass over every queued launch is not
      // needed. Same doubles as the pass computes, so the decision is the same.
      const Ready& first = *ready_.begin();
      const Ready& last = *ready_.rbegin();
      if (std::abs(slowdown(last.launch, v.now() + ready_sum_) - slowdown(first.launch, v.now() + first.remaining)) >
          threshold_) {
        share = true;
      } else {
        double lo = 1e300, hi = 0;
        TimeNs finish = v.now();
        for (const auto& r : ready_) {
          finish += r.remaining;
          const double x = slowdown(r.launch, finish);
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
        share = hi - lo > threshold_;
      }
    }
    const std::int32_t fastest = share ? ready_.begin()->launch : -1;
    if (fastest == capped_) return false;
    if (capped_ >= 0 && v.launch(capped_).phase != LaunchPhase::Finished) a.set_residency_cap(capped_, INT_MAX);
    if (fastest >= 0) a.set_residency_cap(fastest, residency_limit_);
    capped_ = fastest;
    set_sharers(share);
    if (share) running_ = fastest;
    return true;
  }

  // Sharing mode's fill order is ready_ as it was when the capped launch last changed (later arrivals and
  // changed predictions join it only at the next change). Copying that order at every change made
  // srtf-adaptive quadratic in the queue; instead it is kept as the present ready_ together with the old
  // entries of the launches that changed since (changed_old_), merged when filling.
  void set_sharers(bool share) {
    for (const std::int32_t l : changed_) changed_mark_[static_cast<std::size_t>(l)] = 0;
    changed_.clear();
    changed_old_.clear();
    changed_classes_ = 0;
    sharing_ = share;
  }

  // Called before launch l's ready_ entry changes.
  void note_change(std::int32_t l) {
    const auto i = static_cast<std::size_t>(l);
    if (!sharing_ || changed_mark_[i]) return;
    changed_mark_[i] = 1;
    changed_.push_back(l);
    if (in_ready_[i]) {
      changed_old_.insert(Ready{ready_key_[i], seq_[i], l});
      changed_classes_ |= class_bit_[i];
    }
  }

  // srtf-chimera: the launch SRTF just stopped gives up every SM it holds (except the sample SM), each block
  // by the technique Chimera picks for it under the latency limit.
  void hand_off(const EngineView& v, Actions& a, std::int32_t from) {
    for (int sm = 0; sm < v.sm_count(); ++sm) {
      if (is_sample_sm(sm) || v.launch(from).resident_per_sm[static_cast<std::size_t>(sm)] == 0) continue;
      preemptor_->apply(preemptor_->plan_sm(v, from, sm), a);
    }
  }

  void fill(const EngineView& v, Actions& a, std::int32_t l, int sm) {
    // A hand-off visits every SM, most of them full: the inline resource check spares those the engine's fill.
    if (!v.resources_fit(l, sm, 1)) return;
    const std::int64_t n = a.fill(l, sm);
    for (std::int64_t i = 0; i < n; ++i) predictor_->on_block_start(l, sm, v.now());
    if (n > 0) mark(l);
  }

  // The queued launches, kept ordered as they change instead of compared all at every event (issue
  // "Speed": a pass over every queued launch per block event made srtf quadratic in the queue).
  void mark(std::int32_t l) {
    if (!dirty_mark_[static_cast<std::size_t>(l)]) {
      dirty_mark_[static_cast<std::size_t>(l)] = 1;
      dirty_.push_back(l);
    }
  }

  std::size_t class_index(std::int32_t l) const {
    return static_cast<std::size_t>(std::countr_zero(class_bit_[static_cast<std::size_t>(l)]));
  }

  void refresh(const EngineView& v) {
    for (const std::int32_t l : dirty_) {
      const auto i = static_cast<std::size_t>(l);
      dirty_mark_[i] = 0;
      const auto& L = v.launch(l);
      const bool issuing = L.phase == LaunchPhase::Released && L.issuable() > 0;
      if (issuing != static_cast<bool>(in_issuing_[i])) {
        if (issuing)
          issuing_.emplace(seq_[i], l);
        else
          issuing_.erase({seq_[i], l});
        in_issuing_[i] = issuing;
      }
      const bool ready = issuing && has_prediction(l);
      const TimeNs key = ready ? remaining(v, l) : 0;
      if (ready == static_cast<bool>(in_ready_[i]) && (!ready || key == ready_key_[i])) continue;  // unchanged
      note_change(l);
      if (in_ready_[i] && ready) {
        // Re-keyed (the running launch at nearly every block end): its node is reused, and put back where it was
        // when it keeps its place among its neighbours (the shortest launch stays first as its time falls), so
        // neither the allocator nor a search from the root is paid.
        const auto next = std::next(ready_it_[i]);
        auto node = ready_.extract(ready_it_[i]);
        node.value().remaining = key;
        ready_sum_ += key - ready_key_[i];
        ready_key_[i] = key;
        ready_it_[i] = ready_.insert(next, std::move(node));
        continue;
      }
      if (in_ready_[i]) {
        ready_.erase(ready_it_[i]);
        ready_sum_ -= ready_key_[i];
        if (--ready_per_class_[class_index(l)] == 0) ready_classes_ &= ~class_bit_[i];
        in_ready_[i] = 0;
      }
      if (ready) {
        ready_key_[i] = key;
        ready_it_[i] = ready_.insert(Ready{key, seq_[i], l}).first;
        ready_sum_ += key;
        if (ready_per_class_[class_index(l)]++ == 0) ready_classes_ |= class_bit_[i];
        in_ready_[i] = 1;
      }
    }
    dirty_.clear();
  }

  void dispatch(const EngineView& v, Actions& a, bool every_sm) {
    room_.on_freed(v.freed_sms());
    if (!every_sm) {
      for (const std::int32_t sm : v.freed_sms()) dispatch_sm(v, a, sm);
      return;
    }
    // Every SM, in order, skipping those where no block of the launches that would be filled fits.
    std::uint64_t classes = sharing_ ? changed_classes_ | ready_classes_ : 0;
    if (running_ >= 0) classes |= class_bit_[static_cast<std::size_t>(running_)];
    for (const auto& x : samples_) classes |= class_bit_[static_cast<std::size_t>(x.launch)];
    room_.for_each_sm(v, classes, [&](int sm) { dispatch_sm(v, a, sm); });
  }

  void dispatch_sm(const EngineView& v, Actions& a, int sm) {
    if (const Sample* x = sample_on(sm)) {
      fill(v, a, x->launch, sm);  // a sample SM runs only its sampled launch
      return;
    }
    if (running_ >= 0) fill(v, a, running_, sm);
    if (sharing_ && room_.any_fits(v, changed_classes_ | ready_classes_, sm)) fill_sharers(v, a, sm);
  }

  // Sharing mode: the capped fastest launch leaves room that the others take, shortest first. Skips only
  // sharers the engine would give nothing: finished, nothing left to issue, or no room for a block of their
  // footprint on the SM (fills only take room, so that footprint stays out for the rest of the pass; the
  // pass stops once every footprint among the sharers is out).
  void fill_sharers(const EngineView& v, Actions& a, int sm) {
    const std::uint64_t present = changed_classes_ | ready_classes_;
    std::uint64_t out = 0;
    auto now_it = ready_.begin();
    auto old_it = changed_old_.begin();
    while ((present & ~out) != 0) {
      // The next sharer of the order: from the present ready_ unless its entry changed since, else the old one.
      while (now_it != ready_.end() && changed_mark_[static_cast<std::size_t>(now_it->launch)]) ++now_it;
      const bool from_old = old_it != changed_old_.end() && (now_it == ready_.end() || *old_it < *now_it);
      if (!from_old && now_it == ready_.end()) break;
      const std::int32_t l = from_old ? (old_it++)->launch : (now_it++)->launch;
      if (l == running_ || v.launch(l).phase != LaunchPhase::Released || v.launch(l).issuable() == 0) continue;
      if (v.resource_room(l, sm) == 0) {
        const std::uint64_t bit = class_bit_[static_cast<std::size_t>(l)];
        if (bit != RoomIndex::kOther) out |= bit;
        continue;
      }
      fill(v, a, l, sm);
    }
  }

  const bool adaptive_;
  const bool preempt_;
  std::optional<ChimeraPreemptor> preemptor_;
  const bool sampling_enabled_;
  const bool gpu_remaining_;  // `remaining=gpu`
  const int sample_slots_;    // `samples`
  const double threshold_;
  const int residency_limit_;
  std::optional<SimpleSlicingPredictor> predictor_;
  std::vector<std::int32_t> unsampled_;
  RoomIndex room_;
  std::vector<std::uint64_t> class_bit_;       // per launch: its footprint class in room_
  std::vector<std::int64_t> ready_per_class_;  // launches in ready_ per footprint class (63: the rest)
  std::uint64_t ready_classes_ = 0;            // the classes with launches in ready_
  bool sharing_ = false;
  std::vector<std::int32_t> changed_;  // launches whose ready_ entry changed since sharing began
  std::vector<char> changed_mark_;
  std::uint64_t changed_classes_ = 0;
  // Launches with blocks to issue and a prediction, by (remaining, place in v.active()), with the sum of
  // their remaining times; launches with blocks to issue by place in v.active(); the launches whose entries
  // may be stale (an event or a fill touched them since the last refresh).
  struct Ready {
    TimeNs remaining;
    std::int64_t seq;
    std::int32_t launch;
    auto operator<=>(const Ready&) const = default;
  };
  // The ordered sets' nodes come from one pool, so that they sit together: allocated from the general heap they lay
  // between the predictor's per-launch arrays, one node a few kilobytes from the next, and every level of a search was
  // a cache miss (the search that re-positions a launch was 9 % of srtf-adaptive on a queue of 2000 launches).
  std::pmr::unsynchronized_pool_resource node_pool_;
  std::pmr::set<Ready> ready_{&node_pool_}, changed_old_{&node_pool_};
  std::vector<std::pmr::set<Ready>::iterator> ready_it_;  // per launch in ready_: its entry
  TimeNs ready_sum_ = 0;
  std::pmr::set<std::pair<std::int64_t, std::int32_t>> issuing_{&node_pool_};
  std::vector<std::int64_t> seq_;
  std::int64_t next_seq_ = 0;
  std::vector<TimeNs> ready_key_;
  std::vector<char> in_ready_, in_issuing_, dirty_mark_;
  std::vector<std::int32_t> dirty_;
  std::int32_t running_ = -1, capped_ = -1;
  std::vector<Sample> samples_;
};

ParamSpec sampling_param() {
  return ParamSpec{"sampling", ParamType::Bool, "true",
                   "sample arriving launches on one SM to predict them (false: remaining times from the true "
                   "time alone, the paper's zero-sampling experiment)"};
}

ParamSpec samples_param() {
  return ParamSpec{"samples", ParamType::Int, "1",
                   "launches sampled at once, each on its own SM (the paper samples one at a time: 1)"};
}

ParamSpec remaining_param() {
  return ParamSpec{"remaining", ParamType::String, "sm-max",
                   "a launch's predicted remaining time: sm-max (the largest over the SMs with a prediction, each "
                   "assuming B / S blocks on it) or gpu (its blocks left on the whole GPU at the SMs' mean t / R)"};
}

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, srtf, "srtf",
                         "shortest remaining time first with online Simple Slicing predictions, sampling new "
                         "launches on one SM (seed 001)",
                         {gpusched::sim::sampling_param(), gpusched::sim::remaining_param(),
                          gpusched::sim::samples_param()},
                         [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::SrtfPolicy>(p, false);
                         })

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, srtf_adaptive, "srtf-adaptive",
    "SRTF that shares SMs when predicted slowdowns diverge, capping the fastest launch's residency (seed 001)",
    (std::vector<gpusched::sim::ParamSpec>{
        gpusched::sim::sampling_param(),
        gpusched::sim::remaining_param(),
        gpusched::sim::samples_param(),
        {"threshold", gpusched::sim::ParamType::Double, "0.5", "share when max - min predicted slowdown exceeds this"},
        {"residency_limit", gpusched::sim::ParamType::Int, "3", "blocks per SM of the fastest launch while sharing"}}),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::SrtfPolicy>(p, true); })

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, srtf_chimera, "srtf-chimera",
    "SRTF whose hand-offs preempt the running launch with Chimera's per-block flush/drain/switch choice under "
    "a latency limit (beyond seeds 001 and 003)",
    [] {
      std::vector<gpusched::sim::ParamSpec> p{gpusched::sim::sampling_param(), gpusched::sim::remaining_param(),
                                              gpusched::sim::samples_param()};
      for (auto& x : gpusched::sim::preemption_params()) p.push_back(x);
      return p;
    }(),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::SrtfPolicy>(p, false, true); })
