// Generators of traces and workloads: profiles drawn from a mean block time and its spread (the
// paper-derived traces), and seed 002's synthetic workloads (N kernels of 4..NB blocks).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/workload.h"

namespace gpusched {

struct SyntheticProfileSpec {
  std::string name;
  std::string gpu;  // preset name
  std::int64_t blocks = 1;
  int threads_per_block = 256;
  int registers_per_thread = 0;
  int shared_memory_per_block = 0;
  double mean_block_ns = 1000.0;
  double rsd = 0.0;         // relative standard deviation of block times (0.1 = 10%)
  std::uint64_t seed = 1;
  std::int64_t context_bytes_per_block = -1;  // -1: registers and shared memory
  double idempotent_until = 1.0;
  std::int64_t memory_footprint_bytes = 0;
  std::optional<double> instructions_per_block, memory_instructions_per_block, pur, mur;
};

struct GeneratedProfile {
  KernelProfile profile;
  std::vector<std::vector<BlockRecord>> records;  // one vector per record set
};

// Draws block times (lognormal with the given mean and RSD, seeded) and lays the blocks out as the kernel
// would run alone at its full residency on the GPU: each block goes to the slot that frees first.
GeneratedProfile synthesize_profile(const SyntheticProfileSpec& spec);

struct KnapsackGeneratorSpec {
  int kernels = 32;            // N
  int max_blocks = 64;         // NB: each kernel has 4..NB blocks
  int min_blocks = 4;
  std::string gpu = "titanx";
  int streams = 32;            // kernels go round-robin to this many streams (seed 002: 32)
  double min_block_us = 100.0; // block times uniform in [min, max] per kernel
  double max_block_us = 2000.0;
  double block_rsd = 0.05;
  std::uint64_t seed = 1;
};

struct GeneratedWorkload {
  Workload workload;
  std::vector<GeneratedProfile> profiles;
};

GeneratedWorkload generate_knapsack_workload(const KnapsackGeneratorSpec& spec);

}  // namespace gpusched
