// Interference model `equivalent`: equivalent residency, applied over a block's life (DurationModel::over_life).
// A block of kernel k on an SM with n_k blocks of its own kernel and n_j blocks of other kernels j runs as k's own
// recordings run at the residency
//     r_eff = n_k + sum over j of w(k <- j) x n_j,
// where w(k <- j), "how many of k's own blocks one block of j weighs as", is fitted from native runs
// (scripts/fit-equivalent-blocks.py writes it into k's profile, [equivalent_blocks]); an unfitted pair weighs 1, as
// an own block. Its rate is mean(R) / mean(r_eff), R the primary (highest) recorded residency, with mean(r)
// interpolated linearly between the record sets and extrapolated past the last along its last segment (a
// throughput-bound kernel's block time keeps growing with the load). A launch beside only launches of its own kernel
// runs as recorded (its recording holds that). docs/interference.md, "Equivalent residency".
#include "sim/interference/equivalent.h"

#include <algorithm>

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

double equivalent_weight(const KernelProfile& k, const std::string& other, double unfitted) {
  const auto it = k.equivalent_blocks.find(other);
  return it == k.equivalent_blocks.end() ? unfitted : it->second;
}

namespace {

class EquivalentInterference final : public DurationModel {
 public:
  explicit EquivalentInterference(const Params& p) : unfitted_(p.get_double("unfitted")) {}

  TimeNs duration(const DurationQuery& q) const override { return recorded_duration(*q.kernel, q.block, q.draw_base); }
  bool over_life() const override { return true; }

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
        r_eff += equivalent_weight(k, other.name, unfitted_) * groups[j].blocks;
      }
      if (!others) continue;
      const double primary = k.record_sets.back().mean_ns;
      const double at = equivalent_mean_ns(k, std::max(1.0, r_eff));
      if (primary > 0 && at > 0) rates[g] = primary / at;
    }
  }

 private:
  double unfitted_ = 1.0;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, equivalent, "equivalent",
                         "equivalent residency over the block's life: other launches' blocks on the SM count as a "
                         "fitted number of the kernel's own blocks, and it runs as its recordings do at that "
                         "residency",
                         {{"unfitted", gpusched::sim::ParamType::Double, "1",
                           "weight of another kernel's block where the profile has none fitted (1: as an own block)"}},
                         [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::EquivalentInterference>(p);
                         })
