// Two-launch cases worked by hand. One SM of an H100; 1024-thread blocks, so two fit at a time (R = 2).
// A: 4 blocks of 100 ns (alone: 2 waves = 200 ns). B: 2 blocks of 10 ns (alone: 1 wave = 10 ns).
// Both arrive at t = 0, A first.
#include <gtest/gtest.h>

#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::test;

namespace {
Workload two_launches() {
  return make_workload("w", {kernel("A", 4, 1024, {100}), kernel("B", 2, 1024, {10})},
                       {launch("a", 0, 0), launch("b", 1, 0)});
}
const GpuSpec kOneSm = gpu_with_sms("h100", 1);
}  // namespace

TEST(ByHand, Fifo) {
  // A issues two blocks at 0 and its last two at 100 (all issued); B issues only then, once space frees
  // at 200: B runs 200-210. Turnarounds 200 and 210; slowdowns 1 and 21.
  // STP = 1/1 + 1/21 = 1.047619; ANTT = (1 + 21) / 2 = 11; StrictF = 1/21.
  const auto r = run(two_launches(), kOneSm, "fifo");
  EXPECT_EQ(r.launches[0].alone, 200);
  EXPECT_EQ(r.launches[1].alone, 10);
  EXPECT_EQ(r.launches[0].finish, 200);
  EXPECT_EQ(r.launches[1].finish, 210);
  EXPECT_NEAR(r.metrics.stp, 1.0 + 1.0 / 21.0, 1e-12);
  EXPECT_NEAR(r.metrics.antt, 11.0, 1e-12);
  EXPECT_NEAR(r.metrics.strict_f, 1.0 / 21.0, 1e-12);
  EXPECT_EQ(r.metrics.makespan, 210);
}

TEST(ByHand, ALaunchWaitsForAResidentGrid) {
  // One SM of an H100 holding at most two grids; three launches of one 256-thread block of 100 ns, all arriving at
  // 0 (eight such blocks fit the SM at once). a and b take the two grids at 0 and finish at 100; c waits for a's
  // grid and runs 100-200. Without the limit all three run 0-100.
  const auto w =
      make_workload("w", {kernel("k", 1, 256, {100})}, {launch("a", 0, 0), launch("b", 0, 0), launch("c", 0, 0)});
  GpuSpec gpu = gpu_with_sms("h100", 1);
  gpu.max_resident_grids = 2;
  for (const char* policy : {"fifo", "sjf"}) {  // equal launches: sjf keeps the arrival order
    const auto r = run(w, gpu, policy);
    EXPECT_EQ(r.launches[0].finish, 100) << policy;
    EXPECT_EQ(r.launches[1].finish, 100) << policy;
    EXPECT_EQ(r.launches[2].first_dispatch, 100) << policy;
    EXPECT_EQ(r.launches[2].finish, 200) << policy;
  }
  gpu.max_resident_grids = 0;
  EXPECT_EQ(run(w, gpu, "fifo").launches[2].finish, 100);
}

TEST(ByHand, Sjf) {
  // B is shorter alone (10 < 200): it takes the SM first, 0-10; A runs 10-110 and 110-210.
  // Slowdowns: A 210/200 = 1.05, B 1. STP = 1/1.05 + 1 = 1.952381; ANTT = (1.05 + 1) / 2 = 1.025.
  const auto r = run(two_launches(), kOneSm, "sjf");
  EXPECT_EQ(r.launches[1].finish, 10);
  EXPECT_EQ(r.launches[0].finish, 210);
  EXPECT_NEAR(r.metrics.stp, 1.0 / 1.05 + 1.0, 1e-12);
  EXPECT_NEAR(r.metrics.antt, 1.025, 1e-12);
  EXPECT_NEAR(r.metrics.strict_f, 1.0 / 1.05, 1e-12);
}

TEST(ByHand, PriorityEqualLevelsIsFifo) {
  // Both at priority 0: release order, A first, exactly fifo's schedule (A 0-200, B 200-210).
  const auto r = run(two_launches(), kOneSm, "priority");
  EXPECT_EQ(r.launches[0].finish, 200);
  EXPECT_EQ(r.launches[1].finish, 210);
}

TEST(ByHand, PriorityHigherLevelFirst) {
  // B at priority 1 goes before A although released with it: B 0-10 on both slots, then A's four blocks in two
  // waves 10-110 and 110-210 (as sjf). A later launch C (2 blocks of 10 ns at t = 50, priority 2) overtakes A's
  // blocks still to issue: at 110 A's first wave ends, C's two blocks take both slots (110-120), then A's last
  // wave 120-220. Without priorities C would have waited behind A until 210.
  auto w = two_launches();
  w.launches[1].priority = 1;
  auto r = run(w, kOneSm, "priority");
  EXPECT_EQ(r.launches[1].finish, 10);
  EXPECT_EQ(r.launches[0].finish, 210);

  w = make_workload("w", {kernel("A", 4, 1024, {100}), kernel("B", 2, 1024, {10}), kernel("C", 2, 1024, {10})},
                    {launch("a", 0, 0), launch("b", 1, 0), launch("c", 2, 50)});
  w.launches[1].priority = 1;
  w.launches[2].priority = 2;
  r = run(w, kOneSm, "priority");
  EXPECT_EQ(r.launches[1].finish, 10);
  EXPECT_EQ(r.launches[2].first_dispatch, 110);
  EXPECT_EQ(r.launches[2].finish, 120);
  EXPECT_EQ(r.launches[0].finish, 220);
}

TEST(ByHand, Serial) {
  // Like fifo here, and never two launches on the GPU: B runs 200-210.
  const auto r = run(two_launches(), kOneSm, "serial");
  EXPECT_EQ(r.launches[0].finish, 200);
  EXPECT_EQ(r.launches[1].finish, 210);
}

TEST(ByHand, Mpmax) {
  // A leaves room for one B block: A gets 1 slot at 0 (block 0: 0-100), B the other (0-10). At 10 B has a
  // block left and A still reserves for it, so B runs 10-20. From 20 A is alone and reoccupies: block 1
  // 20-120, block 2 100-200, block 3 120-220. A ends at 220 (slowdown 1.1), B at 20 (slowdown 2).
  // STP = 1/1.1 + 1/2 = 1.409091; ANTT = (1.1 + 2) / 2 = 1.55.
  const auto r = run(two_launches(), kOneSm, "mpmax");
  EXPECT_EQ(r.launches[1].finish, 20);
  EXPECT_EQ(r.launches[0].finish, 220);
  EXPECT_NEAR(r.metrics.stp, 1.0 / 1.1 + 0.5, 1e-12);
  EXPECT_NEAR(r.metrics.antt, 1.55, 1e-12);
}

TEST(ByHand, SpatialSmartEven) {
  // Two SMs. A: 8 blocks of 100 ns at t=0 (needs 4 SMs for one wave, gets both: 4 blocks 0-100).
  // B: 4 blocks of 10 ns at t=50. Even split: SM0 stays A's, SM1 goes to B, which waits for A's blocks
  // there to end at 100: B runs 100-110 and 110-120 on SM1; A runs 2 blocks 100-200 on SM0. When B ends
  // (120), A's last 2 blocks take the idle SM1: 120-220. A ends at 220 (alone 200: 1.1), B at 120
  // (turnaround 70, alone 10: 7).
  const auto w = make_workload("w", {kernel("A", 8, 1024, {100}), kernel("B", 4, 1024, {10})},
                               {launch("a", 0, 0), launch("b", 1, 50)});
  const auto r = run(w, gpu_with_sms("h100", 2), "spatial");
  EXPECT_EQ(r.launches[1].first_dispatch, 100);
  EXPECT_EQ(r.launches[1].finish, 120);
  EXPECT_EQ(r.launches[0].finish, 220);
  EXPECT_NEAR(r.launches[1].slowdown, 7.0, 1e-12);
  EXPECT_NEAR(r.metrics.antt, (1.1 + 7.0) / 2, 1e-12);
}

TEST(ByHand, SmartEvenGivesNoSmToALaunchThatCannotStart) {
  // Two SMs holding one grid. A: 8 blocks of 100 ns at t=0, two a SM: waves 0-100 and 100-200 on both SMs.
  // B: 4 blocks of 100 ns at t=50 cannot start while A holds the only grid, so it takes no SM: A keeps both and
  // ends at 200; B runs 200-300 on both. (Split evenly as before, SM1 would go to B and idle from 100 to 300:
  // A's second and third waves on SM0 alone, A at 300 and B at 400.) Chimera's partition likewise: it would
  // otherwise preempt SM1 for a launch that cannot use it.
  const auto w = make_workload("w", {kernel("A", 8, 1024, {100}), kernel("B", 4, 1024, {100})},
                               {launch("a", 0, 0), launch("b", 1, 50)});
  GpuSpec gpu = gpu_with_sms("h100", 2);
  gpu.max_resident_grids = 1;
  for (const char* policy : {"spatial", "chimera"}) {
    const auto r = run(w, gpu, policy);
    EXPECT_EQ(r.launches[0].finish, 200) << policy;
    EXPECT_EQ(r.launches[1].first_dispatch, 200) << policy;
    EXPECT_EQ(r.launches[1].finish, 300) << policy;
  }
}

TEST(ByHand, MetricsBound) {
  // fifo case above: area bound per limit; threads: (4 x 100 + 2 x 10) x 1024/2048 / 1 SM = 210 ns; the
  // longest alone is 200; bound = 210 and makespan 210 meets it exactly.
  const auto r = run(two_launches(), kOneSm, "fifo");
  EXPECT_EQ(r.metrics.bound_area, 210);
  EXPECT_EQ(r.metrics.bound_longest, 200);
  EXPECT_DOUBLE_EQ(r.metrics.makespan_over_bound, 1.0);
  EXPECT_DOUBLE_EQ(r.metrics.sm_utilization, 1.0);
}

// SRTF on two SMs (R = 2 for 1024-thread blocks). A: 40 blocks of 1000 ns (alone: 40 / 4 = 10 waves =
// 10000 ns), arrives at 0. B: 8 blocks of 100 ns (alone: 2 waves = 200 ns), arrives at 50.
namespace {
Workload srtf_pair() {
  return make_workload("w", {kernel("A", 40, 1024, {1000}), kernel("B", 8, 1024, {100})},
                       {launch("a", 0, 0), launch("b", 1, 50)});
}
}  // namespace

TEST(ByHand, SrtfSamplesThenHandsOver) {
  // t=0: A runs alone (nothing to compare with): 2 blocks on each SM, 0-1000.
  // t=50: B arrives and is sampled on SM 0, which takes no more A blocks.
  // t=1000: A's blocks end. A's prediction per SM: 1000 + (20 - 2) x 1000 / 2 = 10000, 9000 remaining.
  //   SM 0 runs B's first 2 blocks (1000-1100); SM 1 runs 2 more of A (1000-2000).
  // t=1100: B's sample: 100 + (4 - 2) x 100 / 2 = 200, 100 remaining < 9000: B runs. SM 0 runs B's other
  //   6 blocks in pairs, 1100-1200, 1200-1300, 1300-1400 (SM 1 still holds A's blocks until 2000: the
  //   hand-off waits for them). B ends at 1400: turnaround 1400 - 50 = 1350, slowdown 1350 / 200 = 6.75.
  // A resumes on SM 0 at 1400 and SM 1 at 2000 (10 blocks issued by then); the other 30 run in pairs at
  // 2400, 3000, 3400, 4000, ..., the last pair on SM 0 at 9400-10400: A ends at 10400 (slowdown 1.04).
  const auto r = run(srtf_pair(), gpu_with_sms("h100", 2), "srtf");
  EXPECT_EQ(r.launches[1].first_dispatch, 1000);
  EXPECT_EQ(r.launches[1].finish, 1400);
  EXPECT_EQ(r.launches[0].finish, 10400);
  EXPECT_NEAR(r.launches[1].slowdown, 6.75, 1e-12);
  EXPECT_NEAR(r.launches[0].slowdown, 1.04, 1e-12);
}

TEST(ByHand, SrtfZeroSampling) {
  // Remaining times given (true times alone): at t=50 B (200) is shorter than A (10000) and runs as soon as
  // space frees: both SMs at 1000: 4 blocks 1000-1100, 4 blocks 1100-1200; B ends at 1200 (slowdown
  // 1150 / 200 = 5.75). A resumes at 1200 with 36 blocks = 9 waves on both SMs: ends at 10200.
  const auto r = run(srtf_pair(), gpu_with_sms("h100", 2), "srtf", 1, 1, {{"sampling", "false"}});
  EXPECT_EQ(r.launches[1].finish, 1200);
  EXPECT_EQ(r.launches[0].finish, 10200);
  EXPECT_NEAR(r.launches[1].slowdown, 5.75, 1e-12);
}

TEST(ByHand, SrtfRemainingFromTheBlocksLeftOnTheWholeGpu) {
  // Two SMs, R = 2. A: 12 blocks of 100 ns at t=0 (6 a SM, alone 300). B: 8 blocks of 100 ns at t=10 (4 a SM).
  // t=0: A runs 2 blocks on each SM (0-100). t=10: B arrives and is sampled on SM 0.
  // t=100: SM 0 runs B's first 2 blocks (100-200), SM 1 two more of A (100-200).
  // t=200: B's sample is complete (t / R = 100 / 2 = 50) and the two rules read the same state differently:
  //   sm-max: B on SM 0: (4 - 2) x 50 = 100 left. A: SM 1 (4 done): (6 - 4) x 50 = 100; SM 0 (its prediction
  //           of t=100, 2 done): 300 - 100 = 200. A's largest: 200 > 100, so B runs: 200-300 on both SMs, its last
  //           2 blocks 300-400 on SM 1 (SM 0 idles until the next event: nothing of B is left to issue), B ends
  //           at 400; A's 6 blocks run 400-500 on both SMs and 500-600 on SM 1: A ends at 600.
  //   gpu:    B: (8 - 2) / 2 x 50 = 150. A: (12 - 6) / 2 x 50 = 150, not longer: A keeps the GPU, 200-300 on
  //           both SMs, 300-400 on SM 1, and ends at 400; B's 6 blocks then run 400-600: B ends at 600.
  // A has 6 blocks left and B 6: the gpu rule sees the tie that sm-max reads as B being half as long.
  const auto w = make_workload("w", {kernel("A", 12, 1024, {100}), kernel("B", 8, 1024, {100})},
                               {launch("a", 0, 0), launch("b", 1, 10)});
  const auto two = gpu_with_sms("h100", 2);
  const auto by_sm = run(w, two, "srtf");  // sm-max is the default
  EXPECT_EQ(by_sm.launches[1].finish, 400);
  EXPECT_EQ(by_sm.launches[0].finish, 600);
  const auto by_gpu = run(w, two, "srtf", 1, 1, {{"remaining", "gpu"}});
  EXPECT_EQ(by_gpu.launches[0].finish, 400);
  EXPECT_EQ(by_gpu.launches[1].finish, 600);
  EXPECT_THROW(run(w, two, "srtf", 1, 1, {{"remaining", "mean"}}), std::invalid_argument);
}

TEST(ByHand, SrtfSamplesSeveralLaunchesAtOnce) {
  // Three SMs, R = 2. A: 60 blocks of 1000 ns at t=0 (20 a SM: predicted 9000 left after its first wave).
  // B and C: 6 blocks of 100 ns each (2 a SM), arriving at 10 and 20. t=0: A runs 2 blocks on every SM (0-1000).
  // samples=1 (the paper): B is sampled on SM 0 from 10; C waits for B's sample to end.
  //   t=1000: SM 0 runs B's sample (1000-1100); SMs 1 and 2 run A again (1000-2000).
  //   t=1100: B's prediction, (2 - 2) x 50 = 0 left, beats A's 9000: B runs; C is sampled on SM 0 (1100-1200), so
  //   B's blocks wait for it. t=1200: C's 0 does not beat B's 0: B runs on SM 0, 1200-1300 and 1300-1400 (SMs 1
  //   and 2 hold A until 2000), and ends at 1400; C follows on SM 0, 1400-1600, and ends at 1600.
  // samples=2: C is sampled on SM 1 from 20. t=1000: SM 0 runs B's sample, SM 1 C's (both 1000-1100).
  //   t=1100: both complete; B (first slot) beats A, C's 0 does not beat B's 0: B's other 4 blocks run on SMs 0
  //   and 1 (1100-1200), B ends at 1200; C's run there 1200-1300: C ends at 1300.
  const auto w =
      make_workload("w", {kernel("A", 60, 1024, {1000}), kernel("B", 6, 1024, {100}), kernel("C", 6, 1024, {100})},
                    {launch("a", 0, 0), launch("b", 1, 10), launch("c", 2, 20)});
  const auto three = gpu_with_sms("h100", 3);
  const auto one = run(w, three, "srtf");  // samples=1 is the default
  EXPECT_EQ(one.launches[1].finish, 1400);
  EXPECT_EQ(one.launches[2].first_dispatch, 1100);
  EXPECT_EQ(one.launches[2].finish, 1600);
  const auto two = run(w, three, "srtf", 1, 1, {{"samples", "2"}});
  EXPECT_EQ(two.launches[2].first_dispatch, 1000);
  EXPECT_EQ(two.launches[1].finish, 1200);
  EXPECT_EQ(two.launches[2].finish, 1300);
  EXPECT_THROW(run(w, three, "srtf", 1, 1, {{"samples", "0"}}), std::invalid_argument);
}

TEST(ByHand, SrtfAdaptiveSharesWhenSlowdownsDiverge) {
  // At t=1100 the SRTF order would give B (100 remaining) a slowdown of (1200 - 50) / 200 = 5.75 and A
  // (9000 remaining) (10200 - 0) / 10000 = 1.02: they differ by more than 0.5, so the GPU is shared, B
  // (the fastest) capped at one block per SM and A filling the rest. From then on no SM holds two B blocks
  // at once, and A and B run side by side.
  const auto r = run(srtf_pair(), gpu_with_sms("h100", 2), "srtf-adaptive", 1, 1, {{"residency_limit", "1"}});
  bool side_by_side = false;
  for (const auto& x : r.schedule.pieces) {
    if (x.launch != 1 || x.start < 1100) continue;
    for (const auto& y : r.schedule.pieces) {
      if (&x == &y || y.sm != x.sm || y.start >= x.end || x.start >= y.end) continue;
      EXPECT_NE(y.launch, 1) << "two B blocks on SM " << x.sm << " at " << x.start;
      side_by_side |= y.launch == 0;
    }
  }
  EXPECT_TRUE(side_by_side);
  // With the default threshold nothing changes when the fastest launch could not use more than the cap:
  // here R = 2 < 3, so srtf-adaptive schedules exactly like srtf.
  EXPECT_EQ(run(srtf_pair(), gpu_with_sms("h100", 2), "srtf-adaptive").schedule.pieces,
            run(srtf_pair(), gpu_with_sms("h100", 2), "srtf").schedule.pieces);
}

TEST(ByHand, KnapsackReordersAQueuedBatch) {
  // Three launches queued at t = 0 on one H100 SM (2048 threads), submitted k0, k1, k2 (KnapsackReorder's
  // AlgorithmOneByHand case as a workload): k0 2 blocks x 1024 threads of 1000 ns, k1 2 x 512 of 100 ns, k2 2 x 512
  // of 200 ns. Alone: k0 1000 (both blocks at once), k1 100, k2 200.
  // fifo: k0 takes the whole SM 0-1000; then k1 and k2 fit together: k1 1000-1100, k2 1000-1200.
  //   Slowdowns 1, 11, 6: ANTT = 18 / 3 = 6; makespan 1200.
  // knapsack: Algorithm 1 gives queues q0 = [k1, k0], q1 = [k2] (submission order k1, k2, k0; k0 waits on its stream
  //   for k1). k1 and k2 start at 0; k1 ends at 100 and frees 1024 threads: k0's first block runs 100-1100; k2 ends
  //   at 200: k0's second block runs 200-1200. Slowdowns 1200/1000 = 1.2, 1, 1: ANTT = 3.2 / 3 = 1.0667; the same
  //   makespan.
  const auto w =
      make_workload("batch", {kernel("k0", 2, 1024, {1000}), kernel("k1", 2, 512, {100}), kernel("k2", 2, 512, {200})},
                    {launch("l0", 0, 0), launch("l1", 1, 0), launch("l2", 2, 0)});
  const auto f = run(w, kOneSm, "fifo");
  EXPECT_EQ(f.launches[0].finish, 1000);
  EXPECT_EQ(f.launches[1].finish, 1100);
  EXPECT_EQ(f.launches[2].finish, 1200);
  EXPECT_NEAR(f.metrics.antt, 6.0, 1e-12);
  const auto k = run(w, kOneSm, "knapsack");
  EXPECT_EQ(k.launches[1].finish, 100);
  EXPECT_EQ(k.launches[2].finish, 200);
  EXPECT_EQ(k.launches[0].first_dispatch, 100);
  EXPECT_EQ(k.launches[0].finish, 1200);
  EXPECT_NEAR(k.metrics.antt, 3.2 / 3.0, 1e-12);
  EXPECT_EQ(k.metrics.makespan, 1200);
  EXPECT_EQ(check_invariants(w, kOneSm, k), "");
}

TEST(ByHand, TurnaroundFromArrivalOrRelease) {
  // A (2 blocks of 100 ns, both at once) and then B (2 blocks of 200 ns) on one stream, both submitted at 0.
  // B is released when A ends at 100 and ends at 300; alone 200. From release: 300 - 100 = 200, slowdown 1,
  // ANTT (1 + 1) / 2 = 1. From arrival (seed 002's ANTT): 300 - 0 = 300, slowdown 1.5, ANTT 1.25, STP 1 + 2/3.
  auto a = launch("a", 0, 0), b = launch("b", 1, 0);
  a.stream = b.stream = "s";
  const auto w = make_workload("w", {kernel("A", 2, 1024, {100}), kernel("B", 2, 1024, {200})}, {a, b});
  sim::AloneTimeCache cache;
  sim::RunOptions o;
  const auto from_release = sim::run_workload(w, kOneSm, o, cache);
  EXPECT_EQ(from_release.launches[1].finish, 300);
  EXPECT_NEAR(from_release.metrics.antt, 1.0, 1e-12);
  o.turnaround_from = TurnaroundFrom::Arrival;
  const auto from_arrival = sim::run_workload(w, kOneSm, o, cache);
  EXPECT_EQ(from_arrival.launches[1].turnaround, 300);
  EXPECT_NEAR(from_arrival.metrics.antt, 1.25, 1e-12);
  EXPECT_NEAR(from_arrival.metrics.stp, 1.0 + 2.0 / 3.0, 1e-12);
}
