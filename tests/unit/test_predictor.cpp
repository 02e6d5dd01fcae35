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
