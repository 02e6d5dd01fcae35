// A plan that stops and resumes blocks, carried out in parts of pieces (sim/piece_parts_replay.h): each part a grid of
// one worker per planned piece, each piece at its planned time, confined to its SMs or its green context's. Hand
// cases on an H100 of one or two SMs (front-end timing off) with room for two 1024-thread blocks each; A: 4 blocks of
// 100 ns, B: 2 blocks of 10 ns, both released at 0, A first.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/piece_parts_replay.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;

namespace {
using test::a_and_b;
using test::plan_of;

// Two SMs: A's four blocks on SM 0, two at a time (0-100, 100-200), B's two on SM 1 (0-10). One part a launch.
RunResult two_wave_plan() {
  return plan_of({200, 10}, {test::piece(0, 100, 0, 0, 0), test::piece(0, 100, 0, 1, 0), test::piece(100, 200, 0, 2, 0),
                             test::piece(100, 200, 0, 3, 0), test::piece(0, 10, 1, 0, 1), test::piece(0, 10, 1, 1, 1)});
}
const std::vector<std::vector<PlannedPieces>> kTwoWaveCut{{PlannedPieces{{0, 1, 2, 3}, {0}, 0}},
                                                          {PlannedPieces{{4, 5}, {1}, 0}}};
}  // namespace

TEST(PieceParts, EachPieceTakesItsPlannedTime) {
  // One SM. A's block 0 runs 0-30 and is switched out, B's block 0 runs 30-40, A's block 0 resumes 40-110: three parts
  // (A#0 {piece 0} at 0, B#0 {piece 1} at 30, A#1 {piece 2} at 40). The workers take 30, 10 and 70 ns, the pieces'
  // planned times, not A's recorded 100: A ends at 110 and B at 40, as planned, both errors 0.
  const auto w = make_workload("w", {test::kernel("A", 1, 1024, {100}), test::kernel("B", 1, 1024, {10})},
                               {test::launch("a", 0, 0), test::launch("b", 1, 0)});
  const auto plan =
      plan_of({110, 40}, {test::piece(0, 30, 0, 0, 0, PieceOutcome::SwitchedOut), test::piece(30, 40, 1, 0, 0),
                          test::piece(40, 110, 0, 0, 0, PieceOutcome::SwitchedIn)});
  const std::vector<std::vector<PlannedPieces>> cut{{PlannedPieces{{0}, {0}, 0}, PlannedPieces{{2}, {0}, 40}},
                                                    {PlannedPieces{{1}, {0}, 30}}};
  AloneTimeCache alone;
  const auto r = replay_piece_parts(w, test::gpu_with_sms("h100", 1), plan, cut, RunOptions{}, 6, alone, false);
  EXPECT_EQ(r.launch_finish[0], 110);
  EXPECT_EQ(r.launch_finish[1], 40);
  EXPECT_NEAR(r.turnaround_err_pct[0], 0.0, 1e-9);
  EXPECT_NEAR(r.turnaround_err_pct[1], 0.0, 1e-9);
  // In the workload's terms the three workers are A's block 0 twice and B's block 0.
  ASSERT_EQ(r.in_workload.schedule.pieces.size(), 3u);
  for (const auto& piece : r.in_workload.schedule.pieces) EXPECT_EQ(piece.block, 0);
}

TEST(PieceParts, AGridInACoverContextSpillsOntoItsGroupsOtherSm) {
  // A's part planned on SM 0, its context SMs 0 and 1; B's on SM 1, one level up (its window ends first). A's first two
  // workers fill SM 0 (0-100); B's two take SM 1 (0-10), holding it while its grid has workers left; then A's other two
  // take SM 1, 10-110. A finishes at 110 where the plan has 200: |110 - 200| / 110 = 81.8 %. Confined to SM 0, A's
  // second pair waits for SM 0 and A ends at 200, as planned.
  const auto w = a_and_b();
  const auto gpu = test::gpu_with_sms("h100", 2);
  AloneTimeCache alone;
  const auto spilled =
      replay_piece_parts(w, gpu, two_wave_plan(), kTwoWaveCut, RunOptions{}, 6, alone, false, {{0, 1}, {1}});
  EXPECT_EQ(spilled.launch_finish[0], 110);
  EXPECT_EQ(spilled.launch_finish[1], 10);
  EXPECT_NEAR(spilled.turnaround_err_pct[0], 100.0 * 90.0 / 110.0, 1e-9);
  const auto confined = replay_piece_parts(w, gpu, two_wave_plan(), kTwoWaveCut, RunOptions{}, 6, alone, false);
  EXPECT_EQ(confined.launch_finish[0], 200);
  EXPECT_NEAR(confined.turnaround_err_pct[0], 0.0, 1e-9);
}

TEST(PieceParts, RefusesCutsAndContextsThatDoNotFit) {
  const auto w = a_and_b();
  const auto gpu = test::gpu_with_sms("h100", 2);
  AloneTimeCache alone;
  const auto plan = two_wave_plan();
  // Contexts: one for each of the two parts, not one.
  EXPECT_THROW(replay_piece_parts(w, gpu, plan, kTwoWaveCut, RunOptions{}, 6, alone, false, {{0, 1}}),
               std::invalid_argument);
  // A part of A's holding B's piece 4.
  const std::vector<std::vector<PlannedPieces>> foreign{{PlannedPieces{{0, 1, 2, 4}, {0}, 0}},
                                                        {PlannedPieces{{5}, {1}, 0}}};
  EXPECT_THROW(replay_piece_parts(w, gpu, plan, foreign, RunOptions{}, 6, alone, false), std::invalid_argument);
  // A launch without parts, and no priority levels.
  const std::vector<std::vector<PlannedPieces>> partless{{PlannedPieces{{0, 1, 2, 3}, {0}, 0}}, {}};
  EXPECT_THROW(replay_piece_parts(w, gpu, plan, partless, RunOptions{}, 6, alone, false), std::invalid_argument);
  EXPECT_THROW(replay_piece_parts(w, gpu, plan, kTwoWaveCut, RunOptions{}, 0, alone, false), std::invalid_argument);
}

TEST(PieceParts, APartWaitsForItsLaunchsPredecessorsWhereAsked) {
  // b runs after a. The plan has a's block 0-100 on SM 0 and b's 50-60 on SM 1 (a plan that expected a sooner). At its
  // planned time b's part starts at 50 and ends at 60; waiting for a's part, as the executor's streams do, it starts
  // when a ends, at 100, and ends at 110.
  const auto w = make_workload("w", {test::kernel("A", 1, 1024, {100}), test::kernel("B", 1, 1024, {10})},
                               {test::launch("a", 0, 0), test::launch("b", 1, 0, {0})});
  const auto plan = plan_of({100, 60}, {test::piece(0, 100, 0, 0, 0), test::piece(50, 60, 1, 0, 1)});
  const std::vector<std::vector<PlannedPieces>> cut{{PlannedPieces{{0}, {0}, 0}}, {PlannedPieces{{1}, {1}, 50}}};
  const auto gpu = test::gpu_with_sms("h100", 2);
  AloneTimeCache alone;
  const auto at_release = replay_piece_parts(w, gpu, plan, cut, RunOptions{}, 6, alone, false);
  EXPECT_EQ(at_release.launch_finish[1], 60);
  const auto waiting = replay_piece_parts(w, gpu, plan, cut, RunOptions{}, 6, alone, false, {}, std::nullopt, nullptr,
                                          /*predecessors=*/true);
  EXPECT_EQ(waiting.launch_finish[0], 100);
  EXPECT_EQ(waiting.launch_finish[1], 110);
}
