// gpusched reorder: seed 002's knapsack reordering on its own: prints the new submission order with each
// launch's queue, and how long the reordering took (seed 002 Table 3 weighs this against the gain).
#include <fmt/format.h>

#include <chrono>

#include "core/gpu_file.h"
#include "core/knapsack_reorder.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"
#include "sim/runner.h"

namespace gpusched::cli {

void add_reorder_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("reorder", "Reorder a workload's submissions by a series of knapsacks (seed 002)");
  auto workload = std::make_shared<std::string>();
  auto gpu_name = std::make_shared<std::string>();
  auto queues = std::make_shared<int>(32);
  auto solver = std::make_shared<std::string>("exact");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_option("--workload,-w", *workload, "Workload file")->required();
  cmd->add_option("--gpu", *gpu_name, "GPU preset or file (default: the workload's)");
  cmd->add_option("--queues", *queues, "Hardware queues simulated")->check(CLI::Range(1, 1024));
  cmd->add_option("--solver", *solver, "exact, linearized (the paper's table) or greedy (approximate)")
      ->check(CLI::IsMember({"exact", "linearized", "greedy"}));
  cmd->add_flag("--time-only", *quiet, "Print only the time the reordering took, in ns");
  cmd->callback([=] {
    const auto loaded = load_workload_and_gpu(*workload, *gpu_name);
    const Workload& w = loaded.workload;
    const GpuSpec& gpu = loaded.gpu;
    sim::AloneTimeCache alone;
    std::vector<ReorderKernel> kernels;
    for (std::size_t i = 0; i < w.launches.size(); ++i) {
      const auto& k = w.kernel_of(i);
      kernels.push_back(reorder_kernel_of(k, alone.get(k, i, gpu, 1, "none", {}).time));
    }
    const auto start = std::chrono::steady_clock::now();
    const auto r = knapsack_reorder(kernels, gpu, *queues, knapsack_solver_named(*solver, "--solver"));
    const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
    if (*quiet) {
      fmt::print("{}\n", took.count());
      return;
    }
    fmt::print("reordered {} launches into {} queues with {} knapsacks in {}{}\n", w.launches.size(), *queues,
               r.knapsacks, format_duration(took.count()), r.exact ? "" : " (a branch and bound hit its node budget)");
    fmt::print("{:<6} {:<20} {:>6}\n", "order", "launch", "queue");
    for (std::size_t k = 0; k < r.order.size(); ++k)
      fmt::print("{:<6} {:<20} {:>6}\n", k, w.launches[r.order[k]].id, r.queue[r.order[k]]);
  });
}

}  // namespace gpusched::cli
