// Kernelet (seed 000): kernels are sliced into launches of contiguous block ranges and two pending kernels at
// a time are co-scheduled, slice after slice, at the per-SM block ratio that balances their slice times
// (Eq. 8), the pair chosen by the highest co-scheduling profit (Eq. 1) among the pairs that survive PUR/MUR
// pruning (Algorithm 1, FindCoSchedule). Four policies share the machinery and differ in how they choose:
//   kernelet      the Markov-chain model (core/markov_model.h) predicts the IPCs;
//   kernelet-opt  the paper's OPT: every pair and ratio is simulated (one slice of each, side by side, under
//                 the run's interference model) instead of modelled (`oracle=decision`, the text's); or, with
//                 `oracle=rollout` (what Figure 13's bars show), an offline oracle in total time that
//                 pre-executes whole schedules;
//   kernelet-mc   one Monte Carlo sample of the paper's MC: a random pair at a random ratio (the `sample`
//                 parameter and the seed pick it; run many samples for the distribution of Figure 14);
//   base          Ravi et al.'s kernel consolidation as the paper uses it: the two oldest pending kernels run
//                 as one consolidated launch (blocks interleaved, no slicing, no model); the next pair starts
//                 when both have finished.
// Every slice is a launch and pays `launch_overhead_us` before its blocks may issue. docs/policies/kernelet.md.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/kernelet_plan.h"
#include "core/markov_calibration.h"
#include "core/random.h"
#include "sim/policies/issue.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

enum class Chooser { Model, Simulation, Random };

// kernelet-opt's two readings of OPT (docs/policies/kernelet.md, "OPT"): the text's oracle per decision, and an
// oracle in total time, never slower than the greedy algorithm it bounds, as Figure 13 shows OPT.
enum class Oracle { Decision, Rollout };

Oracle parse_oracle(const std::string& s) {
  if (s == "decision") return Oracle::Decision;
  if (s == "rollout") return Oracle::Rollout;
  throw std::invalid_argument("policy kernelet-opt: oracle must be decision or rollout, not '" + s + "'");
}

// One plan of Algorithm 1: two launches co-scheduled at a per-SM ratio, or `first` alone (second == -1).
struct Decision {
  std::int32_t first = -1, second = -1;
  int per_sm_first = 0, per_sm_second = 0;
  bool operator==(const Decision&) const = default;
};

// A whole run's plans in order, with what the model (Kernelet) and the measured CP (the text's OPT) would have
// chosen at each, and the run's total time.
struct Trajectory {
  std::vector<Decision> taken, model, measured;
  TimeNs makespan = 0;
};

// How a run of the rollout oracle decides: the first plans forced, the rest by `continuation`; `record`, when
// set, receives the trajectory.
struct Script {
  std::vector<Decision> forced;
  Chooser continuation = Chooser::Model;
  Trajectory* record = nullptr;
};

// Mean block time at residency r: the record sets' means, interpolated linearly, clamped outside them.
double mean_block_time(const KernelProfile& k, int r) {
  const auto& sets = k.record_sets;
  if (sets.empty()) return 1.0;
  if (r <= sets.front().residency) return sets.front().mean_ns;
  if (r >= sets.back().residency) return sets.back().mean_ns;
  for (std::size_t i = 1; i < sets.size(); ++i) {
    if (r > sets[i].residency) continue;
    const double t = static_cast<double>(r - sets[i - 1].residency) / (sets[i].residency - sets[i - 1].residency);
    return sets[i - 1].mean_ns + t * (sets[i].mean_ns - sets[i - 1].mean_ns);
  }
  return sets.back().mean_ns;
}

class KerneletPolicy final : public Policy {
 public:
  KerneletPolicy(const Params& p, Chooser chooser, std::string name)
      : chooser_(chooser),
        name_(std::move(name)),
        alpha_p_(p.get_double("alpha_p")),
        alpha_m_(p.get_double("alpha_m")),
        prune_rule_(kernelet::parse_prune_rule(p.get_string("prune"))),
        all_pruned_(kernelet::parse_all_pruned(p.get_string("all_pruned"))),
        solo_without_gain_(chooser != Chooser::Random && p.get_bool("solo_without_gain")),
        overhead_(static_cast<TimeNs>(std::llround(p.get_double("launch_overhead_us") * 1000.0))),
        max_overhead_(p.get_double("max_slice_overhead")),
        sample_(chooser == Chooser::Random ? static_cast<std::uint64_t>(p.get_int("sample")) : 0),
        oracle_(chooser == Chooser::Simulation ? parse_oracle(p.get_string("oracle")) : Oracle::Decision),
        rollouts_(chooser == Chooser::Simulation ? static_cast<int>(p.get_int("rollouts")) : 0),
        calibrated_(kernelet::parse_calibrated_inputs(p.get_string("inputs"), "policy " + name_)),
        shared_(std::make_shared<SharedCaches>()) {
    if (alpha_p_ < 0 || alpha_m_ < 0 || overhead_ < 0 || max_overhead_ < 0 || rollouts_ < 0)
      throw std::invalid_argument("policy " + name_ +
                                  ": alpha_p, alpha_m, launch_overhead_us, max_slice_overhead and rollouts must be "
                                  ">= 0");
  }
  // A run of the rollout oracle: the parent's parameters and caches, its plans from `script`.
  KerneletPolicy(const KerneletPolicy& parent, const Script* script)
      : chooser_(parent.chooser_),
        name_(parent.name_),
        alpha_p_(parent.alpha_p_),
        alpha_m_(parent.alpha_m_),
        prune_rule_(parent.prune_rule_),
        all_pruned_(parent.all_pruned_),
        solo_without_gain_(parent.solo_without_gain_),
        overhead_(parent.overhead_),
        max_overhead_(parent.max_overhead_),
        sample_(parent.sample_),
        oracle_(Oracle::Decision),
        rollouts_(0),
        calibrated_(parent.calibrated_),
        shared_(parent.shared_),
        script_(script) {}
  std::string name() const override { return name_; }

  std::vector<std::pair<std::string, double>> metrics() const override {
    if (oracle_ != Oracle::Rollout) return {};
    return {{"oracle_runs", static_cast<double>(oracle_runs_)},
            {"oracle_improvements", static_cast<double>(oracle_improvements_)},
            {"kernelet_makespan_ns", static_cast<double>(kernelet_makespan_)},
            {"greedy_opt_makespan_ns", static_cast<double>(greedy_makespan_)},
            {"oracle_makespan_ns", static_cast<double>(oracle_makespan_)}};
  }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    if (state_.empty()) init(v);
    bool changed = false;
    for (const auto& e : events) {
      if (e.kind == EventKind::LaunchReleased) release_rank_[static_cast<std::size_t>(e.launch)] = next_rank_++;
      if (e.kind == EventKind::LaunchReleased) a.set_slice_end(e.launch, 0);  // nothing issues before its first slice
      if (e.kind == EventKind::LaunchReleased) changed = true;                // R changes: a kernel arrives
      if (e.kind == EventKind::Timer) open_slice(v, a, static_cast<std::int32_t>(e.tag));
    }
    // Algorithm 1, lines 7-9: the co-schedule c is kept, slice after slice, while R does not change and both its
    // kernels still have blocks; FindCoSchedule runs again only when a kernel arrives or one of c's kernels has
    // no block left to issue (it leaves R). Another launch finishing the slice it started earlier changes
    // neither. (Before this rule the plan was recomputed on every launch's finish, and kernelet-mc drew a new
    // random pair each time.)
    for (const std::int32_t l : plan_) {
      const auto& L = v.launch(l);
      if (L.phase != LaunchPhase::Released || L.next_block >= L.total_blocks) changed = true;
    }
    if (changed || plan_.empty()) {
      replan(v);
      // A planned kernel whose slice is already open takes the new ratio for the blocks it still issues (a
      // kernel now running alone also gets its remaining blocks as that slice).
      for (const std::int32_t l : plan_) {
        const auto& st = state_[static_cast<std::size_t>(l)];
        if (!st.opened || st.waiting || v.launch(l).phase != LaunchPhase::Released) continue;
        a.set_residency_cap(l, st.cap);
        unblock(l);
        if (plan_.size() == 1 && v.launch(l).dispatch_limit < v.launch(l).total_blocks)
          a.set_slice_end(l, v.launch(l).total_blocks);
      }
    }
    // Start the next slice of each planned kernel whose previous slice has finished.
    for (const std::int32_t l : plan_) {
      auto& st = state_[static_cast<std::size_t>(l)];
      const auto& L = v.launch(l);
      if (L.phase != LaunchPhase::Released || st.waiting || L.next_block >= L.total_blocks) continue;
      if (st.opened && (L.completed < L.dispatch_limit || L.issuable() > 0)) continue;  // its slice still runs
      st.waiting = true;
      if (overhead_ > 0)
        a.set_timer(v.now() + overhead_, l);
      else
        open_slice(v, a, l);
    }
    issue_open_slices(v, a);
  }

 private:
  struct LaunchPlanState {
    bool waiting = false;        // a slice launch is pending its overhead
    bool opened = false;         // a slice has been opened (the launch's dispatch limit is ours)
    int cap = INT_MAX;           // blocks per SM in the current plan
    std::int64_t slice = 0;      // blocks per slice in the current plan
    std::int64_t min_slice = 0;  // section 4.1
    kernelet::PlanKernel plan;
  };

  void init(const EngineView& v) {
    all_ = all_sms(v);
    placement_.placement = v.gpu().placement;
    model_ = kernelet::sm_model_for(v.gpu());
    state_.resize(static_cast<std::size_t>(v.launch_count()));
    release_rank_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    next_rank_ = 0;
    group_of_.assign(static_cast<std::size_t>(v.launch_count()), -1);
    in_touched_.assign(static_cast<std::size_t>(v.launch_count()), 0);
    for (std::int32_t l = 0; l < v.launch_count(); ++l) {
      const auto& L = v.launch(l);
      auto& st = state_[static_cast<std::size_t>(l)];
      st.plan = kernelet::plan_kernel(*L.kernel, v.gpu(), model_, calibrated_);
      const KernelProfile& k = *L.kernel;
      st.min_slice = kernelet::smallest_slice(
          L.total_blocks, v.sms_per_gpu(), std::max(1, L.residency), [&k](int r) { return mean_block_time(k, r); },
          static_cast<double>(overhead_), max_overhead_);
    }
    rng_state_ = hash_draw(v.seed(), sample_, 0x6b65726e656c6574ULL);
    if (oracle_ == Oracle::Rollout && !script_) search(v);
  }

  // The rollout oracle (Bertsekas' fortified rollout with Kernelet as the base heuristic), run before the first
  // event: OPT is offline and knows every launch. The incumbent is the faster of two whole runs, Kernelet's and
  // the text's OPT (measured CP per decision). Then, `rollouts_` times, at a plan where the incumbent took one of
  // the two choices and the other was possible, the run is pre-executed with the incumbent's plans up to there,
  // the other choice there, and Kernelet's from then on; the faster whole run becomes the incumbent. The run then
  // carries out the incumbent's plans. Every run is deterministic, so the result is never slower than Kernelet
  // (or the text's OPT) with the same parameters on the same workload.
  void search(const EngineView& v) {
    std::vector<LaunchSpec> specs;
    for (std::int32_t l = 0; l < v.launch_count(); ++l) specs.push_back(v.spec(l));
    const auto run = [&](std::vector<Decision> forced, Chooser continuation) {
      Trajectory t;
      const Script script{std::move(forced), continuation, &t};
      KerneletPolicy nested(*this, &script);
      Engine engine(v.config(), specs);
      engine.run(nested);
      for (const auto& L : engine.launches()) t.makespan = std::max(t.makespan, L.finish);
      ++oracle_runs_;
      return t;
    };
    Trajectory best = run({}, Chooser::Model);
    kernelet_makespan_ = best.makespan;
    Trajectory greedy = run({}, Chooser::Simulation);
    greedy_makespan_ = greedy.makespan;
    if (greedy.makespan < best.makespan) best = std::move(greedy);
    // The steps are spread over the incumbent's plans: step j looks from plan j * plans / rollouts on.
    std::size_t next = 0;
    for (int j = 0; j < rollouts_; ++j) {
      std::size_t k =
          std::max(next, best.taken.size() * static_cast<std::size_t>(j) / static_cast<std::size_t>(rollouts_));
      const auto other = [&](std::size_t i) -> std::optional<Decision> {
        if (best.model[i] != best.taken[i]) return best.model[i];
        if (best.measured[i] != best.taken[i]) return best.measured[i];
        return std::nullopt;
      };
      std::optional<Decision> alternative;
      while (k < best.taken.size() && !(alternative = other(k))) ++k;
      if (!alternative) break;
      std::vector<Decision> forced(best.taken.begin(), best.taken.begin() + static_cast<std::ptrdiff_t>(k));
      forced.push_back(*alternative);
      Trajectory t = run(std::move(forced), Chooser::Model);
      if (t.makespan < best.makespan) {
        best = std::move(t);
        ++oracle_improvements_;
      }
      next = k + 1;
    }
    oracle_makespan_ = best.makespan;
    own_script_ = Script{std::move(best.taken), Chooser::Model, nullptr};
    script_ = &*own_script_;
  }

  // Issues the open slices' blocks, in release order as the active launches are (a kernel of an earlier plan
  // finishes the slice it started). Only two kinds of launch can place a block: those whose slice, cap or plan
  // changed in this batch (`touched_`: they try every SM), and waiting ones (a slice open, blocks to issue, no
  // room at their last look: `waiting_`), which can only find room on the SMs freed in this batch. Waiting
  // launches are kept per block footprint in release order, and a footprint that fits none of the freed SMs is
  // not visited at all: under a long queue hundreds wait, and visiting each at every block's end made the pass
  // the simulation's cost (issue "Speed"). Decisions are those of a pass over every launch with an open slice.
  void issue_open_slices(const EngineView& v, Actions& a) {
    const auto rank = [&](std::int32_t l) { return release_rank_[static_cast<std::size_t>(l)]; };
    std::sort(touched_.begin(), touched_.end(), [&](std::int32_t x, std::int32_t y) { return rank(x) < rank(y); });
    const bool freed = !v.freed_sms().empty();
    const bool most_free = placement_.placement == BlockPlacement::MostFree;
    if (freed && most_free) {
      freed_sorted_.assign(v.freed_sms().begin(), v.freed_sms().end());
      std::sort(freed_sorted_.begin(), freed_sorted_.end());  // ties go to the lowest SM id, as over all SMs
    }
    // heads_[g]: the next member of group g to visit; its size when the group has nothing to gain here.
    heads_.assign(waiting_.size(), 0);
    for (std::size_t g = 0; g < waiting_.size(); ++g) {
      const auto& m = waiting_[g].members;
      // Room only shrinks within a batch and appears only where resources were freed, so a footprint that no
      // freed SM has the resources for cannot place a block, whatever a launch's cap.
      const bool fits = freed && !m.empty() && std::any_of(v.freed_sms().begin(), v.freed_sms().end(), [&](int sm) {
                          return v.resources_fit(m.front().second, sm, 1);
                        });
      heads_[g] = fits ? 0 : m.size();
    }
    std::size_t t = 0;
    for (;;) {
      std::int64_t best = INT64_MAX;
      int from = -2;  // -1: touched_, else a group
      if (t < touched_.size()) {
        best = rank(touched_[t]);
        from = -1;
      }
      for (std::size_t g = 0; g < waiting_.size(); ++g)
        if (heads_[g] < waiting_[g].members.size() && waiting_[g].members[heads_[g]].first < best) {
          best = waiting_[g].members[heads_[g]].first;
          from = static_cast<int>(g);
        }
      if (from == -2) break;
      if (from == -1) {
        const std::int32_t l = touched_[t++];
        in_touched_[static_cast<std::size_t>(l)] = 0;
        const auto& L = v.launch(l);
        if (L.phase != LaunchPhase::Released || L.issuable() == 0) continue;
        issue_blocks(v, a, l, all_, placement_);
        if (L.issuable() > 0) join_waiting(v, l);
        continue;
      }
      auto& group = waiting_[static_cast<std::size_t>(from)];
      auto& head = heads_[static_cast<std::size_t>(from)];
      const std::int32_t l = group.members[head].second;
      const auto& L = v.launch(l);
      if (L.phase != LaunchPhase::Released) {  // finished (or killed)
        leave_waiting(l);
        continue;
      }
      if (L.issuable() == 0) {
        ++head;
        continue;
      }
      // Only the freed SMs can have room for a waiting launch. Most-free placement looks at them by id; round
      // robin's cursor counts over every SM, which issue_round_robin_among follows.
      const auto fs = v.freed_sms();
      const std::int64_t placed = most_free
                                      ? issue_blocks(v, a, l, freed_sorted_, placement_)
                                      : issue_round_robin_among(v, a, l, fs, static_cast<int>(all_.size()), placement_);
      if (placed == 0 &&
          std::none_of(fs.begin(), fs.end(), [&](std::int32_t sm) { return v.resources_fit(l, sm, 1); })) {
        head = group.members.size();  // this footprint fits no freed SM any more: its later launches neither
        continue;
      }
      if (L.issuable() == 0)
        leave_waiting(l);
      else
        ++head;
    }
    touched_.clear();
  }

  // Launch l's slice, cap or plan changed: it tries every SM at the next pass.
  void unblock(std::int32_t l) {
    leave_waiting(l);
    if (!in_touched_[static_cast<std::size_t>(l)]) {
      in_touched_[static_cast<std::size_t>(l)] = 1;
      touched_.push_back(l);
    }
  }

  void join_waiting(const EngineView& v, std::int32_t l) {
    const BlockFootprint& f = v.launch(l).footprint;
    std::size_t g = 0;
    while (g < waiting_.size() && !(waiting_[g].footprint == f)) ++g;
    if (g == waiting_.size()) {
      waiting_.push_back({f, {}});
      heads_.push_back(0);
    }
    auto& m = waiting_[g].members;
    const std::pair<std::int64_t, std::int32_t> key{release_rank_[static_cast<std::size_t>(l)], l};
    const auto pos = static_cast<std::size_t>(std::lower_bound(m.begin(), m.end(), key) - m.begin());
    m.insert(m.begin() + static_cast<std::ptrdiff_t>(pos), key);
    group_of_[static_cast<std::size_t>(l)] = static_cast<int>(g);
    // During a pass, every member before the head has been visited and l comes before the rest: it is not
    // visited again in this pass.
    if (pos <= heads_[g]) ++heads_[g];
  }

  void leave_waiting(std::int32_t l) {
    int& g = group_of_[static_cast<std::size_t>(l)];
    if (g < 0) return;
    auto& m = waiting_[static_cast<std::size_t>(g)].members;
    const std::pair<std::int64_t, std::int32_t> key{release_rank_[static_cast<std::size_t>(l)], l};
    const auto it = std::lower_bound(m.begin(), m.end(), key);
    const auto pos = static_cast<std::size_t>(it - m.begin());
    m.erase(it);
    if (static_cast<std::size_t>(g) < heads_.size() && pos < heads_[static_cast<std::size_t>(g)])
      --heads_[static_cast<std::size_t>(g)];
    g = -1;
  }

  // Opens the next slice of launch l: fresh blocks [next, next + slice) may issue, at most `cap` per SM.
  void open_slice(const EngineView& v, Actions& a, std::int32_t l) {
    auto& st = state_[static_cast<std::size_t>(l)];
    st.waiting = false;
    const auto& L = v.launch(l);
    if (L.phase != LaunchPhase::Released) return;
    const std::int64_t end = std::min(L.total_blocks, L.next_block + std::max<std::int64_t>(1, st.slice));
    a.set_slice_end(l, end);
    a.set_residency_cap(l, st.cap);
    unblock(l);
    st.opened = true;
    ++slices_;
  }

  void replan(const EngineView& v) {
    std::vector<std::int32_t> pending;
    for (const std::int32_t l : v.active())
      if (v.launch(l).phase == LaunchPhase::Released && v.launch(l).next_block < v.launch(l).total_blocks)
        pending.push_back(l);
    plan_.clear();
    if (pending.empty()) return;
    apply(v, script_ ? scripted(v, pending) : decide(v, pending, chooser_));
  }

  // The plan the chooser makes. The paper's loop co-schedules the best pair even at a negative CP;
  // `solo_without_gain` (ours, off by default) runs the oldest kernel alone instead when the best pair's CP is not
  // positive. One kernel (or no pair can share an SM): the oldest runs alone.
  Decision decide(const EngineView& v, const std::vector<std::int32_t>& pending, Chooser chooser) {
    const auto c = choose(v, pending, chooser);
    if (c && !(solo_without_gain_ && c->cp <= 0))
      return {pending[c->first], pending[c->second], c->blocks_first, c->blocks_second};
    return {pending.front(), -1, 0, 0};
  }

  // A run of the rollout oracle: the script's plan while it has one, then its continuation's.
  Decision scripted(const EngineView& v, const std::vector<std::int32_t>& pending) {
    const std::size_t k = plans_made_++;
    Trajectory* record = script_->record;
    if (record) {
      record->model.push_back(decide(v, pending, Chooser::Model));
      record->measured.push_back(decide(v, pending, Chooser::Simulation));
    }
    Decision d;
    if (k < script_->forced.size()) {
      d = script_->forced[k];
      const auto is_pending = [&](std::int32_t l) {
        return l < 0 || std::find(pending.begin(), pending.end(), l) != pending.end();
      };
      // Runs are deterministic: a forced plan names launches pending at the same plan of the run it came from.
      if (!is_pending(d.first) || !is_pending(d.second))
        throw std::logic_error("kernelet-opt: the rollout oracle's run diverged from the run it replays");
    } else if (record) {
      d = script_->continuation == Chooser::Model ? record->model.back() : record->measured.back();
    } else {
      d = decide(v, pending, script_->continuation);
    }
    if (record) record->taken.push_back(d);
    return d;
  }

  void apply(const EngineView& v, const Decision& d) {
    if (d.second >= 0) {
      set_plan(v, d.first, d.per_sm_first);
      set_plan(v, d.second, d.per_sm_second);
      return;
    }
    // The oldest runs alone, its remaining blocks as one slice.
    auto& st = state_[static_cast<std::size_t>(d.first)];
    st.cap = INT_MAX;
    st.slice = v.launch(d.first).total_blocks;
    plan_.push_back(d.first);
  }

  void set_plan(const EngineView& v, std::int32_t l, int per_sm) {
    auto& st = state_[static_cast<std::size_t>(l)];
    st.cap = per_sm;
    const std::int64_t ratio_slice = static_cast<std::int64_t>(per_sm) * v.sms_per_gpu();
    // The slice keeps the ratio's per-SM blocks and is at least the kernel's smallest slice (section 4.1).
    const std::int64_t k = std::max<std::int64_t>(1, (st.min_slice + ratio_slice - 1) / ratio_slice);
    st.slice = ratio_slice * k;
    plan_.push_back(l);
  }

  std::optional<kernelet::CoSchedule> choose(const EngineView& v, const std::vector<std::int32_t>& pending,
                                             Chooser chooser) {
    std::vector<kernelet::PlanKernel> kernels;
    for (const std::int32_t l : pending) kernels.push_back(state_[static_cast<std::size_t>(l)].plan);
    if (kernels.size() < 2) return std::nullopt;
    if (chooser == Chooser::Model) {
      kernelet::FindStats stats;
      auto c = kernelet::find_co_schedule(v.gpu(), model_, kernels, {alpha_p_, alpha_m_, prune_rule_, all_pruned_},
                                          shared_->ipc, &stats);
      return c;
    }
    if (chooser == Chooser::Random) {
      // A random pair and a random ratio among those that fit.
      for (int attempt = 0; attempt < 64; ++attempt) {
        const std::size_t i = bounded(next_random(), kernels.size());
        std::size_t j = bounded(next_random(), kernels.size() - 1);
        if (j >= i) ++j;
        const auto ratios = kernelet::ratio_candidates(v.gpu(), kernels[i], kernels[j]);
        if (ratios.empty()) continue;
        const auto& r = ratios[bounded(next_random(), ratios.size())];
        kernelet::CoSchedule c;
        c.first = std::min(i, j);
        c.second = std::max(i, j);
        c.blocks_first = i < j ? r.first : r.second;
        c.blocks_second = i < j ? r.second : r.first;
        return c;
      }
      return std::nullopt;
    }
    // OPT: every pair (no pruning: pruning is Kernelet's shortcut, not the oracle's) and every ratio, simulated.
    // A pair's probes see only its two kernels, so the pairs are taken per pair of kernels (types) present, each
    // standing for its first pair: the best CP, ties to the first pair in (i, j) order and then the first ratio,
    // as a pass over every pair and ratio keeping the first strictly better one would choose.
    std::vector<std::size_t> type(pending.size());
    std::vector<const KernelProfile*> type_kernel;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const KernelProfile* k = v.launch(pending[i]).kernel;
      const auto t =
          static_cast<std::size_t>(std::find(type_kernel.begin(), type_kernel.end(), k) - type_kernel.begin());
      if (t == type_kernel.size()) type_kernel.push_back(k);
      type[i] = t;
    }
    std::optional<kernelet::CoSchedule> best;
    for (const auto& p : kernelet::pairs_by_type(type, type_kernel.size())) {
      if (p.count == 0) continue;
      const std::size_t i = p.first, j = p.second;
      for (const auto& [bi, bj] : kernelet::ratio_candidates(v.gpu(), kernels[i], kernels[j])) {
        const double cp = simulated_cp(v, pending[i], bi, pending[j], bj);
        if (!best || cp > best->cp ||
            (cp == best->cp && std::make_pair(i, j) < std::make_pair(best->first, best->second))) {
          best = kernelet::CoSchedule{};
          best->first = i;
          best->second = j;
          best->blocks_first = bi;
          best->blocks_second = bj;
          best->cp = cp;
        }
      }
    }
    return best;
  }

  // CP of a co-schedule measured by simulation (Eq. 1 with measured rates): kProbeWaves slice-ratio waves of each
  // kernel (b_i x SMs blocks a wave) run side by side from an empty GPU, each capped at its b_i blocks per SM,
  // until the first of them finishes, at t*. Kernel i's concurrent rate against its rate alone is
  // cIPC_i / IPC_i = n_i a_i / t*, n_i being its blocks done by t* (completed, plus half of those in flight: in a
  // steady co-run they are on average half done) and a_i its time per block alone at full occupancy (a full
  // wave alone, simulated once per kernel), as Eq. 1's IPC_i is the kernel's IPC alone. CP = 1 - 1 / sum_i of
  // the rates. Several waves, because a duration is fixed when a block is dispatched: in the first wave the
  // blocks placed first do not see the other kernel yet. (Until session 12 the probe was one wave and compared
  // the co-run's makespan with the same b_i x SMs blocks alone, i.e. alone at residency b_i, which credits
  // small ratios with an under-occupied SM's idle slots.)
  static constexpr int kProbeWaves = 4;
  double simulated_cp(const EngineView& v, std::int32_t l1, int b1, std::int32_t l2, int b2) {
    const auto* k1 = v.launch(l1).kernel;
    const auto* k2 = v.launch(l2).kernel;
    const auto key = std::make_tuple(k1, b1, k2, b2);
    if (const auto it = shared_->opt.find(key); it != shared_->opt.end()) return it->second;
    const std::int64_t sms = v.sms_per_gpu();
    const auto& p1 = truncated(k1, b1 * sms * kProbeWaves);
    const auto& p2 = truncated(k2, b2 * sms * kProbeWaves);
    const Probe co = probe(v, {{&p1, b1}, {&p2, b2}});
    double speed = 0;
    if (co.first_finish > 0)
      speed = co.done_at_first_finish[0] * alone_per_block(v, l1) / static_cast<double>(co.first_finish) +
              co.done_at_first_finish[1] * alone_per_block(v, l2) / static_cast<double>(co.first_finish);
    const double cp = speed > 0 ? 1.0 - 1.0 / speed : -1.0;
    shared_->opt.emplace(key, cp);
    return cp;
  }

  // Launch l's kernel alone at full occupancy: time per block over one full wave (ns).
  double alone_per_block(const EngineView& v, std::int32_t l) {
    const auto* k = v.launch(l).kernel;
    const int full = state_[static_cast<std::size_t>(l)].plan.max_blocks_per_sm;
    auto& alone_wave = shared_->alone_wave;
    auto it = alone_wave.find(k);
    if (it == alone_wave.end()) {
      const auto& wave = truncated(k, static_cast<std::int64_t>(full) * v.sms_per_gpu());
      const double n = static_cast<double>(wave.block_count());
      it = alone_wave.emplace(k, static_cast<double>(probe(v, {{&wave, INT_MAX}}).finish[0]) / n).first;
    }
    return it->second;
  }

  // The first `blocks` blocks of a kernel as a kernel of their own (a slice), kept for later probes.
  const KernelProfile& truncated(const KernelProfile* k, std::int64_t blocks) {
    blocks = std::min(blocks, k->block_count());
    auto& slot = shared_->slices_of[{k, blocks}];
    if (!slot) {
      slot = std::make_unique<KernelProfile>(*k);
      slot->grid = {static_cast<int>(blocks), 1, 1};
    }
    return *slot;
  }

  struct Probe {
    std::vector<TimeNs> finish;                // per kernel
    TimeNs first_finish = 0;                   // when the first of them finished
    std::vector<double> done_at_first_finish;  // blocks completed then, plus half of those in flight
  };

  // The given kernels run side by side on one GPU from time 0, each capped at its blocks per SM.
  Probe probe(const EngineView& v, const std::vector<std::pair<const KernelProfile*, int>>& kernels) {
    std::vector<LaunchSpec> specs;
    std::vector<int> caps;
    for (const auto& [k, cap] : kernels) {
      LaunchSpec s;
      s.kernel = k;
      s.id = k->name;
      specs.push_back(s);
      caps.push_back(cap);
    }
    EngineConfig config{v.gpu(), 1, v.seed(), v.config().durations, {}};
    Engine engine(config, std::move(specs));
    ProbePolicy policy(std::move(caps));
    engine.run(policy);
    Probe out;
    for (const auto& L : engine.launches()) out.finish.push_back(L.finish);
    out.first_finish = policy.first_finish();
    out.done_at_first_finish = policy.done_at_first_finish();
    return out;
  }

  // Issues every block of each probe launch under its per-SM cap, on every SM.
  // Issues every block of each probe launch under its per-SM cap, on every SM, and notes each launch's progress
  // when the first of them finishes.
  class ProbePolicy final : public Policy {
   public:
    explicit ProbePolicy(std::vector<int> caps) : caps_(std::move(caps)) {}
    std::string name() const override { return "kernelet-opt-probe"; }
    void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
      for (const auto& e : events)
        if (e.kind == EventKind::LaunchFinished && done_.empty()) {
          first_finish_ = v.now();
          for (std::size_t l = 0; l < caps_.size(); ++l) {
            const auto& L = v.launch(static_cast<std::int32_t>(l));
            done_.push_back(static_cast<double>(L.completed) + 0.5 * static_cast<double>(L.next_block - L.completed));
          }
        }
      for (std::size_t l = 0; l < caps_.size(); ++l) {
        const auto id = static_cast<std::int32_t>(l);
        if (v.launch(id).phase != LaunchPhase::Released) continue;
        if (v.launch(id).residency_cap != caps_[l]) a.set_residency_cap(id, caps_[l]);
        for (int sm = 0; sm < v.sm_count(); ++sm)
          if (v.launch(id).issuable() > 0) a.fill(id, sm);
      }
    }
    TimeNs first_finish() const { return first_finish_; }
    const std::vector<double>& done_at_first_finish() const { return done_; }

   private:
    std::vector<int> caps_;
    TimeNs first_finish_ = 0;
    std::vector<double> done_;
  };

  std::uint64_t next_random() { return splitmix64(rng_state_++); }

  Chooser chooser_;
  std::string name_;
  double alpha_p_, alpha_m_;
  kernelet::PruneRule prune_rule_;
  kernelet::AllPruned all_pruned_;
  bool solo_without_gain_;
  TimeNs overhead_;
  double max_overhead_;
  std::uint64_t sample_;
  std::uint64_t rng_state_ = 0;
  Oracle oracle_;
  int rollouts_;
  bool calibrated_;  // inputs=calibrated: each kernel's R_m reproduces its recording alone
  kernelet::SmModel model_;
  // The model's IPCs and OPT's probes, shared with the rollout oracle's runs of the same workload.
  struct SharedCaches {
    kernelet::IpcCache ipc;
    std::map<std::tuple<const KernelProfile*, int, const KernelProfile*, int>, double> opt;
    std::map<const KernelProfile*, double> alone_wave;  // ns per block alone at full occupancy (probed)
    std::map<std::pair<const KernelProfile*, std::int64_t>, std::unique_ptr<KernelProfile>> slices_of;
  };
  std::shared_ptr<SharedCaches> shared_;
  const Script* script_ = nullptr;  // set: plans from the script (the rollout oracle)
  std::optional<Script> own_script_;
  std::size_t plans_made_ = 0;
  std::int64_t oracle_runs_ = 0, oracle_improvements_ = 0;
  TimeNs kernelet_makespan_ = 0, greedy_makespan_ = 0, oracle_makespan_ = 0;
  std::vector<LaunchPlanState> state_;
  std::vector<std::int64_t> release_rank_;
  std::int64_t next_rank_ = 0;
  // Waiting launches (a slice open, blocks to issue, no room at their last look) per block footprint, each group
  // by release rank.
  struct WaitingGroup {
    BlockFootprint footprint;
    std::vector<std::pair<std::int64_t, std::int32_t>> members;  // (release rank, launch), ascending
  };
  std::vector<WaitingGroup> waiting_;
  std::vector<std::size_t> heads_;     // during a pass: per group, the next member to visit
  std::vector<int> group_of_;          // per launch: its group in waiting_, -1 if none
  std::vector<std::int32_t> touched_;  // launches to try on every SM at the next pass
  std::vector<char> in_touched_;
  std::vector<std::int32_t> freed_sorted_;  // this batch's freed SMs by id
  std::vector<std::int32_t> plan_, all_;
  PlacementState placement_;
  std::int64_t slices_ = 0;
};

}  // namespace
}  // namespace gpusched::sim

namespace {
using gpusched::sim::ParamSpec;
using gpusched::sim::ParamType;

std::vector<ParamSpec> kernelet_params(bool with_sample) {
  std::vector<ParamSpec> p{
      {"alpha_p", ParamType::Double, "0.4", "prune pairs whose PUR differ by less than this (section 4.3)"},
      {"alpha_m", ParamType::Double, "0.1", "prune pairs whose MUR differ by less than this (section 4.3)"},
      {"prune", ParamType::String, "or",
       "or: prune when PUR or MUR are close (section 4.3's text); and: only when both are (Table 6's counts)"},
      {"all_pruned", ParamType::String, "relax",
       "when every pair is pruned (section 4.3): relax halves the thresholds until one survives; alone co-schedules "
       "none, the oldest kernel runs alone (kernelet only: OPT and MC do not prune)"},
      {"launch_overhead_us", ParamType::Double, "5", "cost of launching one slice, microseconds"},
      {"max_slice_overhead", ParamType::Double, "0.02",
       "p: the smallest slice keeps the slicing overhead within this (section 4.1)"},
      {"inputs", ParamType::String, "counted",
       "the model's R_m: counted (memory instructions / instructions, or PUR/MUR: the paper's); calibrated: set so "
       "that the chain reproduces each recorded kernel's IPC alone (not in the paper; docs/interference.md)"},
  };
  if (with_sample)
    p.push_back({"sample", ParamType::Int, "0", "which Monte Carlo sample (with the seed, picks the random choices)"});
  else
    p.push_back({"solo_without_gain", ParamType::Bool, "false",
                 "not in the paper: when the best pair's CP is not positive, run the oldest kernel alone instead"});
  return p;
}

std::vector<ParamSpec> opt_params() {
  auto p = kernelet_params(false);
  p.push_back({"oracle", ParamType::String, "decision",
               "decision: the best measured CP at each plan (section 5's text); rollout: whole schedules pre-executed, "
               "never slower than kernelet with the same parameters (Figure 13's OPT)"});
  p.push_back({"rollouts", ParamType::Int, "8",
               "oracle=rollout: whole runs pre-executed beyond kernelet's and the text's OPT (each a simulation)"});
  return p;
}
}  // namespace

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, kernelet, "kernelet",
                         "Kernelet (seed 000): sliced kernels co-scheduled in pairs at the balanced ratio, chosen by "
                         "the Markov-chain model's co-scheduling profit after PUR/MUR pruning",
                         kernelet_params(false), [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::KerneletPolicy>(p, gpusched::sim::Chooser::Model,
                                                                                  "kernelet");
                         })
GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, kernelet_opt, "kernelet-opt",
                         "Kernelet's OPT (seed 000): every pair and slice ratio evaluated by simulating it instead "
                         "of by the model",
                         opt_params(), [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::KerneletPolicy>(p, gpusched::sim::Chooser::Simulation,
                                                                                  "kernelet-opt");
                         })
GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, kernelet_mc, "kernelet-mc",
                         "one sample of Kernelet's Monte Carlo baseline (seed 000): random pairs at random ratios",
                         kernelet_params(true), [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::KerneletPolicy>(p, gpusched::sim::Chooser::Random,
                                                                                  "kernelet-mc");
                         })
