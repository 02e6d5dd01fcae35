// Interference model `markov`: when blocks of different launches share an SM, a block's duration follows
// Kernelet's Markov-chain model (core/markov_model.h). A block runs at its kernel's per-block IPC; its
// recorded duration was taken alone at the record set's residency r, so
//   duration = recorded x (IPC_alone(r) / r) / (IPC_shared(k) / k)
// with k the kernel's blocks on the SM and IPC_shared its IPC beside the co-runners. Like `residency`, the
// duration is fixed when the block is dispatched. Kernels the model has no inputs for (no instruction counts
// and no PUR/MUR) keep their recorded durations. `inputs=calibrated` (not the paper's) sets each kernel's memory
// ratio so that the chain reproduces its recording's IPC alone (core/markov_calibration.h). docs/interference.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/markov_calibration.h"
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
        b0_(p.get_double("b0")),
        calibrated_(kernelet::parse_calibrated_inputs(p.get_string("inputs"), "interference model markov")),
        split_(kernelet::parse_scheduler_split(p.get_string("split"), "interference model markov")) {
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
    std::lock_guard lock(mutex_);
    const auto& model = model_for(*q.gpu);
    const KernelInputs& self = inputs_of(k, model, *q.gpu);
    if (!self.kernel) return base;
    const int recorded_residency = std::max(1, k.record_sets.back().residency);
    const int own = std::max(1, q.sm_same_kernel_blocks);

    // The co-runners in a canonical order (by their inputs and block counts), not the order the SM lists its
    // resident launches in: the chain is the same whatever the order, but its floating-point solution and so a
    // block's duration differed in the last bits with it, and every order of the same co-runners was solved
    // anew (four times the chains in a Kernelet Monte Carlo sweep).
    corunners_.clear();
    for (int i = 0; i < q.co_runner_count; ++i) {
      const KernelInputs& other = inputs_of(*q.co_runners[i].kernel, model, *q.gpu);
      if (!other.kernel) continue;  // no inputs: it does not take part in the chain
      const auto& m = *other.kernel;
      corunners_.emplace_back(m.warps_per_block, m.memory_ratio, m.uncoalesced, q.co_runners[i].blocks);
    }
    std::sort(corunners_.begin(), corunners_.end());
    if (self.alone < 0) {
      const std::vector<kernelet::ModelKernel> alone_kernels{*self.kernel};
      self.alone = ipc_cached(alone_kernels, {recorded_residency})[0] / recorded_residency;
    }
    // This run's compositions are few and met again block after block: a memo keyed by the kernel's inputs and
    // the canonical co-runners answers before the chain cache's key (the SM model's fields and every kernel's
    // inputs as bytes) is built and hashed.
    memo_key_.assign({reinterpret_cast<std::uintptr_t>(&self), static_cast<std::uint64_t>(own)});
    for (const auto& [warps, memory_ratio, uncoalesced, blocks] : corunners_)
      memo_key_.insert(memo_key_.end(),
                       {static_cast<std::uint64_t>(warps), std::bit_cast<std::uint64_t>(memory_ratio),
                        std::bit_cast<std::uint64_t>(uncoalesced), static_cast<std::uint64_t>(blocks)});
    auto [memo, fresh] = memo_.try_emplace(memo_key_, 0.0);
    if (fresh) {
      kernels_.assign(1, *self.kernel);
      blocks_.assign(1, own);
      for (const auto& [warps, memory_ratio, uncoalesced, blocks] : corunners_) {
        kernels_.push_back({warps, memory_ratio, uncoalesced});
        blocks_.push_back(blocks);
      }
      memo->second = ipc_cached(kernels_, blocks_)[0] / own;
    }
    const double shared = memo->second;
    if (self.alone <= 0 || shared <= 0) return base;
    return std::max<TimeNs>(1, static_cast<TimeNs>(static_cast<double>(base) * self.alone / shared));
  }

 private:
  // A kernel's model inputs and its per-block IPC alone at its recorded residency (-1 until computed), per
  // profile for this run (profiles outlive the run's models).
  struct KernelInputs {
    std::optional<kernelet::ModelKernel> kernel;
    mutable double alone = -1;
  };

  const KernelInputs& inputs_of(const KernelProfile& k, const kernelet::SmModel& model, const GpuSpec& gpu) const {
    auto [it, fresh] = inputs_.try_emplace(&k);
    if (fresh) it->second.kernel = kernelet::model_inputs(k, model, gpu, calibrated_);
    return it->second;
  }

  const kernelet::SmModel& model_for(const GpuSpec& gpu) const {
    if (model_ && &gpu == model_gpu_spec_) return *model_;  // the same GPU as the last query (no name compare)
    model_gpu_spec_ = &gpu;
    if (!model_ || model_gpu_ != gpu.name) {
      memo_.clear();
      model_ = kernelet::sm_model_for(gpu);
      model_->granularity = granularity_ == "warp" ? kernelet::Granularity::Warp : kernelet::Granularity::Block;
      model_->split = split_;
      if (latency_ > 0) model_->memory.base_latency = latency_;
      model_->memory.a0 = a0_;
      model_->memory.b0 = b0_;
      model_gpu_ = gpu.name;
      inputs_.clear();
      // The chain's solution depends on the SM model and the composition only: the key opens with the model's
      // fields.
      const auto& m = *model_;
      model_key_.clear();
      append(model_key_, m.memory.base_latency, m.memory.bandwidth, m.memory.a0, m.memory.b0,
             m.memory.requests_per_uncoalesced, m.schedulers, m.peak_ipc, static_cast<int>(m.granularity),
             static_cast<int>(m.split));
    }
    return *model_;
  }

  template <class... T>
  static void append(std::string& key, const T&... values) {
    (key.append(reinterpret_cast<const char*>(&values), sizeof(values)), ...);
  }

  // Chains are solved once per (SM model, composition) and remembered for the thread's life, not the run's:
  // the runs of a sweep (a thousand Monte Carlo samples of one workload for Kernelet's Figure 14) meet the same
  // compositions again, and solving them was a third of each run. Per thread, so a sweep's workers share no lock.
  const std::vector<double>& ipc_cached(const std::vector<kernelet::ModelKernel>& kernels,
                                        const std::vector<int>& blocks) const {
    key_ = model_key_;
    for (std::size_t i = 0; i < kernels.size(); ++i)
      append(key_, kernels[i].warps_per_block, kernels[i].memory_ratio, kernels[i].uncoalesced, blocks[i]);
    thread_local std::unordered_map<std::string, std::vector<double>> cache;
    if (const auto it = cache.find(key_); it != cache.end()) return it->second;
    return cache.emplace(key_, kernelet::sm_ipc(*model_, kernels, blocks)).first->second;
  }

  std::string granularity_;
  double latency_, a0_, b0_;
  bool calibrated_ = false;
  kernelet::SchedulerSplit split_ = kernelet::SchedulerSplit::Blocks;
  mutable std::mutex mutex_;
  mutable std::optional<kernelet::SmModel> model_;
  mutable std::string model_gpu_, model_key_, key_;
  mutable std::unordered_map<const KernelProfile*, KernelInputs> inputs_;
  mutable std::vector<kernelet::ModelKernel> kernels_;
  mutable std::vector<int> blocks_;
  mutable std::vector<std::tuple<int, double, double, int>> corunners_;
  mutable const GpuSpec* model_gpu_spec_ = nullptr;
  struct WordsHash {
    std::size_t operator()(const std::vector<std::uint64_t>& words) const {
      std::uint64_t h = 0x9e3779b97f4a7c15ULL;
      for (const std::uint64_t w : words) h = (h ^ w) * 0xbf58476d1ce4e5b9ULL + (h >> 29);
      return static_cast<std::size_t>(h);
    }
  };
  mutable std::vector<std::uint64_t> memo_key_;
  mutable std::unordered_map<std::vector<std::uint64_t>, double, WordsHash> memo_;  // per SM model: IPC per block
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
        {"b0", gpusched::sim::ParamType::Double, "0", "constant latency term, cycles"},
        {"inputs", gpusched::sim::ParamType::String, "counted",
         "counted: R_m = memory instructions / instructions (the paper's); calibrated: R_m set so that the chain "
         "reproduces each kernel's recorded IPC alone (kernels without a recorded IPC keep their counted inputs)"},
        {"split", gpusched::sim::ParamType::String, "blocks",
         "how an SM's blocks are divided among its warp schedulers: blocks (the paper's text: blocks / schedulers per "
         "virtual SM) or warps (as the hardware: each block's warps spread over every scheduler)"}}),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::MarkovInterference>(p); })
