// Kernel submission reordering by a series of knapsack problems (seed 002, Algorithm 1): simulate S
// hardware queues; at the start and whenever a kernel finishes (simulated with its estimated time), solve
// a 0-1 knapsack over the resources left free and queue the chosen kernels, highest value first, each on
// the queue that frees earliest; the new submission order takes the queues round-robin.
#pragma once
#include <cstdint>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/time.h"

namespace gpusched {

struct ReorderKernel {
  std::int64_t blocks = 1;                   // nb_i
  int threads_per_block = 0;                 // nt_i
  std::int64_t registers_per_block = 0;      // nr_i
  std::int64_t shared_memory_per_block = 0;  // sh_i
  TimeNs estimated_time = 1;                 // t_i^est
};

// A kernel's resources per block as seed 002 counts them (registers per block = per thread x threads).
ReorderKernel reorder_kernel_of(const KernelProfile& k, TimeNs estimated_time);

enum class KnapsackSolver { Exact, Linearized, Greedy };

// "exact", "linearized" or "greedy"; throws std::invalid_argument naming `what` otherwise.
KnapsackSolver knapsack_solver_named(const std::string& name, const std::string& what);

struct ReorderResult {
  std::vector<std::size_t> order;  // kernel indices in the new submission order
  std::vector<int> queue;          // queue of each kernel (by kernel index)
  std::int64_t knapsacks = 0;      // knapsack problems solved
  bool exact = true;               // every branch and bound finished within its node budget
};

// Eq. 1: v_i = (sh_i / R0 + nr_i / R1 + nt_i / R2) / (3 t_i^est), with R the per-SM resources (t in ms).
double knapsack_value(const ReorderKernel& k, const GpuSpec& gpu);

ReorderResult knapsack_reorder(const std::vector<ReorderKernel>& kernels, const GpuSpec& gpu, int queues,
                               KnapsackSolver solver = KnapsackSolver::Exact);

}  // namespace gpusched
