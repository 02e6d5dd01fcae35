#include "core/occupancy.h"

#include <algorithm>
#include <climits>

namespace gpusched {
namespace {

int div_round_up(int x, int y) { return (x + y - 1) / y; }
int round_up(int x, int y) { return div_round_up(x, y) * y; }

}  // namespace

std::string_view to_string(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::Threads: return "threads";
    case OccupancyLimit::Warps: return "warps";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::SharedMemory: return "shared memory";
    case OccupancyLimit::BlockSlots: return "block slots";
    case OccupancyLimit::None: return "none";
  }
  return "none";
}

BlockFootprint block_footprint(const GpuSpec& gpu, const KernelShape& k) {
  BlockFootprint f;
  f.threads = k.threads_per_block;
  f.warps = div_round_up(k.threads_per_block, gpu.warp_size);
  // Registers are allocated per warp, rounded up to the allocation unit (cudaOccMaxBlocksPerSMRegsLimit).
  const int regs_per_warp = round_up(k.registers_per_thread * gpu.warp_size, gpu.register_allocation_unit);
  f.registers = regs_per_warp * f.warps;
  // Shared memory: static + dynamic + the driver's per-block reservation, rounded to the granularity
  // (cudaOccMaxBlocksPerSMSmemLimit).
  const int smem = k.shared_memory_per_block + gpu.reserved_shared_memory_per_block;
  f.shared_memory = round_up(smem, gpu.shared_memory_allocation_unit);
  return f;
}

Occupancy compute_occupancy(const GpuSpec& gpu, const KernelShape& k) {
  Occupancy o;
  o.footprint = block_footprint(gpu, k);
  const auto& f = o.footprint;
  if (k.threads_per_block <= 0) {
    o.reason = "no threads per block";
    return o;
  }
  if (k.threads_per_block > gpu.max_threads_per_block) {
    o.reason = "more threads per block than the GPU allows";
    o.limit = OccupancyLimit::Threads;
    return o;
  }
  o.by_threads = gpu.max_threads_per_sm / k.threads_per_block;
  o.by_warps = gpu.max_warps_per_sm / f.warps;
  o.by_block_slots = gpu.max_blocks_per_sm;

  // Registers (cudaOccMaxBlocksPerSMRegsLimit): the hardware check rounds the block's warps up to the
  // number of register sub-partitions; the SM holds (registers per sub-partition / registers per warp)
  // warps in each sub-partition.
  const int regs_per_warp = k.registers_per_thread > 0 ? f.registers / f.warps : 0;
  const int regs_assumed = regs_per_warp * round_up(f.warps, gpu.register_sub_partitions);
  if (k.registers_per_thread > gpu.max_registers_per_thread) {
    o.by_registers = 0;
    o.reason = "more registers per thread than the GPU allows";
  } else if (gpu.max_registers_per_block < regs_assumed || gpu.max_registers_per_block < f.registers) {
    o.by_registers = 0;
    o.reason = "more registers per block than the GPU allows";
  } else if (regs_per_warp > 0) {
    const int warps_per_partition = (gpu.registers_per_sm / gpu.register_sub_partitions) / regs_per_warp;
    o.by_registers = warps_per_partition * gpu.register_sub_partitions / f.warps;
  } else {
    o.by_registers = INT_MAX;
  }

  // Shared memory.
  if (k.shared_memory_per_block > gpu.max_shared_memory_per_block ||
      f.shared_memory > gpu.shared_memory_per_sm) {
    o.by_shared_memory = 0;
    o.reason = "more shared memory per block than the GPU allows";
  } else {
    o.by_shared_memory = f.shared_memory > 0 ? gpu.shared_memory_per_sm / f.shared_memory : INT_MAX;
  }

  // The binding limit is the smallest; ties are reported in this order (the CUDA calculator's order of
  // evaluation: warps, threads, registers, shared memory, then block slots last).
  struct Candidate {
    int blocks;
    OccupancyLimit limit;
  };
  const Candidate candidates[] = {{o.by_warps, OccupancyLimit::Warps},
                                  {o.by_threads, OccupancyLimit::Threads},
                                  {o.by_registers, OccupancyLimit::Registers},
                                  {o.by_shared_memory, OccupancyLimit::SharedMemory},
                                  {o.by_block_slots, OccupancyLimit::BlockSlots}};
  Candidate best = candidates[0];
  for (const auto& c : candidates)
    if (c.blocks < best.blocks) best = c;
  o.blocks_per_sm = best.blocks;
  o.limit = best.limit;
  if (o.blocks_per_sm > 0) o.reason = "";
  o.warp_occupancy =
      static_cast<double>(o.blocks_per_sm * f.warps) / static_cast<double>(gpu.max_warps_per_sm);
  return o;
}

}  // namespace gpusched
