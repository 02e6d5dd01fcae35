// Interference model `corun`: a block's slowdown from the blocks of other kernels on its SM, measured. The
// coefficients come from co-run records (`gpusched-live record-pairs`, core/corun_records.h) fitted as
// sim/interference/corun_fit.h says:
//   duration = recorded x exp(sum over co-running launches L of beta(A, kernel of L) x x_L)
// with x_L the co-runner's share of the SM in the chosen form (parameter `form`: occupancy, blocks_L / limit_L with
// limit_L its occupancy limit on this GPU; or ratio, that share over the victim's own share at dispatch). The records
// are read from the `coruns` parameter's file, else from coruns.csv beside each kernel's profile; a kernel with neither
// keeps its recorded duration. Like `residency` and `markov`, the duration is fixed when the block is dispatched
// (docs/interference.md says what the co-run data show about that choice). Parameter `order=older` fits only the
// co-runs where the partner was launched first: at dispatch every co-runner is older than the new block, and the
// co-runs show young blocks starving beside old ones while old ones barely notice young ones.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/corun_records.h"
#include "core/corun_residency.h"
#include "core/occupancy.h"
#include "sim/duration_model.h"
#include "sim/interference/corun_fit.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class CoRunInterference final : public DurationModel {
 public:
  explicit CoRunInterference(const Params& p)
      : file_(p.get_string("coruns")),
        profiles_dir_(p.get_string("profiles")),
        placed_(victim_residency_placed(p, "corun")) {
    const std::string& form = p.get_string("form");
    if (form != "occupancy" && form != "ratio")
      throw std::invalid_argument(
          fmt::format("interference model corun: parameter 'form' expects occupancy or ratio, found \"{}\"", form));
    form_ = form == "ratio" ? CoRunForm::Ratio : CoRunForm::Occupancy;
    const std::string& order = p.get_string("order");
    if (order != "both" && order != "older")
      throw std::invalid_argument(
          fmt::format("interference model corun: parameter 'order' expects both or older, found \"{}\"", order));
    order_ = order == "older" ? CoRunOrder::PartnerFirst : CoRunOrder::Both;
    if (!file_.empty()) fixed_ = load(file_);  // read now, so a bad file fails before the run
  }

  bool needs_co_runners() const override { return true; }

  TimeNs duration(const DurationQuery& q) const override {
    const TimeNs base = recorded_duration(*q.kernel, q.block, q.draw_base);
    if (q.co_runner_count == 0) return base;
    std::lock_guard lock(mutex_);
    const KernelInfo& victim = info(*q.kernel, *q.gpu);
    if (!victim.coefficients || victim.coefficients->empty()) return base;
    double exponent = 0.0;
    for (int i = 0; i < q.co_runner_count; ++i) {
      const CoRunner& co = q.co_runners[i];
      const KernelInfo& partner = info(*co.kernel, *q.gpu);
      exponent += beta(*q.kernel, victim, *co.kernel, partner) *
                  corun_share(form_, co.blocks, partner.limit, q.sm_same_kernel_blocks, victim.limit);
    }
    return std::max<TimeNs>(1, static_cast<TimeNs>(static_cast<double>(base) * std::exp(exponent)));
  }

 private:
  // What a dispatch needs of a kernel, worked out the first time the kernel is seen (the GPU is the run's).
  struct KernelInfo {
    const CoRunCoefficients* coefficients = nullptr;
    std::string suite;  // suite_kernel_of(name)
    int limit = 1;      // occupancy limit on the run's GPU
  };

  // The victims' profiles for victim_residency=placed: the `profiles` folder's, else the file's neighbours.
  std::shared_ptr<const CoRunCoefficients> load(const std::string& path) const {
    CoRunTable table = read_corun_records(path);
    if (placed_)
      move_to_own_residency(
          table, read_corun_profiles(table, profiles_dir_.empty() ? std::filesystem::path(path).parent_path().string()
                                                                  : profiles_dir_));
    return std::make_shared<const CoRunCoefficients>(table.records, form_, Exposure::Life, nullptr, order_);
  }

  // Callers hold mutex_.
  const KernelInfo& info(const KernelProfile& k, const GpuSpec& gpu) const {
    auto it = kernels_.find(&k);
    if (it != kernels_.end()) return it->second;
    KernelInfo i;
    i.coefficients = coefficients_for(k);
    i.suite = suite_kernel_of(k.name);
    i.limit = compute_occupancy(gpu, k.shape()).blocks_per_sm;
    return kernels_.emplace(&k, std::move(i)).first->second;
  }

  double beta(const KernelProfile& v, const KernelInfo& victim, const KernelProfile& p,
              const KernelInfo& partner) const {
    const auto key = std::make_pair(&v, &p);
    auto it = betas_.find(key);
    if (it == betas_.end()) it = betas_.emplace(key, victim.coefficients->beta(victim.suite, partner.suite)).first;
    return it->second;
  }

  const CoRunCoefficients* coefficients_for(const KernelProfile& k) const {
    if (fixed_) return fixed_.get();
    const std::string path = corun_file_beside(k.file);
    if (path.empty()) return nullptr;
    auto it = by_dir_.find(path);
    if (it == by_dir_.end()) it = by_dir_.emplace(path, load(path)).first;
    return it->second.get();
  }

  std::string file_, profiles_dir_;
  CoRunForm form_ = CoRunForm::Occupancy;
  CoRunOrder order_ = CoRunOrder::Both;
  bool placed_ = true;  // victim_residency=placed
  std::shared_ptr<const CoRunCoefficients> fixed_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const CoRunCoefficients>> by_dir_;
  mutable std::unordered_map<const KernelProfile*, KernelInfo> kernels_;
  mutable std::map<std::pair<const KernelProfile*, const KernelProfile*>, double> betas_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, corun, "corun",
                         "block slowdown from co-running kernels, fitted from measured co-runs "
                         "(gpusched-live record-pairs; coruns.csv beside the profiles)",
                         {{"coruns", gpusched::sim::ParamType::String, "",
                           "co-run records file (default: coruns.csv beside each kernel's profile)"},
                          {"profiles", gpusched::sim::ParamType::String, "",
                           "folder of the co-run victims' profiles, for victim_residency=placed (default: the co-run "
                           "file's folder)"},
                          {"form", gpusched::sim::ParamType::String, "occupancy",
                           "a co-runner's share of the SM: occupancy (its blocks / its limit) or ratio (that over "
                           "the victim's own share)"},
                          {"order", gpusched::sim::ParamType::String, "both",
                           "which co-runs the fit uses: both launch orders, or older (only those where the partner "
                           "was launched first: a block dispatched beside resident co-runners meets older ones)"},
                          gpusched::sim::victim_residency_param()},
                         [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::CoRunInterference>(p);
                         })
