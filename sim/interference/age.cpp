// Interference model `age`: a block's slowdown from the blocks of other launches on its SM, applied over its life
// (DurationModel::over_life): whenever an SM's running blocks change, each launch there gets a rate from the launches
// older than it (issue priority) and from every other launch (memory pressure), and the engine re-times its blocks'
// ends from the work they have left. The rule and its fit are in sim/interference/age_fit.h; the co-run records it
// is fitted from come from the `coruns` parameter's file, else from coruns.csv beside each kernel's profile, and the
// co-run kernels' profiles (their recordings and counted instructions give the issue utilisations) from the
// `profiles` folder, else the co-run file's folder. A launch whose kernel has no co-run file runs at rate 1, and so
// does a launch beside another launch of its own kernel (its recording holds that). docs/interference.md,
// "Slowdown over a block's life".
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/corun_records.h"
#include "core/corun_residency.h"
#include "core/occupancy.h"
#include "core/profile_io.h"
#include "sim/duration_model.h"
#include "sim/interference/age_fit.h"
#include "sim/interference/corun_fit.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class AgeInterference final : public DurationModel {
 public:
  explicit AgeInterference(const Params& p)
      : file_(p.get_string("coruns")),
        profiles_dir_(p.get_string("profiles")),
        own_count_(p.get_bool("own_count")),
        placed_(victim_residency_placed(p, "age")) {
    const std::string& apply = p.get_string("apply");
    if (apply != "life" && apply != "dispatch")
      throw std::invalid_argument(
          fmt::format("interference model age: parameter 'apply' expects life or dispatch, found \"{}\"", apply));
    at_dispatch_ = apply == "dispatch";
    if (!file_.empty()) fixed_ = fit(file_);  // now, so that a bad file fails before the run
  }

  TimeNs duration(const DurationQuery& q) const override {
    const TimeNs base = recorded_duration(*q.kernel, q.block, q.draw_base);
    if (!at_dispatch_ || q.co_runner_count == 0) return base;
    // Applied at dispatch (for comparison): the rate the block would get now, every co-runner being older, fixed for
    // its life.
    std::vector<SmGroup> groups;
    for (int i = 0; i < q.co_runner_count; ++i)
      groups.push_back(SmGroup{q.co_runners[i].kernel, q.co_runners[i].blocks, i});
    groups.push_back(SmGroup{q.kernel, q.sm_same_kernel_blocks, q.co_runner_count});
    std::vector<double> rates(groups.size(), 1.0);
    group_rates(*q.gpu, groups, rates);
    return std::max<TimeNs>(1, static_cast<TimeNs>(std::llround(static_cast<double>(base) / rates.back())));
  }
  bool needs_co_runners() const override { return at_dispatch_; }
  bool over_life() const override { return !at_dispatch_; }
  bool one_kernel_at_rate_one() const override { return true; }  // another launch of it runs as its recording holds

  void group_rates(const GpuSpec& gpu, std::span<const SmGroup> groups, std::span<double> rates) const override {
    std::fill(rates.begin(), rates.end(), 1.0);
    if (groups.size() < 2) return;
    std::lock_guard lock(mutex_);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const KernelInfo& victim = info(*groups[g].kernel, gpu);
      if (!victim.params) continue;
      double u_older = 0.0, memory = 0.0;
      int own = groups[g].blocks;
      bool others = false;  // launches of another kernel here (with only its own kernel's, it runs as recorded)
      for (std::size_t j = 0; j < groups.size(); ++j) {
        if (j == g) continue;
        const KernelInfo& other = info(*groups[j].kernel, gpu);
        if (other.suite_id == victim.suite_id) {  // another launch of the same kernel: its recording holds that
          own += groups[j].blocks;
          continue;
        }
        others = true;
        if (j < g) u_older += utilisation(other, *groups[j].kernel, gpu, groups[j].blocks);
        memory += victim.params->pressure_of(other.suite) * groups[j].blocks / std::max(1, other.limit);
      }
      if (!others || (u_older == 0.0 && memory == 0.0 && !own_count_)) continue;
      const double u_victim = utilisation(victim, *groups[g].kernel, gpu, groups[g].blocks);
      double rate = std::exp(-age_log_slowdown(*victim.params, u_victim, u_older, memory));
      if (own_count_) rate *= own_speed(*groups[g].kernel, own);
      rates[g] = rate;
    }
  }

 private:
  struct KernelInfo {
    const AgeParams* params = nullptr;
    std::string suite;
    int suite_id = 0;  // the suite kernel's index in suite_ids_: compared at every re-timing, where strings cost
    int limit = 1;
    // issue_utilisation by blocks per SM, worked out when first needed (-1: not yet)
    mutable std::vector<double> utilisation;
  };

  // Callers hold mutex_.
  const KernelInfo& info(const KernelProfile& k, const GpuSpec& gpu) const {
    auto it = kernels_.find(&k);
    if (it != kernels_.end()) return it->second;
    KernelInfo i;
    i.params = params_for(k);
    i.suite = suite_kernel_of(k.name);
    i.suite_id = suite_ids_.emplace(i.suite, static_cast<int>(suite_ids_.size())).first->second;
    i.limit = compute_occupancy(gpu, k.shape()).blocks_per_sm;
    return kernels_.emplace(&k, std::move(i)).first->second;
  }

  // Fewer of its own blocks on the SM than in its recording (others hold the rest): its blocks run as its recording
  // at that residency does, mean(primary residency) / mean(own count).
  double own_speed(const KernelProfile& k, int blocks) const {
    if (k.record_sets.size() < 2 || blocks >= k.record_sets.back().residency) return 1.0;
    const double own = mean_block_ns_at(k, blocks);
    return own > 0 ? k.record_sets.back().mean_ns / own : 1.0;
  }

  // Callers hold mutex_.
  static double utilisation(const KernelInfo& i, const KernelProfile& k, const GpuSpec& gpu, int blocks) {
    const auto n = static_cast<std::size_t>(std::max(blocks, 0));
    if (n >= i.utilisation.size()) i.utilisation.resize(n + 1, -1.0);
    if (i.utilisation[n] < 0) i.utilisation[n] = issue_utilisation(k, gpu, blocks);
    return i.utilisation[n];
  }

  // Fits are kept for the process (a file is fitted once however many runs use it: a sweep, --policy all).
  std::shared_ptr<const AgeParams> fit(const std::string& path) const {
    static std::mutex fits_mutex;
    static std::map<std::tuple<std::string, std::string, bool>, std::shared_ptr<const AgeParams>> fits;
    std::lock_guard lock(fits_mutex);
    auto& kept = fits[{path, profiles_dir_, placed_}];
    if (!kept) kept = fit_now(path);
    return kept;
  }

  std::shared_ptr<const AgeParams> fit_now(const std::string& path) const {
    CoRunTable table = read_corun_records(path);
    const std::string gpu_name = table.provenance.count("gpu") ? table.provenance.at("gpu") : "";
    const GpuSpec* gpu = find_gpu_preset(gpu_name);
    if (!gpu)
      throw std::invalid_argument(
          fmt::format("interference model age: {}: provenance 'gpu' names no GPU preset (\"{}\")", path, gpu_name));
    const std::filesystem::path dir =
        profiles_dir_.empty() ? std::filesystem::path(path).parent_path() : std::filesystem::path(profiles_dir_);
    const auto profiles =
        std::make_shared<const std::map<std::string, KernelProfile>>(read_corun_profiles(table, dir.string()));
    if (placed_) move_to_own_residency(table, *profiles);
    return std::make_shared<const AgeParams>(fit_age(table.records, *gpu, [&](const std::string& name) {
      const auto it = profiles->find(name);
      return it == profiles->end() ? nullptr : &it->second;
    }));
  }

  const AgeParams* params_for(const KernelProfile& k) const {
    if (fixed_) return fixed_.get();
    const std::string path = corun_file_beside(k.file);
    if (path.empty()) return nullptr;
    auto it = by_file_.find(path);
    if (it == by_file_.end()) it = by_file_.emplace(path, fit(path)).first;
    return it->second.get();
  }

  std::string file_, profiles_dir_;
  bool own_count_ = false;
  bool placed_ = true;  // victim_residency=placed
  bool at_dispatch_ = false;
  std::shared_ptr<const AgeParams> fixed_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const AgeParams>> by_file_;
  mutable std::unordered_map<const KernelProfile*, KernelInfo> kernels_;
  mutable std::unordered_map<std::string, int> suite_ids_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, age, "age",
                         "block slowdown from co-running launches applied over the block's life: issue slots left by "
                         "older launches on the SM, and memory pressure, fitted from measured co-runs",
                         {{"coruns", gpusched::sim::ParamType::String, "",
                           "co-run records file (default: coruns.csv beside each kernel's profile)"},
                          {"profiles", gpusched::sim::ParamType::String, "",
                           "folder of the co-run kernels' profiles (default: the co-run file's folder)"},
                          {"apply", gpusched::sim::ParamType::String, "life",
                           "life: re-time running blocks whenever their SM's launches change; dispatch: fix each "
                           "block's slowdown when it is placed (every co-runner older), for comparison"},
                          {"own_count", gpusched::sim::ParamType::Bool, "true",
                           "also speed a launch's blocks up to its recording at its own count of blocks on the SM "
                           "when other launches hold the rest"},
                          gpusched::sim::victim_residency_param()},
                         [](const gpusched::sim::Params& p) {
                           return std::make_unique<gpusched::sim::AgeInterference>(p);
                         })
