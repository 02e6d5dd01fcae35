// A plan in parts as the hardware would carry it out (sim/parts_replay.h): each part a grid confined to its SMs,
// issued at its planned start at its launch's stream priority. Hand cases on an H100 of one or two SMs with room for
// two 1024-thread blocks each; A: 4 blocks of 100 ns, B: 2 blocks of 10 ns, both released at 0, A first.
#include <gtest/gtest.h>

#include <map>

#include "sim/parts_replay.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;

namespace {
using test::a_and_b;

// Two SMs, a plan by hand: A's four blocks on SM 0, two at a time (0-100, then 100 to `second_wave_end`), B's two on
// SM 1 (0-10); both released at 0.
RunResult two_wave_plan(TimeNs second_wave_end) {
  RunResult r;
  for (const TimeNs finish : {second_wave_end, TimeNs{10}}) {
    LaunchOutcome o;
    o.finish = finish;
    o.turnaround = finish;
    r.launches.push_back(o);
  }
  r.schedule.pieces = {test::piece(0, 100, 0, 0, 0),
                       test::piece(0, 100, 0, 1, 0),
                       test::piece(100, second_wave_end, 0, 2, 0),
                       test::piece(100, second_wave_end, 0, 3, 0),
                       test::piece(0, 10, 1, 0, 1),
                       test::piece(0, 10, 1, 1, 1)};
  return r;
}
RunResult partitioned_plan() {
  return two_wave_plan(200);
}

// mpmax's plan on one SM (A 0-100 | 20-120, 100-200 | 120-220; B 0-10, 10-20: ByHand.Mpmax), cut into parts, and
// its parts replayed, held to the plan's blocks an SM when `capped`.
struct MpmaxOnOneSm {
  RunResult plan;
  std::vector<std::vector<PlannedPart>> cut;
  PriorityReplay replay;
};
MpmaxOnOneSm mpmax_on_one_sm(bool capped, bool at_residency_changes = false) {
  const auto w = a_and_b();
  const auto gpu = test::gpu_with_sms("h100", 1);
  AloneTimeCache alone;
  RunOptions o;
  o.policy = "mpmax";
  MpmaxOnOneSm m;
  m.plan = run_workload(w, gpu, o, alone);
  m.cut = planned_parts(m.plan, at_residency_changes);
  m.replay = replay_in_parts(w, gpu, m.plan, m.cut, o, 6, alone, {.capped = capped});
  return m;
}

PriorityReplay replay_with(const std::vector<int>& a_sms, const std::vector<int>& b_sms,
                           TimeNs grid_start_interval = 0) {
  auto gpu = test::gpu_with_sms("h100", 2);
  gpu.grid_start_interval_ns = grid_start_interval;
  AloneTimeCache alone;
  RunOptions o;
  const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 4, a_sms, 0}}, {PlannedPart{0, 2, b_sms, 0}}};
  return replay_in_parts(a_and_b(), gpu, partitioned_plan(), cut, o, 6, alone);
}
// The partitioned plan's parts (A on SM 0, B on SM 1) replayed with each grid confined to `a_context` and
// `b_context`, the SMs of its green context (replay_in_parts' context_sms).
PriorityReplay replay_in_contexts(const std::vector<int>& a_context, const std::vector<int>& b_context) {
  const auto gpu = test::gpu_with_sms("h100", 2);
  AloneTimeCache alone;
  RunOptions o;
  const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 4, {0}, 0}}, {PlannedPart{0, 2, {1}, 0}}};
  return replay_in_parts(a_and_b(), gpu, partitioned_plan(), cut, o, 6, alone, {}, {a_context, b_context});
}
}  // namespace

TEST(PartsReplay, APartsGridSpillsOntoItsGreenContextsOtherSm) {
  // A planned on SM 0 alone, its green context SMs 0 and 1 (one group); B on SM 1. B's window (0..0) ends before A's
  // (0..100): B one level up, its two blocks on SM 1, 0-10. A fills SM 0 (two blocks, 0-100) and, once B leaves SM 1 at
  // 10, takes it for its other two, 10-110: A finishes at 110 where the plan has 200, |110 - 200| / 110 = 81.8 %.
  const auto r = replay_in_contexts({0, 1}, {1});
  EXPECT_EQ(r.replay.launches[0].finish, 110);
  EXPECT_EQ(r.replay.launches[1].finish, 10);
  EXPECT_NEAR(r.turnaround_err_pct[0], 100.0 * 90.0 / 110.0, 1e-9);
  // Contexts of the planned SMs replay as the plan: A 200, B 10.
  const auto kept = replay_in_contexts({0}, {1});
  EXPECT_EQ(kept.replay.launches[0].finish, 200);
  EXPECT_EQ(kept.replay.launches[1].finish, 10);
  // An empty context is every SM: the same as A on {0, 1}.
  EXPECT_EQ(replay_in_contexts({}, {1}).replay.launches[0].finish, 110);
}

TEST(PartsReplay, GreenContextsMustBeOneAPart) {
  const auto gpu = test::gpu_with_sms("h100", 2);
  AloneTimeCache alone;
  const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 4, {0}, 0}}, {PlannedPart{0, 2, {1}, 0}}};
  EXPECT_THROW(replay_in_parts(a_and_b(), gpu, partitioned_plan(), cut, RunOptions{}, 6, alone, {}, {{0, 1}}),
               std::invalid_argument);
}

TEST(PartsReplay, APartitionKeptByItsGreenContextsIsReplayedExactly) {
  // A confined to SM 0 runs two waves there, 0-100 and 100-200; B on SM 1, 0-10: every turnaround as planned.
  const auto r = replay_with({0}, {1});
  EXPECT_EQ(r.replay.launches[0].finish, 200);
  EXPECT_EQ(r.replay.launches[1].finish, 10);
  EXPECT_EQ(r.turnaround_err_pct, (std::vector<double>{0.0, 0.0}));
  EXPECT_TRUE(r.same_finish_order);
  EXPECT_TRUE(replay_within(r));
}

TEST(PartsReplay, GridsReleasedTogetherLeaveTheFrontEndOneAtATime) {
  // The partition kept, both parts released at 0, a front end that starts one grid every 50 ns: A's grid (first in
  // index order) at 0, B's at 50. A runs 0-100 and 100-200 on SM 0 as planned; B runs 50-60 on SM 1 and finishes at 60
  // against the planned 10: |60 - 10| / 60 = 83.3 %.
  const auto r = replay_with({0}, {1}, 50);
  EXPECT_EQ(r.replay.launches[0].finish, 200);
  EXPECT_EQ(r.replay.launches[1].first_dispatch, 50);
  EXPECT_EQ(r.replay.launches[1].finish, 60);
  EXPECT_NEAR(r.turnaround_err_pct[1], 100.0 * 50.0 / 60.0, 1e-9);
}

TEST(PartsReplay, TheFrontEndStartsGridsInReleaseOrderOneIntervalApart) {
  // Released at 30, 0, 0, 100 with 20 between starts: in release order (ties by index) index 1 at 0, index 2 at
  // 0 + 20 = 20, index 0 at max(30, 20 + 20) = 40, index 3 at max(100, 40 + 20) = 100.
  EXPECT_EQ(front_end_starts({30, 0, 0, 100}, 20), (std::vector<TimeNs>{40, 0, 20, 100}));
  // No interval: each at its release.
  EXPECT_EQ(front_end_starts({30, 0, 0, 100}, 0), (std::vector<TimeNs>{30, 0, 0, 100}));
  EXPECT_TRUE(front_end_starts({}, 20).empty());
}

TEST(PartsReplay, WithoutItsSmsTheHardwareMixesTheLaunchesOnEverySm) {
  // The same parts on both SMs. B's window (0..0) ends before A's (0..100): B one level up. The dispatcher places
  // B's blocks on the most free SMs, one on each, and fills the rest with A: one A block on each SM at 0 (ends 100);
  // B's end at 10 frees a slot on each SM for A's last two blocks, 10-110. A finishes at 110 against the planned 200:
  // |110 - 200| / 110 = 81.8 %; B at 10, as planned.
  const auto r = replay_with({0, 1}, {0, 1});
  EXPECT_EQ(r.replay.launches[0].finish, 110);
  EXPECT_EQ(r.replay.launches[1].finish, 10);
  EXPECT_NEAR(r.turnaround_err_pct[0], 100.0 * 90.0 / 110.0, 1e-9);
  EXPECT_EQ(r.turnaround_err_pct[1], 0.0);
  EXPECT_FALSE(replay_within(r));
}

TEST(PartsReplay, AReservedSlotIsNotWhatTheHardwareDoesInPartsEither) {
  // mpmax on one SM keeps a slot for B while A runs (A 0-100 | 20-120, 100-200 | 120-220; B 0-10, 10-20: the hand
  // case of PriorityReplay.AnMpmaxPlanIsNotWhatTheDispatcherDoes). On one SM every part is on every SM, so each launch
  // is one part, and the hardware does what the priority replay found: B's two blocks at once 0-10, A 10-110 and
  // 110-210. Errors |210 - 220| / 210 = 4.76 % and |10 - 20| / 10 = 100 %.
  const auto m = mpmax_on_one_sm(false);
  ASSERT_EQ(m.cut.size(), 2u);
  ASSERT_EQ(m.cut[0].size(), 1u);
  ASSERT_EQ(m.cut[1].size(), 1u);
  const auto& r = m.replay;
  EXPECT_EQ(r.replay.launches[1].finish, 10);
  EXPECT_EQ(r.replay.launches[0].finish, 210);
  EXPECT_NEAR(r.turnaround_err_pct[0], 100.0 * 10.0 / 210.0, 1e-9);
  EXPECT_NEAR(r.turnaround_err_pct[1], 100.0, 1e-9);
  EXPECT_FALSE(replay_within(r));
}

TEST(PartsReplay, CutAtResidencyChangesAReservedSlotIsNotWhatTheHardwareDoesInPartsEither) {
  // The same mpmax plan cut also where a launch's residency changes (planned_parts(plan, true), validate's
  // --cut-at-residency). The instants are 0, 10, 20 (B's first start, last start, end), 120 and 220 (A's last start,
  // end). A runs one block at once in [0, 10) and two in [20, 120), so its blocks are cut there: part 0 block 0 from
  // 0, part 1 blocks 1-3 from 20; B is one part. The hardware gives B, one level up, both slots at 0 (0-10); A's part 0
  // takes one at 10 (10-110) and the other idles until A's part 1 is issued at 20 (block 1 20-120, block 2 110-210,
  // block 3 120-220). A ends at 220 as planned (0 %), B at 10 against 20: |10 - 20| / 10 = 100 %.
  const auto m = mpmax_on_one_sm(false, true);
  ASSERT_EQ(m.cut.size(), 2u);
  ASSERT_EQ(m.cut[0].size(), 2u);
  EXPECT_EQ(m.cut[0][0].blocks, 1);
  EXPECT_EQ(m.cut[0][1].first, 1);
  EXPECT_EQ(m.cut[0][1].start, 20);
  ASSERT_EQ(m.cut[1].size(), 1u);
  const auto& r = m.replay;  // its launches are the parts: A's two, then B's
  ASSERT_EQ(r.replay.launches.size(), 3u);
  EXPECT_EQ(r.replay.launches[0].first_dispatch, 10);
  EXPECT_EQ(r.replay.launches[0].finish, 110);
  EXPECT_EQ(r.replay.launches[1].first_dispatch, 20);
  EXPECT_EQ(r.replay.launches[1].finish, 220);
  EXPECT_EQ(r.replay.launches[2].finish, 10);
  EXPECT_EQ(r.launch_finish, (std::vector<TimeNs>{220, 10}));
  EXPECT_NEAR(r.turnaround_err_pct[0], 0.0, 1e-9);
  EXPECT_NEAR(r.turnaround_err_pct[1], 100.0, 1e-9);
  EXPECT_FALSE(replay_within(r));
}

TEST(PartsReplay, CutAtResidencyChangesEachPartIsHeldToItsOwnPhase) {
  // Held to the plan's blocks an SM, the cut at residency changes: A's part 0 (block 0, 0-100) runs 1 of the 2 its
  // 1024-thread blocks hold on a 2048-thread SM, so it is held to 1; A's part 1 (blocks 1-3: 20-120 beside 100-200,
  // then 120-220) 2, all it can hold, so it is a plain grid (cap 0); B 1 (0-10, then 10-20) of 2, held to 1. B, one
  // level up, takes one slot at 0 (0-10) and A's part 0 the other (0-100); B's second block takes B's freed slot at 10
  // (10-20), A's part 1 (issued at 20) the slot B leaves at 20 (20-120), then its second at 100 (100-200) and third at
  // 120 (120-220): the plan, exactly.
  const auto m = mpmax_on_one_sm(true, true);
  EXPECT_EQ(planned_part_residency(m.plan, m.cut), (std::vector<std::vector<int>>{{1, 2}, {1}}));
  EXPECT_EQ(binding_part_caps(a_and_b(), test::gpu_with_sms("h100", 1), m.plan, m.cut),
            (std::vector<std::vector<int>>{{1, 0}, {1}}));
  const auto& r = m.replay;
  EXPECT_EQ(r.launch_finish, (std::vector<TimeNs>{220, 20}));
  EXPECT_EQ(r.turnaround_err_pct, (std::vector<double>{0.0, 0.0}));
  EXPECT_TRUE(replay_within(r));
  // The start delays are measured against the same cut: every part starts as planned.
  const auto delays = replay_start_delays_us(a_and_b(), m.plan, m.cut, r);
  ASSERT_EQ(delays.size(), 3u);
  for (const double d : delays) EXPECT_NEAR(d, 0.0, 1e-9);
}

TEST(PartsReplay, PartsMustCoverEveryLaunch) {
  const auto gpu = test::gpu_with_sms("h100", 2);
  AloneTimeCache alone;
  const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 4, {0}, 0}}, {}};
  EXPECT_THROW(replay_in_parts(a_and_b(), gpu, partitioned_plan(), cut, RunOptions{}, 6, alone), std::invalid_argument);
}

TEST(PartsReplay, EveryEntryRefusesACutOfAnotherWorkloadBeforeUsingIt) {
  // One launch's parts for a workload of two: both entries refuse it before working out caps or priorities from it.
  const auto gpu = test::gpu_with_sms("h100", 2);
  AloneTimeCache alone;
  const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 4, {0}, 0}}};
  EXPECT_THROW(replay_in_parts(a_and_b(), gpu, partitioned_plan(), cut, RunOptions{}, 6, alone), std::invalid_argument);
  EXPECT_THROW(replay_parts_ways(a_and_b(), gpu, partitioned_plan(), cut, RunOptions{}, 6, alone),
               std::invalid_argument);
  EXPECT_THROW(
      replay_parts_ways(a_and_b(), gpu, partitioned_plan(), {{PlannedPart{0, 4, {0}, 0}}, {}}, RunOptions{}, 0, alone),
      std::invalid_argument);
}

TEST(PartsReplay, CappedAtThePlansBlocksAnSmTheReservedSlotIsKept) {
  // `as-priorities --parts-capped` and validate's --capped-parts: the same mpmax plan, each part held to the most of
  // its blocks the plan runs at once on the SM where that binds: A 2 (0-100 beside 20-120), all that A's 1024-thread
  // blocks can hold on a 2048-thread SM, so A's part is a plain grid (cap 0); B 1 (0-10, then 10-20) of the 2 it could
  // hold, so B's is held to 1. B, one level up, takes one slot at 0 (0-10) and A the other (0-100); B's second block
  // takes B's freed slot at 10 (10-20), A's second the slot B leaves at 20 (20-120), then A's third at 100 (100-200)
  // and fourth at 120 (120-220): the plan, exactly.
  const auto m = mpmax_on_one_sm(true);
  EXPECT_EQ(planned_part_residency(m.plan, m.cut), (std::vector<std::vector<int>>{{2}, {1}}));
  EXPECT_EQ(binding_part_caps(a_and_b(), test::gpu_with_sms("h100", 1), m.plan, m.cut),
            (std::vector<std::vector<int>>{{0}, {1}}));
  const auto& r = m.replay;
  EXPECT_EQ(r.launch_finish, (std::vector<TimeNs>{220, 20}));
  EXPECT_EQ(r.turnaround_err_pct, (std::vector<double>{0.0, 0.0}));
  EXPECT_TRUE(replay_within(r));
}

namespace {
// srtf's sample by hand, on two SMs of one slot each (blocks of 1024 threads and 150 KB of shared memory): A (4 blocks
// of 100 ns) runs on both SMs from 0; when its first two blocks end at 100 the plan gives SM 0 to B's first block (the
// sample; B's blocks take 20 ns: 100-120) while A's third runs on SM 1 (100-200) and its fourth waits for the sample
// (120-220); B's other two blocks run on both SMs at 220 (220-240). Both launches are released at 0. Cut by hand: A one
// part on both SMs; B its sample on SM 0 from 100, the rest on both from 220.
struct SampleByHand {
  Workload w;
  GpuSpec gpu;
  RunResult plan;
  std::vector<std::vector<PlannedPart>> cut;
};
SampleByHand sample_by_hand() {
  SampleByHand s{
      make_workload("w", {test::kernel("A", 4, 1024, {100}, 0, 150000), test::kernel("B", 3, 1024, {20}, 0, 150000)},
                    {test::launch("a", 0, 0), test::launch("b", 1, 0)}),
      test::gpu_with_sms("h100", 2),
      {},
      {{PlannedPart{0, 4, {0, 1}, 0}}, {PlannedPart{0, 1, {0}, 100}, PlannedPart{1, 2, {0, 1}, 220}}}};
  for (const TimeNs finish : {220, 240}) {
    LaunchOutcome o;
    o.finish = finish;
    o.turnaround = finish;
    s.plan.launches.push_back(o);
  }
  s.plan.schedule.pieces = {test::piece(0, 100, 0, 0, 0),   test::piece(0, 100, 0, 1, 1),
                            test::piece(100, 200, 0, 2, 1), test::piece(120, 220, 0, 3, 0),
                            test::piece(100, 120, 1, 0, 0), test::piece(220, 240, 1, 1, 0),
                            test::piece(220, 240, 1, 2, 1)};
  return s;
}
}  // namespace

TEST(PartsReplay, APartThePlanStartsBesideAnotherThatStillIssuesOutranksIt) {
  // Windows from each part's issue (its planned start; this GPU's launch latency is 0) to its last block's start:
  // A [0, 120], B's sample [100, 100], B's rest [220, 220]. By the window's end, latest first: B's rest (level 0);
  // A, which does not overlap it (220 > 120): level 0; B's sample overlaps A (0 <= 100 and 100 <= 120), their SMs meet
  // (0), and A was issued first (0 < 100), so the sample needs a level above A's: 1. Priorities from least 0: A 0, the
  // sample -1, the rest 0; two levels needed. Per launch, A's window [0, 120] ends before B's [0, 220]
  // and A comes first among equals: both 0, the sample behind A.
  const auto s = sample_by_hand();
  const auto p = part_priorities(s.w, s.gpu, s.plan, s.cut, 0, -5);
  EXPECT_EQ(p.priority, (std::vector<int>{0, -1, 0}));
  EXPECT_EQ(p.levels_needed, 2);
  EXPECT_EQ(p.clamped, 0u);
  EXPECT_EQ(launch_priorities(s.plan, 0, -5).priority, (std::vector<int>{0, 0}));
  // Where the sample's SMs do not meet A's (A confined to SM 1 by hand), nothing orders them: the sample stays at 0.
  auto apart = s.cut;
  apart[0][0].sms = {1};
  EXPECT_EQ(part_priorities(s.w, s.gpu, s.plan, apart, 0, -5).priority, (std::vector<int>{0, 0, 0}));
  // One level only: the sample cannot go above A, and is counted short.
  const auto one = part_priorities(s.w, s.gpu, s.plan, s.cut, 0, 0);
  EXPECT_EQ(one.priority, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(one.clamped, 1u);
}

TEST(PartsReplay, AtPartPrioritiesTheSampleRunsWhenThePlanRunsIt) {
  // At its launch's priority the sample (issued at 100) waits behind A: at 100 both SMs free and A, issued first at the
  // same priority, takes both (its third and fourth blocks, 100-200), so the sample runs 200-220 and A ends at 200,
  // not 220. At its own priority (-1) it takes SM 0 at 100 (100-120), A's third SM 1 (100-200) and A's fourth the
  // slot the sample leaves (120-220): the plan, exactly (B's rest 220-240 either way).
  const auto s = sample_by_hand();
  AloneTimeCache alone;
  const auto by_launch = replay_in_parts(s.w, s.gpu, s.plan, s.cut, RunOptions{}, 6, alone);
  EXPECT_EQ(by_launch.launch_first_dispatch, (std::vector<TimeNs>{0, 200}));
  EXPECT_EQ(by_launch.launch_finish, (std::vector<TimeNs>{200, 240}));
  const auto by_part = replay_in_parts(s.w, s.gpu, s.plan, s.cut, RunOptions{}, 6, alone, {.part_priorities = true});
  EXPECT_EQ(by_part.launch_first_dispatch, (std::vector<TimeNs>{0, 100}));
  EXPECT_EQ(by_part.launch_finish, (std::vector<TimeNs>{220, 240}));
  EXPECT_EQ(by_part.turnaround_err_pct, (std::vector<double>{0.0, 0.0}));
}

TEST(PartsReplay, PartsOfPiecesTakeTheSameRule) {
  // The same plan cut as parts of pieces (planned_piece_parts' shape: the plan's pieces by index): A's four (0-3) on
  // both SMs from 0, B's sample (piece 4) on SM 0 from 100, B's other two (5, 6) on both from 220. The windows and so
  // the priorities are those of the block ranges above: A 0, the sample -1, the rest 0.
  const auto s = sample_by_hand();
  const std::vector<std::vector<PlannedPieces>> cut{{PlannedPieces{{0, 1, 2, 3}, {0, 1}, 0}},
                                                    {PlannedPieces{{4}, {0}, 100}, PlannedPieces{{5, 6}, {0, 1}, 220}}};
  const auto p = part_priorities(s.w, s.gpu, s.plan, cut, 0, -5);
  EXPECT_EQ(p.priority, (std::vector<int>{0, -1, 0}));
  EXPECT_EQ(p.levels_needed, 2);
}

TEST(PartsReplay, TheReplayInTheWorkloadsTermsHasEachPartsBlocksAsItsLaunchs) {
  // The parts of A (blocks 0-3) and B (blocks 0-1) replayed on their SMs: six pieces, named by the workload's
  // launches and blocks, and each launch's first block and finish the replay's (A 0..200, B 0..10).
  const auto r = replay_with({0}, {1});
  ASSERT_EQ(r.in_workload.schedule.pieces.size(), 6u);
  std::vector<int> blocks_of(2, 0);
  for (const auto& p : r.in_workload.schedule.pieces) {
    ASSERT_TRUE(p.launch == 0 || p.launch == 1);
    EXPECT_LT(p.block, p.launch == 0 ? 4 : 2);
    ++blocks_of[static_cast<std::size_t>(p.launch)];
  }
  EXPECT_EQ(blocks_of, (std::vector<int>{4, 2}));
  EXPECT_EQ(r.in_workload.launches[0].finish, 200);
  EXPECT_EQ(r.in_workload.launches[1].finish, 10);
  EXPECT_EQ(r.in_workload.launches[1].first_dispatch, 0);
}

namespace {
// A way with the given turnaround errors (%) and foreseen start delays (us).
PartsWay way(PartsReplayOptions o, std::vector<double> turnaround_err, std::vector<double> delays,
             std::size_t short_of_levels = 0) {
  PartsWay w;
  w.options = o;
  w.replay.turnaround_err_pct = std::move(turnaround_err);
  w.start_delays_us = std::move(delays);
  w.parts_short = short_of_levels;
  return w;
}
}  // namespace

TEST(PartsReplay, AutoTakesALaterWayOnlyForLessThanHalfTheStartDelays) {
  const PartsReplayOptions plain{}, capped{.capped = true}, by_part{.part_priorities = true},
      both{.capped = true, .part_priorities = true};
  const std::vector<double> within{1, 2}, outside{1, 30};  // p90 2 % and 30 % (bound: 25 %)
  // Plain within the bound, p99 1000 us; by part within at 400 us (< 500): taken under Starts, not under First.
  std::vector<PartsWay> ways{way(plain, within, {0, 1000}), way(capped, within, {0, 100}),
                             way(by_part, within, {0, 400}), way(both, outside, {0, 10})};
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First).way, 0u);
  // Capped (100 us) is not taken where plain held nothing; both (10 us) is outside the turnaround bound.
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::Starts).way, 2u);
  // 600 us is not less than half of 1000: plain stays.
  ways[2].start_delays_us = {0, 600};
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::Starts).way, 0u);
  // Short of priority levels: not taken however few its delays.
  ways[2] = way(by_part, within, {0, 5}, 3);
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::Starts).way, 0u);
  // Plain outside the bound: capped first (100 us); both within at 40 us (< 50) is taken, holding as capped does.
  ways[0].replay.turnaround_err_pct = outside;
  ways[3].replay.turnaround_err_pct = within;
  ways[3].start_delays_us = {0, 40};
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First).way, 1u);
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::Starts).way, 3u);
  // None within the bound: the parts at their launches' priorities.
  for (auto& w : ways) w.replay.turnaround_err_pct = outside;
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::Starts).way, 0u);
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::Starts).fused);
}

// live-h200's mpmax plan, in the terms auto sees it (gpusched as-priorities, session 47): at their launches'
// priorities the parts replay within the turnaround bound but 23 % long (11.191 ms against the plan's 9.097 ms);
// held, 13.4 % p90 but 12.3 % long; by part and both short of priority levels. The plan holds parts beside other
// launches' blocks. No way is within the bound (10 %; a held way 5 % where the plain parts lose the plan): the
// fused worker.
TEST(PartsReplay, AutoTakesTheFusedWorkerWhereNoWayKeepsThePlansMakespan) {
  const PartsReplayOptions plain{}, capped{.capped = true}, by_part{.part_priorities = true},
      both{.capped = true, .part_priorities = true};
  // live-h200's mpmax plan (`gpusched as-priorities -w traces/workloads/live-h200.toml -p mpmax --interference auto
  // --parts-capped --part-priorities`, session 48's replay): plain 3.2 / 16.8 %, held 2.9 / 6.5 %, by part 18.2 /
  // 83.3 %, both 1.0 / 30.1 % (28 parts short), against the plan's 9.097 ms:
  const std::vector<double> within{3.2, 16.8}, outside{18.2, 83.3};
  std::vector<PartsWay> ways{way(plain, within, {0, 8280}), way(capped, {2.9, 6.5}, {0, 373}),
                             way(by_part, outside, {0, 3986}, 28), way(both, {1.0, 30.1}, {0, 1269}, 28)};
  ways[0].makespan_err_pct = 100.0 * (10.832 - 9.097) / 9.097;  // +19.1 %
  ways[1].makespan_err_pct = 100.0 * (9.704 - 9.097) / 9.097;   // +6.7 %: held, beyond half the bound
  ways[2].makespan_err_pct = 100.0 * (10.931 - 9.097) / 9.097;  // +20.2 %
  ways[3].makespan_err_pct = 100.0 * (9.128 - 9.097) / 9.097;   // +0.3 %, but p90 30.1 %
  for (auto& w : ways) w.held_parts = 28;                       // the plan holds parts beside other launches'
  for (const auto rule : {PartsChoice::First, PartsChoice::Starts}) {
    const auto d = choose_parts_way(ways, rule);  // the default bound, 10 %
    EXPECT_TRUE(d.fused);
    EXPECT_EQ(d.way, 0u);
    // validate and as-priorities say why in the same words: the plain parts' makespan against the bound.
    const std::string why = fused_choice_reason(ways, d);
    EXPECT_NE(why.find("+19.1 % long (beyond 10.0 %)"), std::string::npos) << why;
    EXPECT_NE(why.find("fused worker"), std::string::npos) << why;
  }
  EXPECT_TRUE(fused_choice_reason(ways, PartsDecision{.way = 1, .fused = false}).empty());
  // No part held (the parts run their blocks whole, beside no other launch's): not the fused worker, and the whole
  // makespan bound for every way: held (+6.7 %) is within it. Held beyond it too: no way within, the plain parts.
  for (auto& w : ways) w.held_parts = 0;
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::First).fused);
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First).way, 1u);
  ways[1].makespan_err_pct = 12.3;
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::First).fused);
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First).way, 0u);
  ways[1].makespan_err_pct = 100.0 * (9.704 - 9.097) / 9.097;
  for (auto& w : ways) w.held_parts = 28;
  // Without the makespan bound: the plain parts, as before (within the turnaround bound).
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::First, 0).fused);
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First, 0).way, 0u);
  // Held within 5 % (+3.5 %): held, not the fused worker.
  ways[1].makespan_err_pct = 3.5;
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::First).fused);
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First).way, 1u);
  // Held at +7.3 %: within 10 % but not within 5 %, and the plain parts lose the plan: not held. Both
  // (2.3 %) is short of 28 priority levels: not taken either; the fused worker.
  ways[1].makespan_err_pct = 7.3;
  ways[3].replay.turnaround_err_pct = {3.2, 15.0};
  ways[3].makespan_err_pct = 2.3;
  EXPECT_TRUE(choose_parts_way(ways, PartsChoice::First).fused);
  // The same way with none short: taken (held, within 5 %).
  ways[3].parts_short = 0;
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First).way, 3u);
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::First).fused);
  // Held at +7.3 % where the plain parts keep the plan's makespan (+8.5 %, within 10 %): held is within the bound.
  ways[0].replay.turnaround_err_pct = outside;
  ways[0].makespan_err_pct = 8.5;
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::First).way, 1u);
  // validate-h200's kernelet plan as session 47's replay had it: plain 5.9 / 30.4 %, +8.5 %; held 4.9 / 31.6 %; by
  // part 3.7 / 9.4 %, +7.7 %, 7 parts short; both 5.8 / 33.2 %. The plain parts keep the makespan, so by part is
  // taken, short or not.
  ways = {way(plain, {5.9, 30.4}, {0, 1790}), way(capped, {4.9, 31.6}, {0, 1790}),
          way(by_part, {3.7, 9.4}, {0, 1790}, 7), way(both, {5.8, 33.2}, {0, 1790}, 7)};
  for (auto& w : ways) w.held_parts = 15;
  ways[0].makespan_err_pct = 8.5;
  ways[2].makespan_err_pct = 7.7;
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::Starts).way, 2u);
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::Starts).fused);
  // The plain parts within the makespan bound but outside the turnaround bound, and no other way within: the plain
  // parts (the hardware keeps the plan's mix; its block times are what is off).
  for (auto& w : ways) w.replay.turnaround_err_pct = outside;
  ways[0].makespan_err_pct = 2.7;
  EXPECT_FALSE(choose_parts_way(ways, PartsChoice::Starts).fused);
  EXPECT_EQ(choose_parts_way(ways, PartsChoice::Starts).way, 0u);
}

TEST(PartsReplay, APartsBlocksTakeTheirOwnRecordedTimes) {
  // A's four blocks recorded at 100, 100, 10 and 10 ns; the plan runs them on SM 0 two at a time: blocks 0 and 1 at
  // 0-100, blocks 2 and 3 at 100-110 (their own records); B's two on SM 1 at 0-10. Cut A into two parts, blocks 0-1
  // from 0 and blocks 2-3 from 100: the replay runs the second part's blocks at their own 10 ns, 100-110, and A
  // finishes at 110 as planned. Taking the part's block b's time from the launch's block b (100 ns: blocks 0 and 1)
  // finished it at 100 + 100 = 200 (live-h200's spatial plan replayed 9.9 % long so).
  const auto w = make_workload("w", {test::kernel("A", 4, 1024, {100, 100, 10, 10}), test::kernel("B", 2, 1024, {10})},
                               {test::launch("a", 0, 0), test::launch("b", 1, 0)});
  const RunResult plan = two_wave_plan(110);
  const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 2, {0}, 0}, PlannedPart{2, 2, {0}, 100}},
                                                  {PlannedPart{0, 2, {1}, 0}}};
  AloneTimeCache alone;
  const auto r = replay_in_parts(w, test::gpu_with_sms("h100", 2), plan, cut, RunOptions{}, 6, alone);
  EXPECT_EQ(r.launch_finish, (std::vector<TimeNs>{110, 10}));
  EXPECT_EQ(r.turnaround_err_pct, (std::vector<double>{0.0, 0.0}));
}

TEST(PartsReplay, APartsUnrecordedBlocksDrawWhatTheirLaunchDraws) {
  // A of eight blocks with records for blocks 0 and 1 only (100 and 10 ns); blocks 2-7 draw from {10, 100} by the
  // launch's draw base. fifo on one SM holding two of A's blocks: the plan. Cut A where the plan starts block 4 (blocks
  // 0-3 and 4-7 as two parts at their planned starts): each replayed block takes the time the plan gave it, so the
  // replay is the plan, block for block, for any seed.
  auto a = test::kernel("A", 8, 1024, {100, 10});
  a->record_sets[0].duration_by_block.resize(2);
  finalize_record_set(a->record_sets[0]);
  const auto w = make_workload("w", {a}, {test::launch("a", 0, 0)});
  const auto gpu = test::gpu_with_sms("h100", 1);
  for (const std::uint64_t seed : {1u, 7u, 42u}) {
    AloneTimeCache alone;
    RunOptions o;
    o.policy = "fifo";
    o.seed = seed;
    o.keep_schedule = true;
    const auto plan = run_workload(w, gpu, o, alone);
    TimeNs start4 = -1;
    for (const auto& p : plan.schedule.pieces)
      if (p.block == 4) start4 = p.start;
    ASSERT_GE(start4, 0);
    const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 4, {0}, 0}, PlannedPart{4, 4, {0}, start4}}};
    const auto r = replay_in_parts(w, gpu, plan, cut, o, 6, alone);
    EXPECT_EQ(r.launch_finish[0], plan.launches[0].finish) << "seed " << seed;
    std::map<std::int32_t, TimeNs> planned, replayed;
    for (const auto& p : plan.schedule.pieces) planned[p.block] = p.end - p.start;
    for (const auto& p : r.in_workload.schedule.pieces) replayed[p.block] = p.end - p.start;
    EXPECT_EQ(replayed, planned) << "seed " << seed;
  }
}
