// The Simple Slicing predictor (seed 001 section 4), with the reconstructed Equations 1 and 2.
#include <gtest/gtest.h>

#include "core/simple_slicing.h"
#include "sim/prediction_replay.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::test;

TEST(Staircase, EquationOne) {
  // ceil(37 / 4) = 10 waves of 100 ns.
  EXPECT_EQ(staircase_runtime(37, 4, 100), 1000);
  EXPECT_EQ(staircase_runtime(36, 4, 100), 900);
  EXPECT_EQ(staircase_runtime(1, 8, 5), 5);
}

TEST(SimpleSlicing, ExactOnAnIdealStaircase) {
  // One SM, 12 blocks of 100 ns at residency 4: 3 waves, 300 ns. After the first wave's four blocks
  // end at 100: T_pred = T_run + (N - done) x t / R = 100 + (12 - 4) x 100 / 4 = 300.
  SimpleSlicingPredictor p(1);
  p.on_launch(0, 12, 4, 0);
  for (int b = 0; b < 4; ++b) p.on_block_start(0, 0, 0);
  for (int b = 0; b < 4; ++b) p.on_block_end(0, 0, 100, 100);
  EXPECT_EQ(*p.predicted_total_on_sm(0, 0), 300);
  EXPECT_EQ(*p.predicted_finish(0, 100), 300);
  for (int b = 0; b < 4; ++b) p.on_block_start(0, 0, 100);
  for (int b = 0; b < 4; ++b) p.on_block_end(0, 0, 100, 200);
  EXPECT_EQ(*p.predicted_total_on_sm(0, 0), 300);  // 200 + (12 - 8) x 100 / 4
}

TEST(SimpleSlicing, NotAStepFunction) {
  // 13 blocks at residency 4 take 4 waves (400 ns); Equation 2 after the first wave gives
  // 100 + (13 - 4) x 100 / 4 = 325: it underestimates a partly filled last wave, as the paper notes.
  SimpleSlicingPredictor p(1);
  p.on_launch(0, 13, 4, 0);
  for (int b = 0; b < 4; ++b) p.on_block_start(0, 0, 0);
  for (int b = 0; b < 4; ++b) p.on_block_end(0, 0, 100, 100);
  EXPECT_EQ(*p.predicted_total_on_sm(0, 0), 325);
}

TEST(SimpleSlicing, ANewLaunchStartsANewSlice) {
  // Kernel 0: 20 blocks on 1 SM at residency 2, first block time 100. Kernel 1 launches at 150: kernel 0's
  // next finishing block (200 ns) becomes its new t. At 300 (done 2, T_run 300, R 2 at that end):
  // T_pred = 300 + (20 - 2) x 200 / 2 = 2100.
  SimpleSlicingPredictor p(1);
  p.on_launch(0, 20, 2, 0);
  p.on_block_start(0, 0, 0);
  p.on_block_start(0, 0, 0);
  p.on_block_end(0, 0, 100, 100);
  EXPECT_EQ(*p.predicted_total_on_sm(0, 0), 100 + 19 * 100 / 2);
  p.on_block_start(0, 0, 100);
  p.on_launch(1, 4, 2, 150);
  p.on_block_end(0, 0, 300, 300);  // block started at 0 and ran 300 ns: the first to end in the new slice
  EXPECT_EQ(*p.predicted_total_on_sm(0, 0), 300 + 18 * 300 / 2);
  EXPECT_FALSE(p.predicted_total_on_sm(1, 0));  // no block of kernel 1 has finished
}

TEST(SimpleSlicing, GpuRemainingCountsTheBlocksLeftOnEverySm) {
  // Two SMs, 40 blocks (B / S = 20). SM 0's first block (of 2 resident) ends at 1000 after 1000 ns: t / R = 500,
  // one block done: (40 - 1) / 2 x 500 = 9750 left; alone 20 x 500 = 10000. SM 0's own Equation 2 says
  // 1000 + (20 - 1) x 500 = 10500 in total, 9500 left.
  SimpleSlicingPredictor p(2);
  p.on_launch(0, 40, 2, 0);
  EXPECT_FALSE(p.gpu_remaining(0));
  for (int b = 0; b < 2; ++b) p.on_block_start(0, 0, 0);
  for (int b = 0; b < 2; ++b) p.on_block_start(0, 1, 0);
  p.on_block_end(0, 0, 1000, 1000);
  EXPECT_EQ(*p.gpu_remaining(0), 9750);
  EXPECT_EQ(*p.gpu_predicted_total(0), 10000);
  EXPECT_EQ(*p.max_remaining(0), 9500);
  // SM 1's first block ends at 2000 after 2000 ns (t / R = 1000): mean rate (500 + 1000) / 2 = 750, two done:
  // (40 - 2) / 2 x 750 = 14250; alone 20 x 750 = 15000.
  p.on_block_end(0, 1, 2000, 2000);
  EXPECT_EQ(*p.gpu_remaining(0), 14250);
  EXPECT_EQ(*p.gpu_predicted_total(0), 15000);
  // Another kernel launches: a new slice. SM 0's next end (600 ns, 1 resident: t / R = 600) replaces its rate:
  // (600 + 1000) / 2 = 800, three done: 37 / 2 x 800 = 14800.
  p.on_launch(1, 4, 2, 2100);
  p.on_block_end(0, 0, 600, 2200);
  EXPECT_EQ(*p.gpu_remaining(0), 14800);
}

TEST(SimpleSlicing, MaximaNotTrackedAreRefused) {
  // srtf keeps only the maxima it reads. The per-SM predictions are the same: one SM, 12 blocks of 100 ns at
  // residency 4, after the first wave 100 + (12 - 4) x 100 / 4 = 300 in total, 200 left.
  SimpleSlicingPredictor p(1, {.max_remaining = false, .max_total = false, .gpu = false});
  p.on_launch(0, 12, 4, 0);
  EXPECT_FALSE(p.has_prediction(0));
  for (int b = 0; b < 4; ++b) p.on_block_start(0, 0, 0);
  for (int b = 0; b < 4; ++b) p.on_block_end(0, 0, 100, 100);
  EXPECT_TRUE(p.has_prediction(0));
  EXPECT_EQ(*p.predicted_total_on_sm(0, 0), 300);
  EXPECT_EQ(*p.remaining_on_sm(0, 0), 200);
  EXPECT_THROW((void)p.max_remaining(0), std::logic_error);
  EXPECT_THROW((void)p.max_predicted_total(0), std::logic_error);
  EXPECT_THROW((void)p.gpu_remaining(0), std::logic_error);
  SimpleSlicingPredictor q(1, {.max_remaining = true, .max_total = false, .gpu = false});  // remaining kept
  q.on_launch(0, 12, 4, 0);
  for (int b = 0; b < 4; ++b) q.on_block_start(0, 0, 0);
  for (int b = 0; b < 4; ++b) q.on_block_end(0, 0, 100, 100);
  EXPECT_EQ(*q.max_remaining(0), 200);
  EXPECT_THROW((void)q.max_predicted_total(0), std::logic_error);
}

TEST(PredictionReplay, ExactOnSimulatedStaircases) {
  // 4 SMs, 48 blocks of 100 ns at residency 4 (512 threads on an H100 SM): 12 per SM, 3 waves. Every
  // SM predicts 300 after its first wave: first prediction / actual = 1.
  const auto w = make_workload("w", {kernel("k", 48, 512, {100})}, {launch("a", 0, 0)});
  const auto gpu = gpu_with_sms("h100", 4);
  const auto r = run(w, gpu, "fifo");
  const auto p = sim::replay_predictions(w, gpu, r);
  ASSERT_EQ(p.size(), 1u);
  ASSERT_TRUE(p[0].has_prediction);
  EXPECT_EQ(p[0].actual, 300);
  EXPECT_DOUBLE_EQ(p[0].first_ratio, 1.0);
  EXPECT_DOUBLE_EQ(p[0].last_slice_ratio, 1.0);
}
