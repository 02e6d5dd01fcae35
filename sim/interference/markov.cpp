// Interference model `markov`: when blocks of different launches share an SM, a block's duration follows
// Kernelet's Markov-chain model (core/markov_model.h). A block runs at its kernel's per-block IPC; its
// recorded duration was taken alone at the record set's residency r, so
//   duration = recorded x (IPC_alone(r) / r) / (IPC_shared(k) / k)
// with k the kernel's blocks on the SM and IPC_shared its IPC beside the co-runners. Like `residency`, the
// duration is fixed when the block is dispatched. Kernels the model has no inputs for (no instruction counts
// and no PUR/MUR) keep their recorded durations. docs/interference.md.
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <tuple>

#include "core/markov_model.h"
#include "sim/duration_model.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class MarkovInterference final : public DurationModel {
 public:
  explicit MarkovInterference(const Params& p)
      : granularity_(p.get_string("granularity")),
        latency_(p.get_double("latency")),
        a0_(p.get_double("a0")),
        b0_(p.get_double("b0")) {
    if (granularity_ != "block" && granularity_ != "warp")
      throw std::invalid_argument(fmt::format(
          "interference model markov: parameter 'granularity' expects block or warp, found \"{}\"", granularity_));
    if (latency_ < 0 || a0_ < 0 || b0_ < 0)
      throw std::invalid_argument("interference model markov: latency, a0 and b0 must be >= 0");
  }

  bool needs_co_runners() const override { return true; }

  TimeNs duration(const DurationQuery& q) const override {
    const KernelProfile& k = *q.kernel;
    const TimeNs base = recorded_duration(k, q.block, q.draw_base);
    if (!q.gpu || k.record_sets.empty()) return base;
    const auto& model = model_for(*q.gpu);
    const auto self = kernelet::model_kernel(k, model, q.gpu->warp_size);
    if (!self) return base;
    const int recorded_residency = std::max(1, k.record_sets.back().residency);
    const int own = std::max(1, q.sm_same_kernel_blocks);

    std::vector<kernelet::ModelKernel> kernels{*self};
    std::vector<int> blocks{own};
    for (int i = 0; i < q.co_runner_count; ++i) {
      const auto other = kernelet::model_kernel(*q.co_runners[i].kernel, model, q.gpu->warp_size);
      if (!other) continue;  // no inputs: it does not take part in the chain
      kernels.push_back(*other);
      blocks.push_back(q.co_runners[i].blocks);
    }
    const double alone = ipc_cached({*self}, {recorded_residency})[0] / recorded_residency;
    const double shared = ipc_cached(kernels, blocks)[0] / own;
    if (alone <= 0 || shared <= 0) return base;
    return std::max<TimeNs>(1, static_cast<TimeNs>(static_cast<double>(base) * alone / shared));
  }

 private:
  const kernelet::SmModel& model_for(const GpuSpec& gpu) const {
    std::lock_guard lock(mutex_);
    if (!model_ || model_gpu_ != gpu.name) {
      model_ = kernelet::sm_model_for(gpu);
      model_->granularity = granularity_ == "warp" ? kernelet::Granularity::Warp : kernelet::Granularity::Block;
      if (latency_ > 0) model_->memory.base_latency = latency_;
      model_->memory.a0 = a0_;
      model_->memory.b0 = b0_;
      model_gpu_ = gpu.name;
    }
    return *model_;
  }

  // Chains are solved once per composition (kernel inputs and block counts) and remembered.
  std::vector<double> ipc_cached(const std::vector<kernelet::ModelKernel>& kernels,
                                 const std::vector<int>& blocks) const {
    std::vector<std::tuple<int, double, double, int>> key;
    for (std::size_t i = 0; i < kernels.size(); ++i)
      key.emplace_back(kernels[i].warps_per_block, kernels[i].memory_ratio, kernels[i].uncoalesced, blocks[i]);
    std::lock_guard lock(mutex_);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    auto ipc = kernelet::sm_ipc(*model_, kernels, blocks);
    cache_.emplace(std::move(key), ipc);
    return ipc;
  }

  std::string granularity_;
  double latency_, a0_, b0_;
  mutable std::mutex mutex_;
  mutable std::optional<kernelet::SmModel> model_;
  mutable std::string model_gpu_;
  mutable std::map<std::vector<std::tuple<int, double, double, int>>, std::vector<double>> cache_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::DurationModel, markov, "markov",
    "block duration from Kernelet's Markov-chain model of the SM's issue (seed 000): slower beside co-runners that "
    "compete for issue slots and memory bandwidth",
    (std::vector<gpusched::sim::ParamSpec>{
        {"granularity", gpusched::sim::ParamType::String, "block", "chain unit: block (the paper's speed-up) or warp"},
        {"latency", gpusched::sim::ParamType::Double, "0", "base memory latency L0 in cycles (0: by architecture)"},
        {"a0", gpusched::sim::ParamType::Double, "1", "slope of the linear contention term"},
        {"b0", gpusched::sim::ParamType::Double, "0", "constant latency term, cycles"}}),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::MarkovInterference>(p); })
