// Kernelet's Markov-chain model (seed 000, section 4.4): chains small enough to solve by hand, and the
// properties every solution must have.
#include <gtest/gtest.h>

#include <numeric>

#include "core/gpu_spec.h"
#include "core/markov_model.h"

using namespace gpusched;
using namespace gpusched::kernelet;

namespace {

ChainMemory constant_latency(double cycles) {
  ChainMemory m;
  m.base_latency = cycles;
  m.a0 = 0.0;  // no contention term: L is the constant
  m.b0 = 0.0;
  m.bandwidth = 1.0;
  return m;
}

ChainKernel warps_of(int n, double rm) {
  ChainKernel k;
  k.units = n;
  k.memory_ratio = rm;
  return k;
}

ChainKernel warps(int n, double rm, double uncoalesced = 0.0) {
  ChainKernel k;
  k.units = n;
  k.memory_ratio = rm;
  k.uncoalesced = uncoalesced;
  return k;
}

}  // namespace

TEST(MarkovModel, OneWarpByHand) {
  // States S0 (ready), S1 (idle). S0 -> S1 with R_m = 0.1. In S1 no warp is ready: the round is one idle
  // cycle and the warp returns with P = round / L = 1/10. Balance: pi0 * 0.1 = pi1 * 0.1 -> pi = (1/2, 1/2).
  // Eq. 4: IPC = pi0 * 1 / (pi0 * 1 + pi1) = 1/2 = 1 / (1 + R_m L).
  const auto sol = solve_chain({warps(1, 0.1)}, constant_latency(10));
  ASSERT_EQ(sol.states, 2u);
  EXPECT_NEAR(sol.stationary[0], 0.5, 1e-12);
  EXPECT_NEAR(sol.stationary[1], 0.5, 1e-12);
  EXPECT_NEAR(sol.ipc[0], 0.5, 1e-12);
  // R_m = 0.25, L = 20: IPC = 1 / (1 + 5) = 1/6.
  EXPECT_NEAR(solve_chain({warps(1, 0.25)}, constant_latency(20)).ipc[0], 1.0 / 6, 1e-12);
}

TEST(MarkovModel, TwoWarpTransitionMatrixByHand) {
  // W = 2, R_m = 0.5, L = 4 (constant). From S0 (2 ready, round 2 cycles): idle count ~ Bin(2, 0.5):
  // P00 = 1/4, P01 = 1/2, P02 = 1/4. From S1 (1 ready, round 1, return P = 1/4): stays if (ready stays and
  // idle stays) or (ready stalls and idle returns): 1/2*3/4 + 1/2*1/4 = 1/2; to S0: 1/2*1/4 = 1/8; to S2:
  // 1/2*3/4 = 3/8. From S2 (round is one idle cycle, P = 1/4 each): Bin(2, 1/4) returns: P22 = 9/16,
  // P21 = 6/16, P20 = 1/16.
  std::size_t n = 0;
  const auto P = transition_matrix({warps(2, 0.5)}, constant_latency(4), n);
  ASSERT_EQ(n, 3u);
  const double expected[9] = {0.25, 0.5, 0.25, 0.125, 0.5, 0.375, 1.0 / 16, 6.0 / 16, 9.0 / 16};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(P[static_cast<std::size_t>(i)], expected[i], 1e-12) << "entry " << i;
}

TEST(MarkovModel, TwoKernelsByHand) {
  // K1: one warp that never stalls (R_m = 0); K2: one warp that always stalls (R_m = 1); L = 4. K1 stays
  // ready, so the round in (0, 1) lasts one cycle and K2 returns with P = 1/4. States (0,0) and (0,1):
  // x = pi(0,0), y = pi(0,1): x = y / 4 and x + y = 1 -> x = 0.2, y = 0.8.
  // Eq. 5: IPC1 = (0.2*1 + 0.8*1) / (0.2*2 + 0.8*1) = 1/1.2; Eq. 6: IPC2 = 0.2 / 1.2; Eq. 7: total 1.
  const auto sol = solve_chain({warps(1, 0.0), warps(1, 1.0)}, constant_latency(4));
  ASSERT_EQ(sol.states, 4u);  // (w1 + 1)(w2 + 1)
  EXPECT_NEAR(sol.ipc[0], 1 / 1.2, 1e-12);
  EXPECT_NEAR(sol.ipc[1], 0.2 / 1.2, 1e-12);
  EXPECT_NEAR(sol.total_ipc, 1.0, 1e-12);
  // Alone: IPC1 = 1; IPC2 = 1 / (1 + 1 * 4) = 0.2. Eq. 1: CP = 1 - 1 / (0.8333/1 + 0.1667/0.2) = 0.4.
  const double alone2 = solve_chain({warps(1, 1.0)}, constant_latency(4)).ipc[0];
  EXPECT_NEAR(alone2, 0.2, 1e-12);
  EXPECT_NEAR(co_scheduling_profit(sol.ipc, {1.0, alone2}), 0.4, 1e-12);
}

TEST(MarkovModel, StationaryVectorAndIpcBounds) {
  ChainMemory m;  // the linear contention model
  m.base_latency = 400;
  m.bandwidth = 0.05;
  for (int w : {1, 4, 12, 24})
    for (double rm : {0.0, 0.01, 0.05, 0.2, 0.6, 1.0})
      for (double unc : {0.0, 0.3}) {
        if (unc > 0 && w > 12) continue;  // three-state chains grow as w^2
        const auto sol = solve_chain({warps(w, rm, unc)}, m);
        const double sum = std::accumulate(sol.stationary.begin(), sol.stationary.end(), 0.0);
        EXPECT_NEAR(sum, 1.0, 1e-9) << w << " warps, R_m " << rm;
        for (double p : sol.stationary) EXPECT_GE(p, 0.0);
        EXPECT_GE(sol.ipc[0], 0.0);
        EXPECT_LE(sol.ipc[0], 1.0 + 1e-12);
      }
  EXPECT_NEAR(solve_chain({warps(8, 0.0)}, m).ipc[0], 1.0, 1e-12) << "no memory instructions: peak IPC";
}

TEST(MarkovModel, IpcFallsAsMemoryRatioRises) {
  ChainMemory m;
  m.base_latency = 400;
  m.bandwidth = 0.05;
  for (int w : {2, 8, 24}) {
    double previous = 2.0;
    for (double rm = 0.0; rm <= 1.0; rm += 0.05) {
      const double ipc = solve_chain({warps(w, rm)}, m).ipc[0];
      EXPECT_LT(ipc, previous + 1e-12) << w << " warps, R_m " << rm;
      previous = ipc;
    }
  }
}

TEST(MarkovModel, ContentionAndUncoalescedAccessesCostIpc) {
  ChainMemory m;
  m.base_latency = 300;
  m.bandwidth = 0.05;
  const double coalesced = solve_chain({warps(8, 0.05)}, m).ipc[0];
  const double uncoalesced = solve_chain({warps(8, 0.05, 0.5)}, m).ipc[0];
  EXPECT_LT(uncoalesced, coalesced);
  ChainMemory slow = m;
  slow.a0 = 4.0;  // steeper contention
  EXPECT_LT(solve_chain({warps(8, 0.05)}, slow).ipc[0], coalesced);
  // Three-state chain: (n+1)(n+2)/2 states for n units.
  EXPECT_EQ(solve_chain({warps(8, 0.05, 0.5)}, m).states, 45u);
}

TEST(MarkovModel, VirtualSmsAndBlockGranularity) {
  SmModel model = sm_model_for(*find_gpu_preset("gtx680"));
  ASSERT_EQ(model.schedulers, 4);
  EXPECT_EQ(model.peak_ipc, 8.0);
  const ModelKernel k{8, 0.02, 0.0};  // 256 threads, 2% memory instructions
  // 8 blocks on 4 schedulers: each virtual SM holds 2 blocks with a quarter of the bandwidth.
  const double ipc = sm_ipc(model, {k}, {8})[0];
  ChainMemory quarter = model.memory;
  quarter.bandwidth /= 4;
  ChainKernel two_blocks;
  two_blocks.units = 2;
  two_blocks.warps_per_unit = 8;
  two_blocks.memory_ratio = 0.02;
  EXPECT_NEAR(ipc, solve_chain({two_blocks}, quarter).ipc[0] * 8.0, 1e-12);
  EXPECT_GT(ipc, 0.0);
  EXPECT_LE(ipc, 8.0);
  // Fractional blocks per virtual SM interpolate: 6 blocks lie between 4 and 8.
  const double six = sm_ipc(model, {k}, {6})[0];
  EXPECT_GE(six, sm_ipc(model, {k}, {4})[0] - 1e-12);
  EXPECT_LE(six, ipc + 1e-12);
  // Block granularity: a block's warps stall together (lockstep), so it hides less latency than independent
  // warps; both see the same trend in R_m.
  SmModel warp_model = model;
  warp_model.granularity = Granularity::Warp;
  const double by_warp = sm_ipc(warp_model, {k}, {8})[0];
  EXPECT_LE(ipc, by_warp + 1e-12) << "block " << ipc << " warp " << by_warp;
  const ModelKernel heavier{8, 0.1, 0.0};
  EXPECT_LT(sm_ipc(model, {heavier}, {8})[0], ipc);
  EXPECT_LT(sm_ipc(warp_model, {heavier}, {8})[0], by_warp);
  // Two kernels: each one's IPC with a co-runner is at most its IPC alone.
  const ModelKernel memory_bound{8, 0.3, 0.0};
  const auto both = sm_ipc(model, {k, memory_bound}, {4, 4});
  EXPECT_LE(both[0], sm_ipc(model, {k}, {4})[0] + 1e-12);
  EXPECT_LE(both[1], sm_ipc(model, {memory_bound}, {4})[0] + 1e-12);
  EXPECT_EQ(sm_ipc(model, {k, memory_bound}, {4, 0})[1], 0.0);
}

TEST(MarkovModel, WarpsSplitPutsEveryBlockOnEveryScheduler) {
  // An H100-like SM: 4 schedulers, peak IPC 4. One block of 8 warps that never stalls (R_m = 0).
  // Blocks split (the paper's text): 1/4 block per virtual SM, interpolated between 0 blocks (IPC 0) and one
  // block (every round issues: fraction 1), so 0.25 x 1 x peak 4 = 1: one scheduler's worth.
  // Warps split (the hardware's): the block's 8 warps are 2 on each scheduler; every virtual SM issues every
  // cycle: 1 x peak 4 = 4.
  SmModel model = sm_model_for(*find_gpu_preset("h100"));
  ASSERT_EQ(model.schedulers, 4);
  ASSERT_EQ(model.peak_ipc, 4.0);
  const ModelKernel never_stalls{8, 0.0, 0.0};
  EXPECT_NEAR(sm_ipc(model, {never_stalls}, {1})[0], 1.0, 1e-12);
  SmModel warps = model;
  warps.split = SchedulerSplit::Warps;
  EXPECT_NEAR(sm_ipc(warps, {never_stalls}, {1})[0], 4.0, 1e-12);
  // Under the warps split a block is a unit of 8 / 4 = 2 warps on each virtual SM (a quarter of the bandwidth):
  // 3 blocks are the 3-unit chain, no interpolation.
  const ModelKernel k{8, 0.05, 0.0};
  ChainMemory quarter = model.memory;
  quarter.bandwidth /= 4;
  ChainKernel three;
  three.units = 3;
  three.warps_per_unit = 2;
  three.memory_ratio = 0.05;
  EXPECT_NEAR(sm_ipc(warps, {k}, {3})[0], solve_chain({three}, quarter).ipc[0] * 4.0, 1e-12);
  // Blocks of fewer warps than schedulers: a unit is a fraction of a warp per virtual SM (2 warps: half).
  const ModelKernel small{2, 0.0, 0.0};
  // It never stalls, but its 2 warps reach only 2 of the 4 schedulers: every round of a virtual SM is one cycle
  // issuing half a warp, 0.5 x peak 4 = 2.
  EXPECT_NEAR(sm_ipc(warps, {small}, {1})[0], 2.0, 1e-12);
  // Warp granularity under the warps split: 3 blocks x 8 warps / 4 = 6 warps a virtual SM.
  warps.granularity = Granularity::Warp;
  EXPECT_NEAR(sm_ipc(warps, {k}, {3})[0], solve_chain({warps_of(6, 0.05)}, quarter).ipc[0] * 4.0, 1e-12);
}

TEST(MarkovModel, WarpsSplitGroupsUnitsOfLargeCompositions) {
  // Three kernels of 16 blocks with uncoalesced accesses: 153 states each under the three-state extension, 3.6 M
  // together; grouped (g blocks a unit) to at most 1024 states, the chain solves and keeps each kernel's warps.
  SmModel model = sm_model_for(*find_gpu_preset("h100"));
  model.split = SchedulerSplit::Warps;
  const ModelKernel a{8, 0.05, 0.3}, b{4, 0.2, 0.5}, c{8, 0.01, 0.1};
  const auto ipc = sm_ipc(model, {a, b, c}, {16, 16, 16});
  double total = 0;
  for (double x : ipc) {
    EXPECT_GT(x, 0.0);
    total += x;
  }
  EXPECT_LE(total, 4.0 + 1e-9);
  // Grouping keeps warps: two kernels that never stall (R_m = 0; their uncoalesced share makes them 153 states
  // each, 23,409 together, grouped 3 blocks a unit: 6 units of 2 x 16 / 6 and 1 x 16 / 6 warps, 28 states each)
  // share every cycle in proportion to their warps: 8 x 16 against 4 x 16, 2/3 and 1/3 of peak 4.
  const ModelKernel free8{8, 0.0, 0.5}, free4{4, 0.0, 0.5};
  const auto shares = sm_ipc(model, {free8, free4, c}, {16, 16, 0});
  EXPECT_NEAR(shares[0], 4.0 * 2 / 3, 1e-9);
  EXPECT_NEAR(shares[1], 4.0 / 3, 1e-9);
}

TEST(MarkovModel, RejectsBadParameters) {
  EXPECT_THROW(solve_chain({}, ChainMemory{}), std::invalid_argument);
  EXPECT_THROW(solve_chain({warps(2, 1.5)}, ChainMemory{}), std::invalid_argument);
  ChainMemory bad;
  bad.bandwidth = 0;
  EXPECT_THROW(solve_chain({warps(2, 0.1)}, bad), std::invalid_argument);
  EXPECT_THROW(solve_chain({warps(60, 0.1, 0.5), warps(60, 0.1, 0.5)}, ChainMemory{}), std::invalid_argument)
      << "too many states";
}

// The `markov` interference model: alone at the recorded residency a block keeps its recorded time; beside a
// co-runner that competes for issue slots it takes longer; kernels without model inputs are unchanged.
#include "sim/duration_model.h"
#include "sim/registry.h"
#include "test_helpers.h"

TEST(MarkovModel, ProfileInputsFromCountedInstructions) {
  // A profile with counted instructions: R_m = 1036 / 25207 (sgemm-s1's counts on an H100) and the uncoalesced
  // fraction as counted; warps per block 256 / 32 = 8. Uncoalesced accesses wait (32 - 1) / B cycles longer, so
  // the same kernel with half its accesses uncoalesced issues less.
  KernelProfile k;
  k.block = {256, 1, 1};
  k.instructions_per_block = 25207;
  k.memory_instructions_per_block = 1036;
  const GpuSpec gpu = *find_gpu_preset("h100");
  const auto model = kernelet::sm_model_for(gpu);
  const auto coalesced = kernelet::model_kernel(k, model, 32);
  ASSERT_TRUE(coalesced);
  EXPECT_EQ(coalesced->warps_per_block, 8);
  EXPECT_DOUBLE_EQ(coalesced->memory_ratio, 1036.0 / 25207.0);
  EXPECT_DOUBLE_EQ(coalesced->uncoalesced, 0.0);
  k.uncoalesced_fraction = 0.5;
  const auto half = kernelet::model_kernel(k, model, 32);
  ASSERT_TRUE(half);
  EXPECT_DOUBLE_EQ(half->uncoalesced, 0.5);
  EXPECT_LT(kernelet::sm_ipc(model, {*half}, {8})[0], kernelet::sm_ipc(model, {*coalesced}, {8})[0]);
}

TEST(MarkovInterference, CoRunnersSlowBlocksDown) {
  const auto* info = sim::Registry<sim::DurationModel>::instance().find("markov");
  ASSERT_NE(info, nullptr);
  const auto model = info->make(sim::Params::resolve("markov", info->params, {}));
  ASSERT_TRUE(model->needs_co_runners());
  const GpuSpec gpu = *find_gpu_preset("c2050");
  auto compute = test::kernel("compute", 64, 256, {10000});
  compute->instructions_per_block = 8000;
  compute->memory_instructions_per_block = 8;  // R_m = 0.001: issue-bound
  compute->record_sets.back().residency = 4;
  auto plain = test::kernel("plain", 64, 256, {10000});  // no instruction counts: no model inputs

  sim::DurationQuery q;
  q.kernel = compute.get();
  q.gpu = &gpu;
  q.block = 0;
  q.sm_same_kernel_blocks = 4;
  q.sm_resident_blocks = 4;
  EXPECT_EQ(model->duration(q), 10000) << "alone at the recorded residency";

  const sim::CoRunner other{compute.get(), 2};
  q.co_runners = &other;
  q.co_runner_count = 1;
  q.sm_resident_blocks = 6;
  EXPECT_GT(model->duration(q), 10000) << "sharing issue slots with two more issue-bound blocks";

  q.kernel = plain.get();
  EXPECT_EQ(model->duration(q), 10000) << "no model inputs: recorded duration";
  EXPECT_THROW(info->make(sim::Params::resolve("markov", info->params, {{"granularity", "thread"}})),
               std::invalid_argument);
  try {
    info->make(sim::Params::resolve("markov", info->params, {{"split", "threads"}}));
    ADD_FAILURE() << "split=threads accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'split' expects blocks or warps"), std::string::npos) << e.what();
  }
  // One block alone, recorded at 4 a SM (the C2050: 2 schedulers; 8 warps a block). Without stalls: blocks split,
  // 4 blocks are 2 a virtual SM (IPC 1 x peak, a quarter per block) and 1 block is half of a one-block virtual SM
  // (0.5 x peak), so the block runs 2x faster, 5000 ns; warps split, the block's 8 warps are 4 on each scheduler
  // (IPC 1 x peak for the one block), 4x faster, 2500 ns. R_m = 0.001 at 500 cycles a stall leaves a lone block
  // idle more often than four (the chain: 5428 and 2883 ns).
  const auto warps = info->make(sim::Params::resolve("markov", info->params, {{"split", "warps"}}));
  q.kernel = compute.get();
  q.co_runners = nullptr;
  q.co_runner_count = 0;
  q.sm_same_kernel_blocks = 1;
  q.sm_resident_blocks = 1;
  const auto by_blocks = model->duration(q), by_warps = warps->duration(q);
  EXPECT_GE(by_blocks, 5000);
  EXPECT_LT(by_blocks, 6000);
  EXPECT_GE(by_warps, 2500);
  EXPECT_LT(by_warps, 3000);
}

// The chain does not depend on the order the SM lists its co-runners in, so neither may a block's duration
// (the model sorts them: before, each order was solved apart, and the two solutions of this composition differ
// in the last bits, 0.25670061710991976 against 0.2567006171099197 of the victim's IPC; a block long enough
// turns that into nanoseconds).
TEST(MarkovInterference, TheOrderOfCoRunnersDoesNotMatter) {
  const auto* info = sim::Registry<sim::DurationModel>::instance().find("markov");
  ASSERT_NE(info, nullptr);
  const auto model = info->make(sim::Params::resolve("markov", info->params, {}));
  const GpuSpec gpu = *find_gpu_preset("c2050");
  constexpr TimeNs kLong = 100'000'000'000'000'000;  // 1e17 ns: IPCs 1e-16 apart give different durations
  const auto issue_bound = [&](const char* name, int threads) {
    auto k = test::kernel(name, 4, threads, {kLong});
    k->instructions_per_block = 1000;
    k->memory_instructions_per_block = 1;  // R_m = 0.001
    return k;
  };
  auto victim = issue_bound("victim", 64);  // 2 warps a block
  auto narrow = issue_bound("narrow", 64);  // 2 warps
  auto wide = issue_bound("wide", 128);     // 4 warps
  victim->record_sets.back().residency = 2;

  sim::DurationQuery q;
  q.kernel = victim.get();
  q.gpu = &gpu;
  q.sm_same_kernel_blocks = 2;
  q.sm_resident_blocks = 6;
  const sim::CoRunner one_order[] = {{narrow.get(), 2}, {wide.get(), 2}};
  const sim::CoRunner other_order[] = {{wide.get(), 2}, {narrow.get(), 2}};
  q.co_runners = one_order;
  q.co_runner_count = 2;
  const TimeNs first = model->duration(q);
  q.co_runners = other_order;
  EXPECT_EQ(model->duration(q), first);
  EXPECT_GT(first, kLong) << "sharing the issue slots with four more blocks";
}
