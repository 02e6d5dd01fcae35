// Pieces as the executor carries them out (sim/carried_pieces.h): a stopped piece stops at the plan's instant (or
// after its planned duration), a block's last piece runs the work its earlier pieces left, a worker waits for its
// block's running piece, a done block's piece is skipped. Hand cases on one block of launch 0 whose two pieces are
// parts of their own (kernels P1 and P2, block 0 each).
#include <gtest/gtest.h>

#include "sim/carried_pieces.h"
#include "sim/piece_parts_replay.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;

namespace {
RunResult plan_of(std::vector<BlockPiece> pieces) {
  return test::plan_of({}, std::move(pieces));
}

// A plan's first two pieces, each a part of its own (kernels P1 and P2, block 0 each), carried out with `stops`.
struct TwoParts {
  RunResult plan;
  std::shared_ptr<KernelProfile> first = test::kernel("P1", 1, 256, {1});
  std::shared_ptr<KernelProfile> second = test::kernel("P2", 1, 256, {1});
  CarriedPieces model;
  TwoParts(RunResult p, PieceStops stops) : plan(std::move(p)), model(plan, stops) {
    model.add_part(first.get(), {0});
    model.add_part(second.get(), {1});
  }
  TimeNs at(const KernelProfile& k, TimeNs start) const {
    DurationQuery q;
    q.kernel = &k;
    q.block = 0;
    q.start = start;
    return model.duration(q);
  }
  TimeNs first_at(TimeNs start) const { return at(*first, start); }
  TimeNs second_at(TimeNs start) const { return at(*second, start); }
};

// Block 0 switched out at 50 after 50 ns, resumed 100-150: its work is 50 + 50 = 100 ns.
RunResult switch_plan() {
  return plan_of({test::piece(0, 50, 0, 0, 0, PieceOutcome::SwitchedOut),
                  test::piece(100, 150, 0, 0, 0, PieceOutcome::SwitchedIn)});
}
}  // namespace

TEST(CarriedPieces, AStoppedPieceThatStartsLateLeavesItsBlocksLastPieceTheRest) {
  // The first piece starts at 20 and stops at the plan's instant, 50: 30 ns done, 70 left, which the resume runs
  // wherever it lands (at 100: 70 ns, not its planned 50).
  TwoParts k(switch_plan(), PieceStops::PlannedEnd);
  EXPECT_EQ(k.first_at(20), 30);
  EXPECT_EQ(k.second_at(100), 70);
  // begin_run forgets the run: on time, each piece takes its planned 50.
  k.model.begin_run();
  EXPECT_EQ(k.first_at(0), 50);
  EXPECT_EQ(k.second_at(100), 50);
}

TEST(CarriedPieces, ABudgetStopRunsThePlannedDurationFromItsOwnStart) {
  // --part-stops budget: started at 20 the first piece runs its 50 (to 70), the resume the 50 left.
  TwoParts k(switch_plan(), PieceStops::Budget);
  EXPECT_EQ(k.first_at(20), 50);
  EXPECT_EQ(k.second_at(100), 50);
}

TEST(CarriedPieces, AWorkerWaitsForItsBlocksRunningPiece) {
  // The first piece runs 20-50 (30 done); the resume's worker placed at 40 holds its slot until 50, then runs the 70
  // left: 10 + 70 = 80 ns from its placement.
  TwoParts k(switch_plan(), PieceStops::PlannedEnd);
  EXPECT_EQ(k.first_at(20), 30);
  EXPECT_EQ(k.second_at(40), 80);
}

TEST(CarriedPieces, AFlushLosesTheWorkAndADoneBlocksPieceIsSkipped) {
  // Flushed at 30 after 30 ns, then run whole 40-140: the block's work is the 100 after the flush. The first piece
  // (at 0, stopped at 30) leaves the whole 100 to the second.
  TwoParts k(plan_of({test::piece(0, 30, 0, 0, 0, PieceOutcome::Flushed), test::piece(40, 140, 0, 0, 0)}),
             PieceStops::PlannedEnd);
  EXPECT_EQ(k.first_at(0), 30);
  EXPECT_EQ(k.second_at(40), 100);
  // The second piece's worker first (at 0): it runs the block's 100 to its end; the first piece's worker, placed at
  // 10, waits for it (90 ns) and finds the block done.
  k.model.begin_run();
  EXPECT_EQ(k.second_at(0), 100);
  EXPECT_EQ(k.first_at(10), 90);
}

TEST(CarriedPieces, AStoppedPieceWithLessWorkLeftCompletesTheBlock) {
  // Planned: switched out 20-50 and 60-110, resumed 120-140; the block's work 30 + 50 + 20 = 100. The first piece
  // placed early, at 0, runs to its planned end 50 (50 done, 50 left); the second, at 60, would stop at 110 but the
  // block ends at 110 - 0 = 50 ns into it: it completes the block, and the resume finds it done (1 ns, the least a
  // block takes).
  TwoParts k(plan_of({test::piece(20, 50, 0, 0, 0, PieceOutcome::SwitchedOut),
                      test::piece(60, 110, 0, 0, 0, PieceOutcome::SwitchedOut),
                      test::piece(120, 140, 0, 0, 0, PieceOutcome::SwitchedIn)}),
             PieceStops::PlannedEnd);
  const auto third = test::kernel("P3", 1, 256, {1});
  k.model.add_part(third.get(), {2});
  EXPECT_EQ(k.first_at(0), 50);
  EXPECT_EQ(k.second_at(60), 50);
  EXPECT_EQ(k.at(*third, 120), 1);
  // Placed at 0 beside its running first piece, the second waits until 50 and runs to its planned end 110 (60 of the
  // 50 left: it completes at 100, 100 ns after its placement).
  k.model.begin_run();
  EXPECT_EQ(k.first_at(0), 50);
  EXPECT_EQ(k.second_at(0), 100);
}

TEST(CarriedPieces, TheReplayCarriesPiecesOutAsTheExecutorDoes) {
  // One SM with room for two 1024-thread blocks. The plan: A's block 0 switched out 0-30 and resumed 40-110, B's two
  // blocks 0-40 (one part each; B one level up, its window ends first). Released at 0, B's two blocks take both slots
  // and A's first piece waits for them until 40, after its planned end. Each piece at its planned time, A's workers
  // then take 30 and 70 ns (40-70, 40-110): A ends at 110, as planned. Carried out, the first piece stops at once
  // (1 ns: nothing done) and the resume runs the block's whole 100 ns, 40-140: A ends 30 ns later.
  const auto w = make_workload("w", {test::kernel("A", 1, 1024, {100}), test::kernel("B", 2, 1024, {40})},
                               {test::launch("a", 0, 0), test::launch("b", 1, 0)});
  const RunResult plan =
      test::plan_of({110, 40}, {test::piece(0, 30, 0, 0, 0, PieceOutcome::SwitchedOut), test::piece(0, 40, 1, 0, 0),
                                test::piece(0, 40, 1, 1, 0), test::piece(40, 110, 0, 0, 0, PieceOutcome::SwitchedIn)});
  const std::vector<std::vector<PlannedPieces>> cut{{PlannedPieces{{0}, {0}, 0}, PlannedPieces{{3}, {0}, 40}},
                                                    {PlannedPieces{{1, 2}, {0}, 0}}};
  const auto gpu = test::gpu_with_sms("h100", 1);
  AloneTimeCache alone;
  const auto planned = replay_piece_parts(w, gpu, plan, cut, RunOptions{}, 6, alone, false);
  const auto carried = replay_piece_parts(w, gpu, plan, cut, RunOptions{}, 6, alone, false, {}, PieceStops::PlannedEnd);
  EXPECT_EQ(planned.launch_finish[1], 40);
  EXPECT_EQ(carried.launch_finish[1], 40);
  EXPECT_EQ(planned.launch_finish[0], 110);
  EXPECT_EQ(carried.launch_finish[0], 140);
  EXPECT_NEAR(carried.turnaround_err_pct[0], 100.0 * 30.0 / 140.0, 1e-9);
}
