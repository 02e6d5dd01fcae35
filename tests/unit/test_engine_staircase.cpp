// Hand-worked staircase cases: one launch of B blocks of equal time t at residency R on S SMs ends at
// ceil(B / (R * S)) * t under fifo.
#include <gtest/gtest.h>

#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::test;

namespace {
TimeNs makespan_of(int blocks, int threads, TimeNs t, const GpuSpec& gpu, const std::string& placement) {
  const auto w = make_workload("w", {kernel("k", blocks, threads, {t})}, {launch("a", 0, 0)});
  return run(w, gpu, "fifo", 1, 1, {{"placement", placement}}).metrics.makespan;
}
}  // namespace

TEST(Staircase, FifoOnH100Cut) {
  // 4 SMs of an H100; 512 threads per block -> R = 2048 / 512 = 4; 37 blocks of 1000 ns:
  // ceil(37 / (4 * 4)) = ceil(2.3125) = 3 waves -> 3000 ns.
  const auto gpu = gpu_with_sms("h100", 4);
  EXPECT_EQ(makespan_of(37, 512, 1000, gpu, "most-free"), 3000);
  EXPECT_EQ(makespan_of(37, 512, 1000, gpu, "round-robin"), 3000);
  // Exactly two full waves: 32 blocks -> ceil(32 / 16) = 2 -> 2000 ns.
  EXPECT_EQ(makespan_of(32, 512, 1000, gpu, "most-free"), 2000);
}

TEST(Staircase, FifoOnGtx480) {
  // GTX480: 15 SMs, 256 threads -> R = 6, 90 slots; 1429 blocks (AES) of 500 ns:
  // ceil(1429 / 90) = ceil(15.88) = 16 waves -> 8000 ns.
  const auto& gpu = *find_gpu_preset("gtx480");
  EXPECT_EQ(makespan_of(1429, 256, 500, gpu, "auto"), 8000);
  // 64 threads -> slot-limited R = 8, 120 slots; 121 blocks of 10 ns -> 2 waves -> 20 ns.
  EXPECT_EQ(makespan_of(121, 64, 10, gpu, "auto"), 20);
}

TEST(Staircase, SeveralGpusRunLaunchesSideBySide) {
  // Two GPUs of 2 SMs, R = 4 (512 threads): each launch stays on one GPU. Two launches of 8 blocks of 100 ns
  // each fill one GPU in one wave: both end at 100 ns under spatial (one launch per GPU).
  const auto gpu = gpu_with_sms("h100", 2);
  const auto w = make_workload("w", {kernel("k", 8, 512, {100})}, {launch("a", 0, 0), launch("b", 0, 0)});
  const auto r = run(w, gpu, "spatial", 1, 2);
  EXPECT_EQ(r.launches[0].finish, 100);
  EXPECT_EQ(r.launches[1].finish, 100);
  EXPECT_EQ(r.metrics.makespan, 100);
}

TEST(Interference, ResidencyModelUsesTheRecordsAtTheResidencyOfDispatch) {
  // One SM, two 1024-thread blocks fit (R = 2). Records: 100 ns each at residency 1, 160 ns at residency 2.
  // Block 0 is placed first (1 resident: 100 ns, 0-100), block 1 beside it (2 resident: 160 ns, 0-160).
  // Block 2 at 100 next to block 1 (2 resident: 100-260); block 3 at 160 (2 resident: 160-320).
  auto k = kernel("k", 4, 1024, {160});
  k->record_sets[0].residency = 2;
  add_record_set(*k, 1, 100);
  const auto w = make_workload("w", {k}, {launch("a", 0, 0)});
  sim::AloneTimeCache cache;
  sim::RunOptions o;
  o.policy = "fifo";
  o.interference = "residency";
  const auto r = sim::run_workload(w, gpu_with_sms("h100", 1), o, cache);
  std::vector<TimeNs> ends;
  for (const auto& p : r.schedule.pieces) ends.push_back(p.end);
  EXPECT_EQ(ends, (std::vector<TimeNs>{100, 160, 260, 320}));
  // Under `none`, every block takes the primary (residency 2) record: 2 waves of 160 ns.
  o.interference = "none";
  EXPECT_EQ(sim::run_workload(w, gpu_with_sms("h100", 1), o, cache).metrics.makespan, 320);
}

TEST(Interference, ResidencyModelInterpolatesBetweenRecordedResidencies) {
  // Records at residency 1 (mean 100) and 4 (mean 400, the primary); 4 blocks of 512 threads fit (R = 4).
  // Block 1 is placed with 2 resident: no records at 2, so 400 x mean(2) / mean(4) = 400 x 200 / 400 = 200.
  auto k = kernel("k", 2, 512, {400});
  k->record_sets[0].residency = 4;
  add_record_set(*k, 1, 100);
  const auto w = make_workload("w", {k}, {launch("a", 0, 0)});
  sim::AloneTimeCache cache;
  sim::RunOptions o;
  o.interference = "residency";
  const auto r = sim::run_workload(w, gpu_with_sms("h100", 1), o, cache);
  ASSERT_EQ(r.schedule.pieces.size(), 2u);
  EXPECT_EQ(r.schedule.pieces[0].end, 100);  // block 0, alone: its residency-1 record
  EXPECT_EQ(r.schedule.pieces[1].end, 200);  // block 1, interpolated
}
