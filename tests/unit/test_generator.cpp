#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/generator.h"
#include "core/occupancy.h"

using namespace gpusched;

TEST(Generator, ProfileLaysBlocksOutAsAStaircase) {
  SyntheticProfileSpec s;
  s.name = "k";
  s.gpu = "gtx480";
  s.blocks = 100;
  s.threads_per_block = 256;  // 6 per SM on GTX480 -> 90 slots
  s.mean_block_ns = 1000;
  s.rsd = 0.0;  // all blocks 1000 ns
  const auto g = synthesize_profile(s);
  EXPECT_EQ(g.profile.record_sets[0].residency, 6);
  const auto& r = g.records[0];
  ASSERT_EQ(r.size(), 100u);
  // 90 blocks start at 0, the last 10 at 1000 (ceil(100 / 90) = 2 waves).
  TimeNs last_end = 0;
  int first_wave = 0;
  for (const auto& b : r) {
    first_wave += b.start == 0;
    last_end = std::max(last_end, b.end);
  }
  EXPECT_EQ(first_wave, 90);
  EXPECT_EQ(last_end, 2000);
}

TEST(Generator, SameSeedSameProfile) {
  SyntheticProfileSpec s;
  s.name = "k";
  s.gpu = "h100";
  s.blocks = 1000;
  s.mean_block_ns = 5000;
  s.rsd = 0.4;
  s.seed = 42;
  const auto a = synthesize_profile(s), b = synthesize_profile(s);
  EXPECT_EQ(a.profile.record_sets[0].duration_by_block, b.profile.record_sets[0].duration_by_block);
  s.seed = 43;
  EXPECT_NE(synthesize_profile(s).profile.record_sets[0].duration_by_block, a.profile.record_sets[0].duration_by_block);
  EXPECT_NEAR(a.profile.record_sets[0].mean_ns, 5000, 5000 * 0.05);
}

TEST(Generator, KnapsackWorkloadFollowsSeed002) {
  KnapsackGeneratorSpec s;
  s.kernels = 64;
  s.max_blocks = 32;
  s.seed = 3;
  const auto g = generate_knapsack_workload(s);
  ASSERT_EQ(g.workload.launches.size(), 64u);
  const GpuSpec& gpu = *find_gpu_preset("titanx");
  for (std::size_t i = 0; i < 64; ++i) {
    const auto& k = g.workload.kernel_of(i);
    EXPECT_GE(k.block_count(), 4);
    EXPECT_LE(k.block_count(), 32);
    EXPECT_EQ(k.registers_per_thread, 0);  // seed 002 keeps nr_i = 0
    EXPECT_GT(compute_occupancy(gpu, k.shape()).blocks_per_sm, 0);
    EXPECT_EQ(g.workload.launches[i].stream, fmt::format("s{:02}", i % 32));
  }
  // 64 kernels in 32 streams: kernel 32 waits for kernel 0.
  EXPECT_EQ(g.workload.dag.predecessors(32), (std::vector<std::size_t>{0}));
}
