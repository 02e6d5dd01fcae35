#include "core/knapsack_reorder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/knapsack.h"

namespace gpusched {

KnapsackSolver knapsack_solver_named(const std::string& name, const std::string& what) {
  if (name == "exact") return KnapsackSolver::Exact;
  if (name == "linearized") return KnapsackSolver::Linearized;
  if (name == "greedy") return KnapsackSolver::Greedy;
  throw std::invalid_argument(what + " expects exact, linearized or greedy, found \"" + name + "\"");
}

ReorderKernel reorder_kernel_of(const KernelProfile& k, TimeNs estimated_time) {
  return ReorderKernel{k.block_count(), k.threads_per_block(),
                       static_cast<std::int64_t>(k.registers_per_thread) * k.threads_per_block(),
                       k.shared_memory_per_block, estimated_time};
}

double knapsack_value(const ReorderKernel& k, const GpuSpec& g) {
  const double fraction = static_cast<double>(k.shared_memory_per_block) / g.shared_memory_per_sm +
                          static_cast<double>(k.registers_per_block) / g.registers_per_sm +
                          static_cast<double>(k.threads_per_block) / g.max_threads_per_sm;
  const double t_ms = std::max(1e-9, static_cast<double>(k.estimated_time) / 1e6);
  return fraction / (3.0 * t_ms);
}

ReorderResult knapsack_reorder(const std::vector<ReorderKernel>& kernels, const GpuSpec& g, int queues,
                               KnapsackSolver solver) {
  if (queues < 1) throw std::invalid_argument("knapsack_reorder: at least one queue");
  // Capacities W_j = R_j x NSM: shared memory, registers, threads (seed 002 section 3).
  const std::array<std::int64_t, 3> capacity{static_cast<std::int64_t>(g.shared_memory_per_sm) * g.sm_count,
                                             static_cast<std::int64_t>(g.registers_per_sm) * g.sm_count,
                                             static_cast<std::int64_t>(g.max_threads_per_sm) * g.sm_count};
  const std::size_t n = kernels.size();
  std::vector<std::array<std::int64_t, 3>> weight(n);
  std::vector<double> value(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& k = kernels[i];
    // w_ij = per-block need x blocks, capped at the capacity: a kernel larger than the GPU still runs, in
    // waves, so it is a candidate that takes the whole of that resource.
    weight[i] = {std::min(capacity[0], k.shared_memory_per_block * k.blocks),
                 std::min(capacity[1], k.registers_per_block * k.blocks),
                 std::min(capacity[2], static_cast<std::int64_t>(k.threads_per_block) * k.blocks)};
    value[i] = knapsack_value(k, g);
  }
  ReorderResult out;
  out.queue.assign(n, -1);
  std::vector<std::vector<std::size_t>> queue_items(static_cast<std::size_t>(queues));
  std::vector<TimeNs> queue_free(static_cast<std::size_t>(queues), 0);
  std::vector<std::size_t> remaining(n);
  for (std::size_t i = 0; i < n; ++i) remaining[i] = i;
  struct Running {
    std::size_t kernel;
    TimeNs finish;
  };
  std::vector<Running> running;
  std::array<std::int64_t, 3> available = capacity;
  TimeNs now = 0;
  while (!remaining.empty()) {
    // GetKernelsToSubmit (Algorithm 2): the knapsack over the kernels left and the free resources.
    std::vector<KnapsackItem> items;
    for (const auto i : remaining) items.push_back({value[i], weight[i]});
    KnapsackSolution solution;
    if (solver == KnapsackSolver::Exact) {
      solution = solve_knapsack_exact(items, available, 200'000);
    } else if (solver == KnapsackSolver::Greedy) {
      solution = solve_knapsack_greedy(items, available);
    } else {
      try {
        solution = solve_knapsack_linearized(items, available);
      } catch (const std::length_error& e) {  // a choice the user made that cannot work on this GPU
        throw std::invalid_argument(std::string("solver linearized: ") + e.what());
      }
    }
    ++out.knapsacks;
    out.exact = out.exact && solution.exact;
    std::vector<std::size_t> chosen;
    for (const auto c : solution.chosen) chosen.push_back(remaining[c]);
    // NextSubmitList in decreasing value (ties by index).
    std::stable_sort(chosen.begin(), chosen.end(), [&](std::size_t a, std::size_t b) { return value[a] > value[b]; });
    for (const auto k : chosen) {
      // FindEarlyQueue: the queue whose last kernel ends first (lowest index on ties).
      const auto q =
          static_cast<std::size_t>(std::min_element(queue_free.begin(), queue_free.end()) - queue_free.begin());
      queue_items[q].push_back(k);
      out.queue[k] = static_cast<int>(q);
      const TimeNs finish = std::max(now, queue_free[q]) + std::max<TimeNs>(1, kernels[k].estimated_time);
      queue_free[q] = finish;
      running.push_back({k, finish});
      for (int d = 0; d < 3; ++d) available[d] -= weight[k][d];
      std::erase(remaining, k);
    }
    if (running.empty()) throw std::logic_error("knapsack_reorder: no kernel fits an empty GPU");
    // SelectEarliestKernel: simulate the end of the kernel that finishes first and free its resources.
    const auto first = std::min_element(running.begin(), running.end(), [](const Running& a, const Running& b) {
      return a.finish != b.finish ? a.finish < b.finish : a.kernel < b.kernel;
    });
    now = first->finish;
    for (int d = 0; d < 3; ++d) available[d] += weight[first->kernel][d];
    running.erase(first);
  }
  // RoundRobinCross: the first kernel of each queue, then the second of each, ...
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (const auto& q : queue_items)
      if (round < q.size()) {
        out.order.push_back(q[round]);
        any = true;
      }
    if (!any) break;
  }
  return out;
}

}  // namespace gpusched
