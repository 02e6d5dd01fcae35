// Occupancy calculator: how many blocks of a kernel fit on one SM, and which limit binds. The rules are
// those of CUDA's occupancy calculator (cuda_occupancy.h) for each preset's compute capability.
#pragma once
#include <string_view>

#include "core/gpu_spec.h"

namespace gpusched {

enum class OccupancyLimit { Threads, Warps, Registers, SharedMemory, BlockSlots, None };
std::string_view to_string(OccupancyLimit l);

// What one block of a kernel takes from an SM once allocation granularities are applied.
struct BlockFootprint {
  int threads = 0;
  int warps = 0;
  int registers = 0;      // allocated registers (per-warp granularity)
  int shared_memory = 0;  // allocated bytes (granularity and per-block reservation)
  // Written out (not defaulted): CUDA sources include this header as C++17.
  friend bool operator==(const BlockFootprint& a, const BlockFootprint& b) {
    return a.threads == b.threads && a.warps == b.warps && a.registers == b.registers &&
           a.shared_memory == b.shared_memory;
  }
};

struct KernelShape {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  int shared_memory_per_block = 0;  // static + dynamic bytes
};

struct Occupancy {
  int blocks_per_sm = 0;  // 0: the kernel cannot run on this GPU
  OccupancyLimit limit = OccupancyLimit::None;
  int by_threads = 0, by_warps = 0, by_registers = 0, by_shared_memory = 0, by_block_slots = 0;
  BlockFootprint footprint;
  double warp_occupancy = 0.0;  // resident warps / max warps per SM
  const char* reason = "";      // why 0 blocks fit, when they do not
};

BlockFootprint block_footprint(const GpuSpec& gpu, const KernelShape& k);
Occupancy compute_occupancy(const GpuSpec& gpu, const KernelShape& k);

}  // namespace gpusched
