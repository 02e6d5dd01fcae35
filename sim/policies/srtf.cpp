// srtf and srtf-adaptive: Shortest Remaining Time First thread-block scheduling with the Simple Slicing
// predictor (seed 001 section 5.1). docs/policies/srtf.md says what is modelled and how the lost parts
// were read.
//
// srtf: one launch runs on the GPU at a time. A launch that arrives while another runs is sampled on one
// SM (the sample SM takes no more blocks of the running launch and runs the sampled one once space frees);
// when its first blocks there finish, the predictor's remaining time for it is compared with the running
// launch's, and the shorter one runs from then on, the other SMs handing over as their blocks finish.
// Launches waiting with predictions are compared again at every block completion, so the GPU switches back
// if predictions change. Queued launches are sampled one at a time in arrival order. `sampling=false` is
// the paper's zero-sampling experiment: remaining times come from the true time alone.
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
#include <climits>
#include <optional>

#include "core/simple_slicing.h"
#include "sim/policies/chimera_preemption.h"
#include "sim/policies/issue.h"
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
        threshold_(adaptive ? p.get_double("threshold") : 0.0),
        residency_limit_(adaptive ? static_cast<int>(p.get_int("residency_limit")) : INT_MAX) {
    using chimera::Technique;
    if (preempt_)
      preemptor_.emplace(preemption_settings(p, {Technique::Flush, Technique::Drain, Technique::Switch}, Technique::Switch));
  }

  std::string name() const override { return preempt_ ? "srtf-chimera" : adaptive_ ? "srtf-adaptive" : "srtf"; }

  std::vector<std::pair<std::string, double>> metrics() const override {
    return preemptor_ ? preemptor_->metrics() : std::vector<std::pair<std::string, double>>{};
  }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (!predictor_) {
      predictor_.emplace(v.sm_count());
      all_ = all_sms(v);
    }
    bool changed = observe(v, events);
    if (preemptor_) preemptor_->observe(v, events);
    const std::int32_t before = running_;
    changed |= decide(v);
    if (preemptor_ && before >= 0 && running_ != before && running_ >= 0 && v.launch(before).phase == LaunchPhase::Released &&
        v.launch(before).issuable() > 0)
      hand_off(v, a, before);
    if (adaptive_) changed |= adapt(v, a);
    dispatch(v, a, changed ? std::span<const std::int32_t>(all_) : std::span<const std::int32_t>(v.freed_sms()));
  }

 private:
  // Feeds the predictor; returns true if what may run has changed.
  bool observe(const EngineView& v, std::span<const EngineEvent> events) {
    bool changed = false;
    for (const auto& e : events) {
      switch (e.kind) {
        case EventKind::LaunchReleased: {
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
          if (sampling_ == e.launch) sampling_ = -1;
          changed = true;
          break;
        default:
          changed = true;
      }
    }
    return changed;
  }

  bool has_prediction(const EngineView& v, std::int32_t l) const {
    if (!sampling_enabled_) return true;
    for (int sm = 0; sm < v.sm_count(); ++sm)
      if (predictor_->remaining_on_sm(l, sm)) return true;
    return false;
  }

  // Predicted remaining time: the latest SM's remaining time (all SMs would work on it in parallel), or,
  // without sampling, the true time alone scaled by the blocks not yet completed.
  TimeNs remaining(const EngineView& v, std::int32_t l) const {
    const auto& L = v.launch(l);
    if (!sampling_enabled_)
      return L.alone * (L.total_blocks - L.completed) / std::max<std::int64_t>(1, L.total_blocks);
    TimeNs r = 0;
    for (int sm = 0; sm < v.sm_count(); ++sm)
      if (const auto x = predictor_->remaining_on_sm(l, sm)) r = std::max(r, *x);
    return r;
  }

  // Predicted total time alone (T_pred): used for slowdown estimates.
  TimeNs total(const EngineView& v, std::int32_t l) const {
    if (!sampling_enabled_) return std::max<TimeNs>(1, v.launch(l).alone);
    TimeNs t = 1;
    for (int sm = 0; sm < v.sm_count(); ++sm)
      if (const auto x = predictor_->predicted_total_on_sm(l, sm)) t = std::max(t, *x);
    return t;
  }

  // Picks the running and sampled launches; returns true if either changed.
  bool decide(const EngineView& v) {
    const std::int32_t before_running = running_, before_sampling = sampling_;
    // A sample is complete once its blocks on the sample SM give a prediction: the shorter one runs.
    if (sampling_ >= 0 && predictor_->remaining_on_sm(sampling_, sample_sm_)) {
      std::erase(unsampled_, sampling_);
      if (running_ < 0 || remaining(v, sampling_) < remaining(v, running_)) running_ = sampling_;
      sampling_ = -1;
    }
    // Shortest predicted remaining time among the launches with blocks to issue and a prediction; with
    // none predicted (or the GPU idle), the first to arrive runs without being sampled.
    std::int32_t best = -1;
    for (const std::int32_t l : v.active()) {
      if (v.launch(l).issuable() == 0 || l == sampling_ || !has_prediction(v, l)) continue;
      if (best < 0 || remaining(v, l) < remaining(v, best)) best = l;
    }
    const bool running_done = running_ < 0 || v.launch(running_).issuable() == 0;
    if (best >= 0 && (running_done || remaining(v, best) < remaining(v, running_))) running_ = best;
    if (running_ >= 0 && v.launch(running_).issuable() == 0) running_ = -1;
    if (running_ < 0) {
      for (const std::int32_t l : v.active())
        if (v.launch(l).issuable() > 0 && l != sampling_) {
          running_ = l;
          std::erase(unsampled_, l);
          break;
        }
    }
    // Sample the next unsampled launch (arrival order) while another runs.
    if (sampling_enabled_ && sampling_ < 0 && running_ >= 0) {
      for (const std::int32_t l : unsampled_) {
        if (l == running_ || v.launch(l).issuable() == 0 || has_prediction(v, l)) continue;
        sampling_ = l;
        // The first SM of the GPU the running launch uses (SM 0 on one GPU), as in the paper's Figure 12.
        const int gpu = std::max(0, v.launch(running_).gpu);
        sample_sm_ = v.launch(l).gpu >= 0 && v.launch(l).gpu != gpu ? v.launch(l).gpu * v.sms_per_gpu()
                                                                     : gpu * v.sms_per_gpu();
        break;
      }
    }
    return running_ != before_running || sampling_ != before_sampling;
  }

  // SRTF/Adaptive: share when the SRTF order would be unfair; returns true if the mode changed.
  bool adapt(const EngineView& v, Actions& a) {
    std::vector<std::int32_t> order;
    for (const std::int32_t l : v.active())
      if (v.launch(l).issuable() > 0 && has_prediction(v, l)) order.push_back(l);
    bool share = false;
    if (order.size() >= 2 && sampling_ < 0) {
      std::stable_sort(order.begin(), order.end(),
                       [&](std::int32_t x, std::int32_t y) { return remaining(v, x) < remaining(v, y); });
      // Slowdown of each launch if run to completion in SRTF order from now: (finish - release) / alone.
      double lo = 1e300, hi = 0;
      TimeNs finish = v.now();
      for (const std::int32_t l : order) {
        finish += remaining(v, l);
        const double slowdown =
            static_cast<double>(finish - v.launch(l).release) / static_cast<double>(total(v, l));
        lo = std::min(lo, slowdown);
        hi = std::max(hi, slowdown);
      }
      share = hi - lo > threshold_;
    }
    const std::int32_t fastest = share ? order.front() : -1;
    if (fastest == capped_) return false;
    if (capped_ >= 0 && v.launch(capped_).phase != LaunchPhase::Finished) a.set_residency_cap(capped_, INT_MAX);
    if (fastest >= 0) a.set_residency_cap(fastest, residency_limit_);
    capped_ = fastest;
    sharers_ = share ? order : std::vector<std::int32_t>{};
    if (share) running_ = fastest;
    return true;
  }

  // srtf-chimera: the launch SRTF just stopped gives up every SM it holds (except the sample SM), each block
  // by the technique Chimera picks for it under the latency limit.
  void hand_off(const EngineView& v, Actions& a, std::int32_t from) {
    for (int sm = 0; sm < v.sm_count(); ++sm) {
      if ((sampling_ >= 0 && sm == sample_sm_) || v.launch(from).resident_per_sm[static_cast<std::size_t>(sm)] == 0)
        continue;
      preemptor_->apply(preemptor_->plan_sm(v, from, sm), a);
    }
  }

  void fill(const EngineView& v, Actions& a, std::int32_t l, int sm) {
    const std::int64_t n = a.fill(l, sm);
    for (std::int64_t i = 0; i < n; ++i) predictor_->on_block_start(l, sm, v.now());
  }

  void dispatch(const EngineView& v, Actions& a, std::span<const std::int32_t> candidates) {
    for (const std::int32_t sm : candidates) {
      if (sampling_ >= 0 && sm == sample_sm_) {
        fill(v, a, sampling_, sm);  // the sample SM runs only the sampled launch
        continue;
      }
      if (running_ >= 0) fill(v, a, running_, sm);
      // Sharing mode: the capped fastest launch leaves room that the others take, shortest first.
      for (const std::int32_t l : sharers_)
        if (l != running_ && v.launch(l).phase == LaunchPhase::Released) fill(v, a, l, sm);
    }
  }

  const bool adaptive_;
  const bool preempt_;
  std::optional<ChimeraPreemptor> preemptor_;
  const bool sampling_enabled_;
  const double threshold_;
  const int residency_limit_;
  std::optional<SimpleSlicingPredictor> predictor_;
  std::vector<std::int32_t> all_, unsampled_, sharers_;
  std::int32_t running_ = -1, sampling_ = -1, capped_ = -1;
  int sample_sm_ = 0;
};

ParamSpec sampling_param() {
  return ParamSpec{"sampling", ParamType::Bool, "true",
                   "sample arriving launches on one SM to predict them (false: remaining times from the true "
                   "time alone, the paper's zero-sampling experiment)"};
}

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, srtf, "srtf",
                         "shortest remaining time first with online Simple Slicing predictions, sampling new "
                         "launches on one SM (seed 001)",
                         {gpusched::sim::sampling_param()}, [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::SrtfPolicy>(p, false);
                         })

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, srtf_adaptive, "srtf-adaptive",
    "SRTF that shares SMs when predicted slowdowns diverge, capping the fastest launch's residency (seed 001)",
    (std::vector<gpusched::sim::ParamSpec>{
        gpusched::sim::sampling_param(),
        {"threshold", gpusched::sim::ParamType::Double, "0.5",
         "share when max - min predicted slowdown exceeds this"},
        {"residency_limit", gpusched::sim::ParamType::Int, "3",
         "blocks per SM of the fastest launch while sharing"}}),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::SrtfPolicy>(p, true); })

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, srtf_chimera, "srtf-chimera",
    "SRTF whose hand-offs preempt the running launch with Chimera's per-block flush/drain/switch choice under "
    "a latency limit (beyond seeds 001 and 003)",
    [] {
      std::vector<gpusched::sim::ParamSpec> p{gpusched::sim::sampling_param()};
      for (auto& x : gpusched::sim::preemption_params()) p.push_back(x);
      return p;
    }(),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::SrtfPolicy>(p, false, true); })
