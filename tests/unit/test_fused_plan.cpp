// The fused worker's plan (live/executor/fused_plan.h), by hand: no GPU.
#include <gtest/gtest.h>

#include <stdexcept>

#include "live/executor/fused_plan.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::live;
using namespace gpusched::test;

// SM 0: A0 [0,10), A1 [0,10), B0 [10,20), A2 [10,25), B1 [12,30); SM 1: B2 [5,8). Launch A is 0, B is 1.
TEST(FusedPlan, OneQueuePerSmInStartOrderWithThePlansEndedCounts) {
  Schedule s;
  s.pieces = {piece(10, 25, 0, 2, 0), piece(0, 10, 0, 0, 0),  piece(12, 30, 1, 1, 0),
              piece(0, 10, 0, 1, 0),  piece(10, 20, 1, 0, 0), piece(5, 8, 1, 2, 1)};
  const auto plan = build_fused_plan(s, 2, 2);
  ASSERT_EQ(plan.sm_begin, (std::vector<std::int32_t>{0, 5, 6}));
  // Start order on SM 0, ties at 10 by end: A0, A1, B0 (ends 20), A2 (ends 25), B1.
  const std::vector<std::pair<int, int>> order{{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {1, 2}};
  for (std::size_t e = 0; e < order.size(); ++e) {
    EXPECT_EQ(plan.entries[e].launch, order[e].first) << e;
    EXPECT_EQ(plan.entries[e].block, order[e].second) << e;
    EXPECT_EQ(s.pieces[plan.plan_piece[e]].launch, order[e].first) << e;
    EXPECT_EQ(s.pieces[plan.plan_piece[e]].block, order[e].second) << e;
  }
  // Ended in the plan when each started: A0 and A1 none; B0 at 10: A0 and A1 (ends 10 <= 10) = 2; A2 at 10: 2;
  // B1 at 12: still A0 and A1 = 2 (B0 ends at 20). SM 1's B2: 0.
  EXPECT_EQ(plan.entries[0].need_done, 0);
  EXPECT_EQ(plan.entries[1].need_done, 0);
  EXPECT_EQ(plan.entries[2].need_done, 2);
  EXPECT_EQ(plan.entries[3].need_done, 2);
  EXPECT_EQ(plan.entries[4].need_done, 2);
  EXPECT_EQ(plan.entries[5].need_done, 0);
  // At once on SM 0: A0 A1 (2), then B0 A2 B1 on [12,20) (3); SM 1: 1.
  EXPECT_EQ(plan.sm_most, (std::vector<std::int32_t>{3, 1}));
  EXPECT_EQ(plan.launch_entries, (std::vector<std::int32_t>{3, 3}));
  EXPECT_FALSE(plan.stops);
}

// A piece of no length is not counted before itself: X [10,10) then Y [10,20) on one SM. X waits for none; Y for X
// (X's end 10 <= Y's start 10).
TEST(FusedPlan, APieceOfNoLengthIsNotItsOwnPredecessor) {
  Schedule s;
  s.pieces = {piece(10, 20, 0, 1, 0), piece(10, 10, 0, 0, 0, PieceOutcome::Killed)};
  const auto plan = build_fused_plan(s, 1, 1);
  ASSERT_EQ(plan.entries.size(), 2u);
  EXPECT_EQ(plan.entries[0].block, 0);
  EXPECT_EQ(plan.entries[0].need_done, 0);
  EXPECT_EQ(plan.entries[0].kind, static_cast<int>(EntryKind::Kill));
  EXPECT_EQ(plan.entries[1].need_done, 1);
  EXPECT_TRUE(plan.stops);
}

// Stopped pieces keep their planned duration as their budget; a switch-out marks its launch as needing saved state.
// Block 0 of launch 1: [0,8) switched out on SM 0, [8,18) switched in on SM 1.
TEST(FusedPlan, StoppedPiecesCarryTheirBudgetAndSwitchesAreMarkedPerLaunch) {
  Schedule s;
  s.pieces = {piece(0, 8, 1, 0, 0, PieceOutcome::SwitchedOut), piece(8, 18, 1, 0, 1, PieceOutcome::SwitchedIn),
              piece(0, 30, 0, 0, 1)};
  const auto plan = build_fused_plan(s, 2, 2);
  ASSERT_EQ(plan.entries.size(), 3u);
  EXPECT_EQ(plan.entries[0].kind, static_cast<int>(EntryKind::Switch));
  EXPECT_EQ(plan.entries[0].budget_ns, 8);
  // SM 1: launch 0's [0,30) then launch 1's switch-in at 8 (nothing ended there by 8).
  EXPECT_EQ(plan.entries[1].launch, 0);
  EXPECT_EQ(plan.entries[2].launch, 1);
  EXPECT_EQ(plan.entries[2].kind, static_cast<int>(EntryKind::Run));
  EXPECT_EQ(plan.entries[2].need_done, 0);
  EXPECT_EQ(plan.switches, (std::vector<bool>{false, true}));
  EXPECT_TRUE(plan.stops);
  // Launch 1's block 0 has two pieces (switched out, then in): both claim it; launch 0's block 0 has one: no claim.
  EXPECT_EQ(plan.entries[0].claims, 1);
  EXPECT_EQ(plan.entries[2].claims, 1);
  EXPECT_EQ(plan.entries[1].claims, 0);
}

TEST(FusedPlan, RefusesPiecesOffTheGpu) {
  Schedule s;
  s.pieces = {piece(0, 10, 0, 0, 5)};
  EXPECT_THROW(build_fused_plan(s, 1, 2), std::invalid_argument);
  s.pieces = {piece(0, 10, 3, 0, 0)};
  EXPECT_THROW(build_fused_plan(s, 1, 2), std::invalid_argument);
  s.pieces = {{0, 10, 0, 0, 1, 0, PieceOutcome::Completed}};
  EXPECT_THROW(build_fused_plan(s, 1, 2), std::invalid_argument);
}

// The executor's reaction time per entry. The plan above, executed with origin 1000 and launch B released at 3: SM 0's
// A0 [1000, 1011], A1 [1000, 1009], B0 starts 1012 (needs 2 ends: the 2nd end stamp is 1011, so 1 ns), A2 starts
// 1013 (2 ends: 1011, 2 ns), B1 starts 1020 (2 ends: 1011; 9 ns); SM 1's B2 starts 1005 (needs nothing; released at
// 1000 + 3: 2 ns).
TEST(FusedPlan, ReadyLatencyCountsFromTheMomentTheEntrysConditionsHeld) {
  Schedule s;
  s.pieces = {piece(10, 25, 0, 2, 0), piece(0, 10, 0, 0, 0),  piece(12, 30, 1, 1, 0),
              piece(0, 10, 0, 1, 0),  piece(10, 20, 1, 0, 0), piece(5, 8, 1, 2, 1)};
  const auto plan = build_fused_plan(s, 2, 2);
  const auto rec = [](std::uint64_t start, std::uint64_t end, ExecOutcome o = ExecOutcome::Completed) {
    return ExecRecord{start, end, 0, static_cast<std::uint32_t>(o)};
  };
  // Entries in queue order: A0, A1, B0, A2, B1 | B2.
  std::vector<ExecRecord> r = {rec(1000, 1011), rec(1000, 1009), rec(1012, 1020),
                               rec(1013, 1025), rec(1020, 1030), rec(1005, 1008)};
  auto lat = entry_ready_latency(plan, r, 1000, {0, 3}, {{}, {}});
  EXPECT_EQ(lat, (std::vector<std::int64_t>{0, 0, 1, 2, 9, 2}));
  // Had B waited for A, its entries could start only at A's last end (1025): these started before it (negative).
  lat = entry_ready_latency(plan, r, 1000, {0, 3}, {{}, {0}});
  EXPECT_EQ(lat[2], 1012 - 1025);
  EXPECT_EQ(lat[4], 1020 - 1025);
  EXPECT_EQ(lat[5], 1005 - 1025);
  // A skipped entry's end counts for the others but has no latency of its own.
  r[1] = rec(1009, 1009, ExecOutcome::Skipped);
  lat = entry_ready_latency(plan, r, 1000, {0, 3}, {{}, {}});
  EXPECT_EQ(lat[1], kNoLatency);
  EXPECT_EQ(lat[2], 1);
  EXPECT_THROW(entry_ready_latency(plan, {}, 0, {0, 0}, {{}, {}}), std::invalid_argument);
}
