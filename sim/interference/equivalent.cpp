// Interference model `equivalent`: equivalent residency, applied over a block's life (DurationModel::over_life).
// A block of kernel k on an SM with n_k blocks of its own kernel and n_j blocks of other kernels j runs as k's own
// recordings run at the residency
//     r_eff = n_k + sum over j of w(k <- j) x n_j,
// where w(k <- j), "how many of k's own blocks one block of j weighs as", is fitted from native runs
// (scripts/fit-equivalent-blocks.py writes it into k's profile, [equivalent_blocks]); an unfitted pair weighs the
// median of k's fitted weights (`fallback=median`, the default since session 22: k's typical sensitivity to other
// kernels), or `unfitted` (1: as an own block) under `fallback=value` or where k has no fitted weight. Its rate is
// mean(R) / mean(r_eff), R the primary (highest) recorded residency, with mean(r) interpolated linearly between the
// record sets and extrapolated past the last along its last segment (a throughput-bound kernel's block time keeps
// growing with the load). A launch beside only launches of its own kernel runs as recorded (its recording holds that).
// With `same_suite=own` (session 32; the default stays `fallback`), an unfitted pair of two sizes of one suite kernel
// weighs 1, as an own block, as `age` treats them: the fallback's median weight lets gather-s1 beside gather-s2 run at
// its one-block-an-SM speed (mpmax's live-h100 plan: 25.6 us blocks predicted, 286 us measured). Measured on executed
// plans it trades launches (docs/interference.md, "Two sizes of one kernel").
// With `gpu_wide=on` (session 33; default off) a share mu of the kernel's residency is read over the whole GPU: blocks
// of its own suite kernel (any size) count as own blocks, and
//     r_eff = s + sum over other kernels j on the SM of w(k <- j) x n_j + mu x (S / SMs - s),
// s its suite's blocks on the SM, S its suite's blocks on the GPU, mu the profile's gpu_wide_share (0 where absent),
// plus, for each other kernel j with a GPU-wide weight g(k <- j) in k's profile ([gpu_wide_blocks]),
// g x max(0, N_j / SMs - n_j): j's blocks per SM over the GPU beyond those on k's SM (its load on the memory system).
// `gpu_wide=up` counts only the suite's part, and only where it adds (max(0, S / SMs - s)): it stands in for the other
// kernels' load (which a suite sparser elsewhere does not lighten) without their weights.
// A memory-bound kernel's block time follows its suite's load on the whole GPU (gather alone at 4 blocks an SM: 25 us
// on 16 SMs, 70 us on 116, 83 us on 132); uniform over the GPU S / SMs = s and the rule is the plain one. A kernel
// alone on the GPU runs as recorded. docs/interference.md, "A GPU-wide share of the residency".
// docs/interference.md, "Equivalent residency".
#include "sim/interference/equivalent.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/corun_records.h"
#include "sim/duration_model.h"
#include "sim/registry.h"

namespace gpusched::sim {

double equivalent_mean_ns(const KernelProfile& k, double residency) {
  const auto& sets = k.record_sets;
  if (sets.empty()) return 0.0;
  if (sets.size() == 1 || residency <= sets.back().residency) return mean_block_ns_at(k, residency);
  const auto& lo = sets[sets.size() - 2];
  const auto& hi = sets.back();
  const double slope = std::max(0.0, (hi.mean_ns - lo.mean_ns) / static_cast<double>(hi.residency - lo.residency));
  return hi.mean_ns + slope * (residency - hi.residency);
}

bool same_suite_kernel(std::string_view a, std::string_view b) {
  return suite_kernel_view(a) == suite_kernel_view(b);
}

double equivalent_weight(const KernelProfile& k, const std::string& other, double unfitted, bool same_suite_as_own) {
  const auto it = k.equivalent_blocks.find(other);
  if (it != k.equivalent_blocks.end()) return it->second;
  return same_suite_as_own && same_suite_kernel(k.name, other) ? 1.0 : unfitted;
}

EquivalentFallback parse_equivalent_fallback(const std::string& s) {
  if (s == "value") return EquivalentFallback::Value;
  if (s == "median") return EquivalentFallback::Median;
  throw std::invalid_argument("interference model equivalent: parameter 'fallback' expects value or median, found \"" +
                              s + "\"");
}

double equivalent_unfitted_weight(const KernelProfile& k, EquivalentFallback fallback, double unfitted) {
  if (fallback == EquivalentFallback::Value || k.equivalent_blocks.empty()) return unfitted;
  std::vector<double> w;
  w.reserve(k.equivalent_blocks.size());
  for (const auto& [name, weight] : k.equivalent_blocks) w.push_back(weight);
  std::sort(w.begin(), w.end());
  const std::size_t n = w.size();
  return n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
}

namespace {

class EquivalentInterference final : public DurationModel {
 public:
  explicit EquivalentInterference(const Params& p)
      : unfitted_(p.get_double("unfitted")),
        fallback_(parse_equivalent_fallback(p.get_string("fallback"))),
        same_suite_own_(parse_same_suite(p.get_string("same_suite"))),
        gpu_wide_(parse_gpu_wide(p.get_string("gpu_wide"))) {}

  TimeNs duration(const DurationQuery& q) const override { return recorded_duration(*q.kernel, q.block, q.draw_base); }
  bool over_life() const override { return true; }
  // Another launch of it counts as its own blocks. Under gpu_wide a lone launch on its SM is re-rated from the GPU's
  // load, so neither shortcut holds.
  bool one_kernel_at_rate_one() const override { return gpu_wide_ == GpuWide::Off; }
  bool lone_launch_at_rate_one() const override { return gpu_wide_ == GpuWide::Off; }
  bool gpu_wide() const override { return gpu_wide_ != GpuWide::Off; }
  void begin_run() const override {
    index_of_.clear();
    profiles_.clear();
    name_id_of_.clear();
    names_.clear();
    terms_.clear();
  }

  void group_rates_on_gpu(const GpuSpec& gpu, std::span<const SmGroup> groups, std::span<const SmGroup> gpu_load,
                          int gpu_sms, std::span<double> rates) const override {
    if (gpu_wide_ == GpuWide::Off) return group_rates(gpu, groups, rates);
    std::fill(rates.begin(), rates.end(), 1.0);
    if (gpu_load.size() < 2 || gpu_sms <= 0) return;  // one kernel on the whole GPU: as recorded
    // The GPU's load by kernel name: copies of one profile (the parts replay runs each part as a launch of a copy,
    // sim/parts_replay.h) are one kernel, as the launches of one profile are. Per copy, a kernel's blocks beyond
    // those on this SM were clamped at zero copy by copy, so its parts on other SMs weighed in full on an SM that
    // holds more than its share already. A run whose kernels are one profile each is unchanged; live-h200's spatial
    // plan in parts replays 0.06 % shorter so.
    by_name_.clear();
    for (const SmGroup& e : gpu_load) {
      const int index = profile_index(*e.kernel);
      const int id = name_id_of_[static_cast<std::size_t>(index)];
      auto it = std::find_if(by_name_.begin(), by_name_.end(), [&](const NameLoad& n) { return n.id == id; });
      if (it == by_name_.end()) it = by_name_.insert(by_name_.end(), NameLoad{id, index, 0.0, 0.0});
      it->gpu_blocks += e.blocks;
    }
    group_index_.resize(groups.size());
    for (std::size_t j = 0; j < groups.size(); ++j) {
      group_index_[j] = profile_index(*groups[j].kernel);
      const int id = name_id_of_[static_cast<std::size_t>(group_index_[j])];
      for (NameLoad& n : by_name_)
        if (n.id == id) n.here += groups[j].blocks;
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const KernelProfile& k = *groups[g].kernel;
      if (k.record_sets.size() < 2) continue;  // one residency recorded: no curve to read
      const int ki = group_index_[g];
      double suite_here = 0, others = 0;
      for (std::size_t j = 0; j < groups.size(); ++j) {
        const PairTerms& t = terms(ki, group_index_[j]);
        if (t.suite)
          suite_here += groups[j].blocks;
        else
          others += t.weight * groups[j].blocks;
      }
      double suite_gpu = 0, elsewhere_others = 0;
      for (const NameLoad& e : by_name_) {
        const PairTerms& t = terms(ki, e.profile);
        if (t.suite) {
          suite_gpu += e.gpu_blocks;
          continue;
        }
        if (gpu_wide_ == GpuWide::Up) continue;  // `up` stands in for the other kernels' load: it counts none of it
        if (t.gpu_wide <= 0) continue;
        // its blocks over the GPU beyond those on this SM (which `others` counts)
        elsewhere_others += t.gpu_wide * std::max(0.0, e.gpu_blocks / gpu_sms - e.here);
      }
      const double share = k.gpu_wide_share.value_or(0.0);
      const double elsewhere = suite_gpu / gpu_sms - suite_here;  // its suite's load over the GPU, beyond its SM's
      const double r_eff = suite_here + others +
                           share * (gpu_wide_ == GpuWide::Up ? std::max(0.0, elsewhere) : elsewhere) + elsewhere_others;
      rates[g] = rate_at(k, r_eff);
    }
  }

  void group_rates(const GpuSpec& /*gpu*/, std::span<const SmGroup> groups, std::span<double> rates) const override {
    std::fill(rates.begin(), rates.end(), 1.0);
    if (groups.size() < 2) return;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const KernelProfile& k = *groups[g].kernel;
      if (k.record_sets.size() < 2) continue;  // one residency recorded: no curve to read
      double r_eff = groups[g].blocks;
      bool others = false;
      for (std::size_t j = 0; j < groups.size(); ++j) {
        if (j == g) continue;
        const KernelProfile& other = *groups[j].kernel;
        if (&other == &k || other.name == k.name) {  // another launch of the same kernel: as its own blocks
          r_eff += groups[j].blocks;
          continue;
        }
        others = true;
        r_eff += terms(profile_index(k), profile_index(other)).weight * groups[j].blocks;
      }
      if (others) rates[g] = rate_at(k, r_eff);
    }
  }

 private:
  // The speed of k's blocks read at residency r_eff: mean(R) / mean(r_eff), R its primary residency (1 where k's
  // curve gives no time).
  static double rate_at(const KernelProfile& k, double r_eff) {
    const double primary = k.record_sets.back().mean_ns;
    const double at = equivalent_mean_ns(k, std::max(1.0, r_eff));
    return primary > 0 && at > 0 ? primary / at : 1.0;
  }
  // An unfitted pair's weight: 1 for another size of k's suite kernel under same_suite=own, else the fallback.
  double unfitted_weight(const KernelProfile& k, const std::string& other) const {
    return same_suite_own_ && same_suite_kernel(k.name, other) ? 1.0
                                                               : equivalent_unfitted_weight(k, fallback_, unfitted_);
  }
  // What k's rule reads of another kernel's profile: whether it is k's suite (under gpu_wide: k itself or another size
  // of its suite kernel), its weight on k's SM, its GPU-wide weight (0: none). Looked up by name once per pair of
  // profiles and kept for the run, since the engine asks at every re-timing of an SM (under gpu_wide, of every SM of
  // the GPU when a kernel comes or leaves): the lookups by name and the suite names parsed each time were 8 % of such
  // a run. Kept in a table by the profiles' indices (profile_index): a std::map keyed by the two addresses, looked up
  // for every pair at every re-timing, was 11 % of bursts-h200's srtf, spatial, mpmax and fifo runs under `auto`
  // (docs/performance.md, "The equivalent model's pair terms"). Forgotten at begin_run (profiles may change between
  // runs of one model, and an address may then name another profile). A model instance serves one run at a time
  // (sim::run_workload makes one), so the cache needs no lock.
  struct PairTerms {
    bool known = false;  // worked out yet
    bool suite = false;
    double weight = 1.0;
    double gpu_wide = 0.0;
  };
  const PairTerms& terms(int ki, int oi) const {
    auto& row = terms_[static_cast<std::size_t>(ki)];
    if (row.size() <= static_cast<std::size_t>(oi)) row.resize(profiles_.size());
    PairTerms& t = row[static_cast<std::size_t>(oi)];
    if (t.known) return t;
    const KernelProfile& k = *profiles_[static_cast<std::size_t>(ki)];
    const KernelProfile& other = *profiles_[static_cast<std::size_t>(oi)];
    t.known = true;
    t.suite = &other == &k || other.name == k.name || same_suite_kernel(k.name, other.name);
    const auto w = k.equivalent_blocks.find(other.name);
    t.weight = w != k.equivalent_blocks.end() ? w->second : unfitted_weight(k, other.name);
    const auto g = k.gpu_wide_blocks.find(other.name);
    t.gpu_wide = g != k.gpu_wide_blocks.end() ? g->second : 0.0;
    return t;
  }
  // A dense index per profile (by address, kept for the run, as terms_ is), and with it a number per kernel name.
  int profile_index(const KernelProfile& k) const {
    const auto [it, added] = index_of_.try_emplace(&k, static_cast<int>(profiles_.size()));
    if (added) {
      profiles_.push_back(&k);
      name_id_of_.push_back(names_.emplace(k.name, static_cast<int>(names_.size())).first->second);
      terms_.emplace_back();
    }
    return it->second;
  }
  struct NameLoad {
    int id = 0;
    int profile = 0;        // one profile of that name (its index), for its terms
    double gpu_blocks = 0;  // its blocks on the GPU
    double here = 0;        // of which on the SM being rated
  };
  enum class GpuWide { Off, On, Up };
  static GpuWide parse_gpu_wide(const std::string& s) {
    if (s == "on") return GpuWide::On;
    if (s == "up") return GpuWide::Up;
    if (s == "off") return GpuWide::Off;
    throw std::invalid_argument("interference model equivalent: parameter 'gpu_wide' expects on, up or off, found \"" +
                                s + "\"");
  }
  static bool parse_same_suite(const std::string& s) {
    if (s == "own") return true;
    if (s == "fallback") return false;
    throw std::invalid_argument(
        "interference model equivalent: parameter 'same_suite' expects own or fallback, found \"" + s + "\"");
  }
  double unfitted_ = 1.0;
  EquivalentFallback fallback_ = EquivalentFallback::Median;
  bool same_suite_own_ = false;
  GpuWide gpu_wide_ = GpuWide::Off;
  mutable std::unordered_map<const KernelProfile*, int> index_of_;
  mutable std::vector<const KernelProfile*> profiles_;  // by index
  mutable std::vector<int> name_id_of_;                 // by index
  mutable std::map<std::string, int, std::less<>> names_;
  mutable std::vector<std::vector<PairTerms>> terms_;  // [victim's index][other's index]
  mutable std::vector<NameLoad> by_name_;              // scratch of group_rates_on_gpu
  mutable std::vector<int> group_index_;               // scratch of group_rates_on_gpu: each group's profile index
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::DurationModel, equivalent, "equivalent",
    "equivalent residency over the block's life: other launches' blocks on the SM count as a "
    "fitted number of the kernel's own blocks, and it runs as its recordings do at that "
    "residency",
    {{"unfitted", gpusched::sim::ParamType::Double, "1",
      "weight of another kernel's block where the profile has none fitted, under fallback=value or "
      "when the victim has no fitted weight at all (1: as an own block)"},
     {"fallback", gpusched::sim::ParamType::String, "median",
      "an unfitted pair's weight: value (the unfitted parameter) or median (the median of the "
      "victim's fitted weights)"},
     {"same_suite", gpusched::sim::ParamType::String, "fallback",
      "an unfitted pair of two sizes of one suite kernel (gather-s1 beside gather-s2): fallback (as any "
      "unfitted pair) or own (weighs 1, as an own block, as age treats them)"},
     {"gpu_wide", gpusched::sim::ParamType::String, "off",
      "on: a share of the residency (the profile's gpu_wide_share) is read over the whole GPU, blocks of the "
      "kernel's suite anywhere counting as own, and other kernels' blocks elsewhere weigh their [gpu_wide_blocks] "
      "weights (a memory-bound kernel's time follows the GPU's load); up: the suite's share only, where it adds; "
      "off: the SM's blocks only"}},
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::EquivalentInterference>(p); })
