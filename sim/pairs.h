// Two-program workloads from a set of kernels, as seed 001 section 6.1.3 builds its 56 workloads from 8
// ERCBench kernels: every ordered pair, the second kernel arriving a random 0..N cycles after the first, or at
// a fraction of the first one's time alone (Table 6). Used by `gpusched gen pairs` and by sweep generators.
#pragma once
#include <memory>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/workload.h"
#include "sim/runner.h"

namespace gpusched::sim {

struct PairOptions {
  int offset_cycles = 100;      // second arrival uniform in [0, N] cycles ...
  double offset_fraction = -1;  // ... unless >= 0: at this fraction of the first kernel's time alone
  std::uint64_t seed = 1;
};

struct KernelPair {
  std::size_t first = 0, second = 0;  // indices into the kernels given
  TimeNs second_arrival = 0;
};

// Every ordered pair (a, b), a != b, in row-major order, with the second arrival drawn.
std::vector<KernelPair> make_kernel_pairs(const std::vector<std::shared_ptr<const KernelProfile>>& kernels,
                                          const GpuSpec& gpu, const PairOptions& options, AloneTimeCache& alone);

// The pair as a workload named "A+B" with launches "A-1" and "B-2".
Workload pair_workload(const std::vector<std::shared_ptr<const KernelProfile>>& kernels, const KernelPair& pair,
                       const std::string& gpu);

}  // namespace gpusched::sim
