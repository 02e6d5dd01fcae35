// knapsack: kernel submission reordering by a series of knapsack problems (seed 002). Before the run the
// launches are resubmitted in the order Algorithm 1 produces (simulated hardware queues, a 0-1 knapsack
// over the free shared memory, registers and threads whenever a kernel ends, queues taken round-robin),
// each on its queue as a stream; the reordered submission then runs as on a real GPU, under the
// hardware's left-over policy (fifo). docs/policies/knapsack.md.
#include <cmath>

#include "core/knapsack_reorder.h"
#include "core/occupancy.h"
#include "sim/policies/ordered_issue.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class KnapsackPolicy final : public Policy {
 public:
  explicit KnapsackPolicy(const Params& p)
      : issue_(p),
        queues_(static_cast<int>(p.get_int("queues"))),
        solver_(knapsack_solver_named(p.get_string("solver"), "policy knapsack: parameter 'solver'")),
        estimate_(p.get_string("estimate")) {
    if (queues_ < 1) throw std::invalid_argument("policy knapsack: parameter 'queues' must be at least 1");
    if (estimate_ != "alone" && estimate_ != "staircase")
      throw std::invalid_argument("policy knapsack: parameter 'estimate' expects alone or staircase, found \"" +
                                  estimate_ + "\"");
  }
  std::string name() const override { return "knapsack"; }

  std::optional<Submission> resubmit(const Workload& w, const GpuSpec& gpu, const std::vector<TimeNs>& alone) override {
    // The paper reorders independent kernels; queue order could contradict explicit dependencies, so a
    // workload with any runs as submitted.
    for (const auto& l : w.launches)
      if (!l.after.empty()) return std::nullopt;
    std::vector<ReorderKernel> kernels;
    for (std::size_t i = 0; i < w.launches.size(); ++i) {
      const auto& k = w.kernel_of(i);
      TimeNs estimate = alone[i];
      if (estimate_ == "staircase") {  // seed 001 Eq. 1 over the whole GPU with the mean recorded block time
        const int residency = std::max(1, compute_occupancy(gpu, k.shape()).blocks_per_sm);
        const std::int64_t slots = static_cast<std::int64_t>(residency) * gpu.sm_count;
        estimate = static_cast<TimeNs>(
            std::llround(static_cast<double>((k.block_count() + slots - 1) / slots) * k.mean_block_ns()));
      }
      kernels.push_back(reorder_kernel_of(k, estimate));
    }
    const auto result = knapsack_reorder(kernels, gpu, queues_, solver_);
    Submission s;
    s.order = result.order;
    for (std::size_t i = 0; i < w.launches.size(); ++i) s.stream.push_back("q" + std::to_string(result.queue[i]));
    return s;
  }

  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    issue_.run(v, events, a, v.active());
  }

 private:
  OrderedIssue issue_;
  int queues_;
  KnapsackSolver solver_;
  std::string estimate_;
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(
    gpusched::sim::Policy, knapsack, "knapsack",
    "submissions reordered by a series of 0-1 knapsacks over free resources (seed 002), then run as fifo",
    (std::vector<gpusched::sim::ParamSpec>{
        {"queues", gpusched::sim::ParamType::Int, "32", "hardware queues simulated (S; Hyper-Q has 32)"},
        {"solver", gpusched::sim::ParamType::String, "exact",
         "exact (multi-dimensional branch and bound), linearized (the paper's single-integer table, small GPUs "
         "only) or greedy (by value density, approximate; not in the paper)"},
        {"estimate", gpusched::sim::ParamType::String, "alone",
         "t_est: alone (the profile's time alone) or staircase (seed 001 Eq. 1 with the mean block time)"},
        gpusched::sim::placement_param()}),
    [](const gpusched::sim::Params& p) { return std::make_unique<gpusched::sim::KnapsackPolicy>(p); })
