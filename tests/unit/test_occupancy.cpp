// Hand-worked occupancy cases, following CUDA's occupancy calculator rules (cuda_occupancy.h).
#include <gtest/gtest.h>

#include "core/occupancy.h"

using namespace gpusched;

namespace {
Occupancy occ(const char* gpu, int threads, int regs, int smem) {
  return compute_occupancy(*find_gpu_preset(gpu), KernelShape{threads, regs, smem});
}
}  // namespace

TEST(Occupancy, FermiWarpLimited) {
  // GTX480, 256 threads (8 warps), 20 registers, 4 KB: warps 48/8 = 6; threads 1536/256 = 6; registers: 20*32 =
  // 640 per warp (64-register unit), 16384/640 = 25 warps per sub-partition, 2 x 25 = 50 warps, 50/8 = 6;
  // shared memory 49152/4096 = 12; slots 8. Result 6, warps (ties reported warps first).
  const auto o = occ("gtx480", 256, 20, 4096);
  EXPECT_EQ(o.blocks_per_sm, 6);
  EXPECT_EQ(o.limit, OccupancyLimit::Warps);
  EXPECT_EQ(o.by_registers, 6);
  EXPECT_EQ(o.by_shared_memory, 12);
  EXPECT_DOUBLE_EQ(o.warp_occupancy, 1.0);
}

TEST(Occupancy, FermiRegisterLimitedLikeRayTracing) {
  // 128 threads (4 warps), 48 registers: 48*32 = 1536 per warp; 16384/1536 = 10 warps per sub-partition;
  // 2 x 10 = 20 warps; 20/4 = 5 blocks (seed 001 Table 2: RayTracing, residency 5).
  const auto o = occ("gtx480", 128, 48, 0);
  EXPECT_EQ(o.blocks_per_sm, 5);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
}

TEST(Occupancy, FermiBlockSlotLimited) {
  // 64 threads: warps 48/2 = 24, but only 8 block slots.
  const auto o = occ("gtx480", 64, 20, 0);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.limit, OccupancyLimit::BlockSlots);
}

TEST(Occupancy, HopperRegisters) {
  // H100, 256 threads, 64 registers: 64*32 = 2048 per warp (256 unit); 16384/2048 = 8 warps per
  // sub-partition; 4 x 8 = 32 warps; 32/8 = 4 blocks. Threads 8, shared memory (1 KB reserved) 228.
  const auto o = occ("h100", 256, 64, 0);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
  EXPECT_EQ(o.footprint.shared_memory, 1024);
  EXPECT_EQ(o.by_shared_memory, 228);
}

TEST(Occupancy, HopperSharedMemoryWithReservation) {
  // 48 KB + 1 KB reserved = 50176 B per block; 233472/50176 = 4.65 -> 4.
  const auto o = occ("h100", 128, 32, 49152);
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_EQ(o.limit, OccupancyLimit::SharedMemory);
  EXPECT_EQ(o.footprint.shared_memory, 50176);
}

TEST(Occupancy, HopperSharedMemoryGranularity) {
  // 1000 B + 1024 reserved = 2024, rounded up to 128: 2048. 233472/2048 = 114; block slots 32 bind.
  const auto o = occ("h100", 32, 0, 1000);
  EXPECT_EQ(o.footprint.shared_memory, 2048);
  EXPECT_EQ(o.by_shared_memory, 114);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limit, OccupancyLimit::BlockSlots);
}

TEST(Occupancy, KeplerSubPartitionRounding) {
  // K40, one warp of 255 registers: 8160 rounded to 8192 per warp; 16384/8192 = 2 warps per
  // sub-partition; 4 x 2 = 8 warps; 8 blocks of one warp (slots would allow 16).
  const auto o = occ("k40", 32, 255, 0);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.limit, OccupancyLimit::Registers);
}

TEST(Occupancy, DoesNotFit) {
  // 1024 threads x 65 registers: 65*32 = 2080 -> 2304 per warp; 2304 x 32 warps = 73728 > 65536 per block.
  EXPECT_EQ(occ("h100", 1024, 65, 0).blocks_per_sm, 0);
  EXPECT_EQ(occ("h100", 1024, 64, 0).blocks_per_sm, 1);  // 2048 x 32 = 65536: exactly one block
  EXPECT_EQ(occ("h100", 2048, 0, 0).blocks_per_sm, 0);   // more than 1024 threads per block
  EXPECT_EQ(occ("h100", 64, 300, 0).blocks_per_sm, 0);   // more than 255 registers per thread
  EXPECT_EQ(occ("gtx480", 64, 0, 49153).blocks_per_sm, 0);
}

TEST(Occupancy, KerneletTable4Occupancies) {
  // Seed 000 Table 4 (C2050): MM 67% (4 blocks x 8 warps of 48), MRIQ 83% (5 x 8), SAD 17% (8 x 1).
  EXPECT_EQ(occ("c2050", 256, 32, 0).blocks_per_sm, 4);
  EXPECT_EQ(occ("c2050", 256, 24, 0).blocks_per_sm, 5);
  EXPECT_NEAR(occ("c2050", 32, 20, 0).warp_occupancy, 8.0 / 48.0, 1e-12);
}
