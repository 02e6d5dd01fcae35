// Plan adherence: hand-off delays per piece and each launch's turnaround error split along its chain of
// hand-offs (live/executor/plan_adherence.h), on cases worked by hand.
#include <gtest/gtest.h>

#include "live/executor/plan_adherence.h"

using namespace gpusched;

namespace {

BlockPiece piece(std::int32_t launch, TimeNs start, TimeNs end, std::int16_t sm = 0) {
  BlockPiece p;
  p.launch = launch;
  p.block = 0;
  p.sm = sm;
  p.start = start;
  p.end = end;
  return p;
}

LaunchOutcome outcome(TimeNs release, TimeNs finish) {
  LaunchOutcome o;
  o.release = release;
  o.finish = finish;
  return o;
}

}  // namespace

// One SM. Plan: A [0, 100], then B [100, 150] in A's slot (B released at 10). Executed: A [5, 120], B [130, 190].
static void a_then_b(RunResult& planned, RunResult& executed) {
  planned.schedule.pieces = {piece(0, 0, 100), piece(1, 100, 150)};
  planned.launches = {outcome(0, 100), outcome(10, 150)};
  executed.schedule.pieces = {piece(0, 5, 120), piece(1, 130, 190)};
  executed.launches = {outcome(0, 120), outcome(10, 190)};
}

TEST(PlanAdherence, SplitsEachLaunchErrorAlongItsHandOffs) {
  RunResult planned, executed;
  a_then_b(planned, executed);
  const auto a = plan_adherence(planned, executed, {0, 1});

  ASSERT_EQ(a.pieces.size(), 2u);
  // A: nothing ended on the SM at 0, so it could start at its release, 0; it started at 5.
  EXPECT_EQ(a.pieces[0].hand_off, -1);
  EXPECT_EQ(a.pieces[0].ready, 0);
  EXPECT_EQ(a.pieces[0].hand_off_delay, 5);
  // B waited for A (A's planned end 100 = B's planned start); A ended at 120, B started at 130: 10 late.
  EXPECT_EQ(a.pieces[1].hand_off, 0);
  EXPECT_EQ(a.pieces[1].ready, 120);
  EXPECT_EQ(a.pieces[1].hand_off_delay, 10);

  // A: error (120 - 0) - (100 - 0) = 20 = executor 5 + model (115 - 100) 15.
  EXPECT_EQ(a.launches[0].error, 20);
  EXPECT_EQ(a.launches[0].executor, 5);
  EXPECT_EQ(a.launches[0].model, 15);
  EXPECT_EQ(a.launches[0].release, 0);
  EXPECT_EQ(a.launches[0].order, 0);
  // B: error (190 - 10) - (150 - 10) = 40 = executor (10 + 5) + model ((60 - 50) + 15) along B <- A.
  EXPECT_EQ(a.launches[1].error, 40);
  EXPECT_EQ(a.launches[1].executor, 15);
  EXPECT_EQ(a.launches[1].model, 25);
  EXPECT_EQ(a.launches[1].release, 0);
  EXPECT_EQ(a.launches[1].order, 0);
  EXPECT_EQ(a.launches[1].chain, 2u);
  EXPECT_EQ(a.moved, 0u);
  // Delays 5 ns and 10 ns: nearest-rank median 0.005 us, p99 0.010 us.
  EXPECT_DOUBLE_EQ(a.hand_off_delay_median_us, 0.005);
  EXPECT_DOUBLE_EQ(a.hand_off_delay_p99_us, 0.010);
}

// Two SMs. Plan: A [0, 100] on SM 0 and [0, 80] on SM 1 (finish 100); B [80, 130] on SM 1 after A's second
// piece. Executed: A's SM 0 piece runs [0, 140] (finish 140), its SM 1 piece [0, 80], B [95, 140]. B's error
// (140 - 0) - (130 - 0) = 10 = executor 15 (it started 15 after the hand-off) + model (45 - 50) -5. A's error 40:
// its last executed piece is on SM 0, whose chain is that piece alone: model 40.
TEST(PlanAdherence, OrderTermWhenTheChainIsNotThePlansLastPiece) {
  RunResult planned, executed;
  planned.schedule.pieces = {piece(0, 0, 100, 0), piece(0, 0, 80, 1), piece(1, 80, 130, 1)};
  planned.schedule.pieces[1].block = 1;
  planned.launches = {outcome(0, 100), outcome(0, 130)};
  executed.schedule.pieces = {piece(0, 0, 80, 1), piece(1, 95, 140, 1), piece(0, 0, 140, 0)};
  executed.schedule.pieces[0].block = 1;
  executed.launches = {outcome(0, 140), outcome(0, 140)};
  const auto a = plan_adherence(planned, executed, {1, 2, 0});
  EXPECT_EQ(a.launches[0].error, 40);
  EXPECT_EQ(a.launches[0].model, 40);
  EXPECT_EQ(a.launches[0].executor, 0);
  EXPECT_EQ(a.launches[1].error, 10);
  EXPECT_EQ(a.launches[1].executor, 15);
  EXPECT_EQ(a.launches[1].model, -5);
  // If A's SM 1 piece had been its last executed one, the order term would carry its planned end 80 - finish 100.
  for (const auto& l : a.launches) EXPECT_EQ(l.error, l.executor + l.model + l.release + l.order);
  // Every piece ran on its planned SM; had B run on SM 0 it would be left out of the delay statistics.
  EXPECT_EQ(a.moved, 0u);
  executed.schedule.pieces[1].sm = 0;
  const auto b = plan_adherence(planned, executed, {1, 2, 0});
  EXPECT_EQ(b.moved, 1u);
  EXPECT_TRUE(b.pieces[1].moved);
  EXPECT_DOUBLE_EQ(b.hand_off_delay_p99_us, 0.0);  // the two A pieces started when due
}

TEST(PlanAdherence, RejectsAMappingToAnotherBlock) {
  RunResult planned, executed;
  planned.schedule.pieces = {piece(0, 0, 100)};
  planned.launches = {outcome(0, 100)};
  executed.schedule.pieces = {piece(0, 0, 100)};
  executed.schedule.pieces[0].block = 3;
  executed.launches = {outcome(0, 100)};
  EXPECT_THROW(plan_adherence(planned, executed, {0}), std::invalid_argument);
  EXPECT_THROW(plan_adherence(planned, executed, {}), std::invalid_argument);
}

// The plan's slot occupancy includes a wait before the block's first stamp (20 ns here for B): B's stamp is due at
// A's executed end + 20 = 140, so starting at 150 is a hand-off delay of 10, and its duration 40 compares with the
// planned 50 - 20 = 30: model +10. The error 40 (as in the first case) is now executor 5 + 10, model 15 + 10.
TEST(PlanAdherence, PlannedWaitMovesTheDueStartAndTheComparedDuration) {
  RunResult planned, executed;
  planned.schedule.pieces = {piece(0, 0, 100), piece(1, 100, 150)};
  planned.launches = {outcome(0, 100), outcome(10, 150)};
  executed.schedule.pieces = {piece(0, 5, 120), piece(1, 150, 190)};
  executed.launches = {outcome(0, 120), outcome(10, 190)};
  const auto a = plan_adherence(planned, executed, {0, 1}, {0, 20});
  EXPECT_EQ(a.pieces[1].ready, 120);
  EXPECT_EQ(a.pieces[1].wait, 20);
  EXPECT_EQ(a.pieces[1].hand_off_delay, 10);
  EXPECT_EQ(a.launches[1].error, 40);
  EXPECT_EQ(a.launches[1].executor, 15);
  EXPECT_EQ(a.launches[1].model, 25);
  EXPECT_THROW(plan_adherence(planned, executed, {0, 1}, {0}), std::invalid_argument);
}

// Who took each slot (the fused worker's entry_worker words: worker << 4 | 8 first | 4 waited | lane). One SM, plan:
// A [0, 100] and B [0, 90] side by side, then C [100, 150] in A's slot, D [90, 160] in B's slot and E [150, 170] in
// C's slot. Executed one for one, each hand-off 2 ns late (C at 102, D at 92, E at 152): C ran on A's worker
// (ready when taken), D on a fresh worker, E on another resident worker (after waiting for its entry); A and B's own
// starts have no hand-off and are left out.
TEST(PlanAdherence, SplitsHandOffsByWhoTookTheSlot) {
  RunResult planned, executed;
  planned.schedule.pieces = {piece(0, 0, 100), piece(1, 0, 90), piece(2, 100, 150), piece(3, 90, 160),
                             piece(4, 150, 170)};
  planned.launches = {outcome(0, 100), outcome(0, 90), outcome(0, 150), outcome(0, 160), outcome(0, 170)};
  executed.schedule.pieces = {piece(0, 0, 100), piece(1, 0, 90), piece(2, 102, 150), piece(3, 92, 160),
                              piece(4, 152, 170)};
  executed.launches = planned.launches;
  const auto a = plan_adherence(planned, executed, {0, 1, 2, 3, 4});
  const auto word = [](int worker, int lane, bool waited, bool first) {
    return worker << 4 | (first ? 8 : 0) | (waited ? 4 : 0) | lane;
  };
  const std::vector<std::int32_t> who = {word(7, 2, false, true), word(8, 2, false, true), word(7, 2, false, false),
                                         word(9, 2, false, true), word(3, 2, true, false)};
  const auto h = live::split_hand_offs(a, who);
  ASSERT_EQ(h.same_ready_us.size(), 1u);  // C after A on worker 7
  EXPECT_DOUBLE_EQ(h.same_ready_us[0], 0.002);
  EXPECT_TRUE(h.same_waited_us.empty());
  ASSERT_EQ(h.other_fresh_us.size(), 1u);  // D: worker 9's first piece, after B (worker 8)
  ASSERT_EQ(h.other_us.size(), 1u);        // E: worker 3, after C (worker 7)
  // Lanes: the other lane of the same worker is another worker; a wide piece after a lane's is the same worker.
  const std::vector<std::int32_t> lanes = {word(7, 0, false, true), word(8, 2, false, true), word(7, 1, false, false),
                                           word(8, 2, true, false), word(7, 2, false, false)};
  const auto l = live::split_hand_offs(a, lanes);
  EXPECT_EQ(l.other_us.size(), 1u);        // C: lane 1 after lane 0's A
  EXPECT_EQ(l.same_waited_us.size(), 1u);  // D: worker 8 again, waited
  EXPECT_EQ(l.same_ready_us.size(), 1u);   // E: worker 7 whole after its lane 1's C
  // Unknown workers (-1) are left out.
  EXPECT_TRUE(live::split_hand_offs(a, {}).same_ready_us.empty());
}

// The same plan and execution, with the launches' body speed alone known: A's pieces run 1.1x and B's 1.2x their
// planned durations in the executor when alone. A: model 15 = body 100 x 0.1 = 10 + model 5. B: its own piece,
// planned 50, body 50 x 0.2 = 10, model 60 - 50 - 10 = 0; then A's piece on its chain: body 10, model 5. B: executor
// 15, body 20, model 5: 40 in all.
TEST(PlanAdherence, TakesTheExecutorsBodySpeedOutOfTheModelShare) {
  RunResult planned, executed;
  a_then_b(planned, executed);
  const auto a = plan_adherence(planned, executed, {0, 1}, {}, {1.1, 1.2});
  EXPECT_EQ(a.launches[0].executor, 5);
  EXPECT_EQ(a.launches[0].body, 10);
  EXPECT_EQ(a.launches[0].model, 5);
  EXPECT_EQ(a.launches[1].executor, 15);
  EXPECT_EQ(a.launches[1].body, 20);
  EXPECT_EQ(a.launches[1].model, 5);
  for (const auto& l : a.launches) EXPECT_EQ(l.error, l.executor + l.body + l.model + l.release + l.order);
  EXPECT_THROW(plan_adherence(planned, executed, {0, 1}, {}, {1.1}), std::invalid_argument);
}

// A launch alone: executed A [5, 120] against planned [0, 100]: 115 / 100. With the plan's wait of 20 before the
// block's first stamp, the planned duration it compares with is 80: 115 / 80.
TEST(PlanAdherence, BodySpeedFactorOfALaunchAlone) {
  RunResult planned, executed;
  planned.schedule.pieces = {piece(0, 0, 100)};
  executed.schedule.pieces = {piece(0, 5, 120)};
  EXPECT_DOUBLE_EQ(body_speed_factor(planned, executed, {0}, {}), 1.15);
  EXPECT_DOUBLE_EQ(body_speed_factor(planned, executed, {0}, {20}), 115.0 / 80.0);
  executed.schedule.pieces.clear();
  EXPECT_DOUBLE_EQ(body_speed_factor(planned, executed, {}, {}), 1.0);
}

TEST(PlanAdherence, PlanPiecesByOrdinalWhereTheHardwarePlacedTheBlocks) {
  // Plan: launch 0 block 0 in two pieces (0: [0, 10) on SM 0, 2: [30, 40) on SM 1), block 1 (1: [0, 20) on SM 1).
  Schedule plan;
  plan.pieces = {BlockPiece{0, 10, 0, 0, 0, 0}, BlockPiece{0, 20, 0, 1, 0, 1}, BlockPiece{30, 40, 0, 0, 0, 1}};
  // Executed elsewhere, in another order: block 0's pieces at 35 and 2 (its first by start is plan piece 0, its second
  // plan piece 2), block 1 at 1 and again at 50 (more pieces than planned: the later one maps to its last, 1).
  Schedule exec;
  exec.pieces = {BlockPiece{35, 45, 0, 0, 0, 3}, BlockPiece{2, 12, 0, 0, 0, 2}, BlockPiece{1, 21, 0, 1, 0, 4},
                 BlockPiece{50, 60, 0, 1, 0, 4}};
  const auto m = plan_piece_by_ordinal(plan, exec);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, (std::vector<std::size_t>{2, 0, 1, 1}));
  // A block the plan does not have: no mapping.
  exec.pieces.push_back(BlockPiece{0, 5, 0, 7, 0, 0});
  EXPECT_FALSE(plan_piece_by_ordinal(plan, exec).has_value());
}
