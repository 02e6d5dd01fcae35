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
// docs/interference.md, "Equivalent residency".
#include "sim/interference/equivalent.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
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
        same_suite_own_(parse_same_suite(p.get_string("same_suite"))) {}

  TimeNs duration(const DurationQuery& q) const override { return recorded_duration(*q.kernel, q.block, q.draw_base); }
  bool over_life() const override { return true; }
  bool one_kernel_at_rate_one() const override { return true; }  // another launch of it counts as its own blocks

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
        const auto it = k.equivalent_blocks.find(other.name);
        r_eff += (it != k.equivalent_blocks.end() ? it->second : unfitted_weight(k, other.name)) * groups[j].blocks;
      }
      if (!others) continue;
      const double primary = k.record_sets.back().mean_ns;
      const double at = equivalent_mean_ns(k, std::max(1.0, r_eff));
      if (primary > 0 && at > 0) rates[g] = primary / at;
    }
  }

 private:
  // An unfitted pair's weight: 1 for another size of k's suite kernel under same_suite=own, else the fallback.
  double unfitted_weight(const KernelProfile& k, const std::string& other) const {
    return same_suite_own_ && same_suite_kernel(k.name, other) ? 1.0
                                                               : equivalent_unfitted_weight(k, fallback_, unfitted_);
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
      "unfitted pair) or own (weighs 1, as an own block, as age treats them)"}},
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::EquivalentInterference>(p); })
