// Interference model `bandwidth`: co-running blocks share the SM's part of the GPU's DRAM bandwidth. Each kernel
// X demands d_X = bytes per block / mean block time, its bytes per block being the DRAM traffic a profiler counted
// (dram_bytes_per_block) where the profile has it, else its compulsory traffic (memory footprint / grid blocks). A
// block of kernel A dispatched beside others runs
//   duration = recorded x max(1, D / C),   D = sum over the SM's blocks (A's own included) of d,
//   C = max(R_A x d_A, bandwidth / SMs)
// R_A being A's occupancy limit: alone at full residency A already drew R_A x d_A (its recorded time includes
// that), so only demand above what A had alone, or above the SM's share, stretches it. Kernels without a memory
// footprint demand nothing. The duration is fixed at dispatch. docs/interference.md.
#include "sim/interference/bandwidth.h"

#include <algorithm>

#include "core/occupancy.h"
#include "sim/duration_model.h"
#include "sim/registry.h"

namespace gpusched::sim {

double bandwidth_demand_per_block(const KernelProfile& k) {
  const double mean = k.mean_block_ns();
  if (mean <= 0 || k.block_count() <= 0) return 0.0;
  if (k.dram_bytes_per_block) return *k.dram_bytes_per_block / mean;  // bytes/ns
  if (k.memory_footprint_bytes <= 0) return 0.0;
  return static_cast<double>(k.memory_footprint_bytes) / static_cast<double>(k.block_count()) / mean;
}

double bandwidth_slowdown(double demand, double own_demand, int own_limit, const GpuSpec& gpu) {
  const double share = gpu.dram_bandwidth_gbps / std::max(1, gpu.sm_count);  // GB/s = bytes/ns
  const double capacity = std::max(own_demand * std::max(1, own_limit), share);
  return capacity > 0 ? std::max(1.0, demand / capacity) : 1.0;
}

namespace {

class BandwidthInterference final : public DurationModel {
 public:
  bool needs_co_runners() const override { return true; }

  TimeNs duration(const DurationQuery& q) const override {
    const TimeNs base = recorded_duration(*q.kernel, q.block, q.draw_base);
    if (q.co_runner_count == 0) return base;
    const double own = bandwidth_demand_per_block(*q.kernel);
    double demand = own * std::max(1, q.sm_same_kernel_blocks);
    for (int i = 0; i < q.co_runner_count; ++i)
      demand += bandwidth_demand_per_block(*q.co_runners[i].kernel) * q.co_runners[i].blocks;
    const double slowdown =
        bandwidth_slowdown(demand, own, compute_occupancy(*q.gpu, q.kernel->shape()).blocks_per_sm, *q.gpu);
    if (slowdown <= 1.0) return base;
    return std::max<TimeNs>(1, static_cast<TimeNs>(static_cast<double>(base) * slowdown));
  }
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, bandwidth, "bandwidth",
                         "co-running blocks share the SM's part of the DRAM bandwidth (demand from each "
                         "kernel's memory footprint per block and block time)",
                         {}, [](const gpusched::sim::Params&) {
                           return std::make_unique<gpusched::sim::BandwidthInterference>();
                         })
