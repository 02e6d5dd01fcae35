// A plan's launches cut where its SM partition changes (sim/planned_parts.h), for carrying out spatial plans in green
// contexts: hand-written plans, and spatial's plan of validate-h100.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "core/plan_adherence.h"
#include "sim/launch_priorities.h"
#include "sim/part_starts.h"
#include "sim/planned_parts.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;

using gpusched::test::launches_finishing_at;

namespace {
// Four SMs. Launch 0: blocks 0-3 at t = 0 on SMs 0-3, blocks 4-5 at 100 on SMs 0-1; it ends at 200. Launch 1 starts
// at 100 (blocks 0-1 on SMs 2-3) and gets SMs 0-1 at 200 (blocks 2-3); it ends at 300.
RunResult repartitioned_plan() {
  RunResult r = launches_finishing_at({200, 300});
  for (std::int32_t b = 0; b < 4; ++b)
    r.schedule.pieces.push_back(BlockPiece{0, 100, 0, b, 0, static_cast<std::int16_t>(b)});
  r.schedule.pieces.push_back(BlockPiece{100, 200, 0, 4, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{100, 200, 0, 5, 0, 1});
  r.schedule.pieces.push_back(BlockPiece{100, 250, 1, 0, 0, 2});
  r.schedule.pieces.push_back(BlockPiece{100, 250, 1, 1, 0, 3});
  r.schedule.pieces.push_back(BlockPiece{200, 300, 1, 2, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{200, 300, 1, 3, 0, 1});
  return r;
}

// Two SMs. Launch 0: blocks 0-1 at t = 0 on SMs 0-1. At 40 launch 1 takes SM 1: launch 0's block 1 is switched out
// there (piece [0, 40)) and launch 1's block 0 runs [40, 90). Launch 0's block 2 starts at 60 on SM 0 (its block 0
// ended at 60), and block 1 resumes at 100 on SM 1 (piece [100, 150)). Launch 0 ends at 150, launch 1 at 90.
RunResult preempted_plan() {
  RunResult r = launches_finishing_at({150, 90});
  r.schedule.pieces.push_back(BlockPiece{0, 60, 0, 0, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{0, 40, 0, 1, 0, 1, PieceOutcome::SwitchedOut});
  r.schedule.pieces.push_back(BlockPiece{40, 90, 1, 0, 0, 1});
  r.schedule.pieces.push_back(BlockPiece{60, 120, 0, 2, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{100, 150, 0, 1, 0, 1, PieceOutcome::SwitchedIn});
  return r;
}
}  // namespace

TEST(PlannedParts, ACutAtResidencyChangesKeepsPartsWhoseResidencyStays) {
  // The same plan: each launch runs one block at once on an SM wherever it runs, in every instant's window, so the cut
  // at residency changes is the cut where the partition changes (no part is kept apart for its residency).
  const RunResult r = repartitioned_plan();
  const auto plain = planned_parts(r);
  const auto by_residency = planned_parts(r, true);
  ASSERT_EQ(plain.size(), by_residency.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    ASSERT_EQ(plain[i].size(), by_residency[i].size());
    for (std::size_t j = 0; j < plain[i].size(); ++j) {
      EXPECT_EQ(plain[i][j].first, by_residency[i][j].first);
      EXPECT_EQ(plain[i][j].blocks, by_residency[i][j].blocks);
      EXPECT_EQ(plain[i][j].sms, by_residency[i][j].sms);
    }
  }
}

TEST(PlannedParts, ALaunchIsCutWhereThePartitionChanges) {
  const RunResult r = repartitioned_plan();
  // Instants: launch 0's first start 0, last start 100, end 200; launch 1's 100, 200, 300. Launch 0's blocks start in
  // [0, 100) (blocks 0-3, SMs 0-3) and [100, 200) (blocks 4-5, SMs 0-1); launch 1's in [100, 200) (blocks 0-1, SMs
  // 2-3) and [200, 300) (blocks 2-3, SMs 0-1).
  const auto p = planned_parts(r);
  ASSERT_EQ(p.size(), 2u);
  ASSERT_EQ(p[0].size(), 2u);
  EXPECT_EQ(p[0][0].first, 0);
  EXPECT_EQ(p[0][0].blocks, 4);
  EXPECT_EQ(p[0][0].sms, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(p[0][0].start, 0);
  EXPECT_EQ(p[0][1].first, 4);
  EXPECT_EQ(p[0][1].blocks, 2);
  EXPECT_EQ(p[0][1].sms, (std::vector<int>{0, 1}));
  EXPECT_EQ(p[0][1].start, 100);
  ASSERT_EQ(p[1].size(), 2u);
  EXPECT_EQ(p[1][0].first, 0);
  EXPECT_EQ(p[1][0].blocks, 2);
  EXPECT_EQ(p[1][0].sms, (std::vector<int>{2, 3}));
  EXPECT_EQ(p[1][1].first, 2);
  EXPECT_EQ(p[1][1].blocks, 2);
  EXPECT_EQ(p[1][1].sms, (std::vector<int>{0, 1}));
  EXPECT_EQ(p[1][1].start, 200);
}

TEST(PlannedParts, PartsOnTheSameSmsAreMergedAndOutOfOrderBlocksAreNotCut) {
  // Launch 0 runs on SM 0 throughout: blocks 0 at 0, 1 at 50, 2 at 150; launch 1's start (50) and end (150) cut
  // nothing of it, since its SMs stay the same: one part of 3 blocks. Launch 1 starts block 1 before block 0: no grid
  // of its own can carry out a part, so it has none.
  RunResult r = launches_finishing_at({200, 150});
  r.schedule.pieces.push_back(BlockPiece{0, 50, 0, 0, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{50, 150, 0, 1, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{150, 200, 0, 2, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{50, 100, 1, 1, 0, 1});
  r.schedule.pieces.push_back(BlockPiece{100, 150, 1, 0, 0, 1});
  const auto p = planned_parts(r);
  ASSERT_EQ(p[0].size(), 1u);
  EXPECT_EQ(p[0][0].blocks, 3);
  EXPECT_EQ(p[0][0].sms, (std::vector<int>{0}));
  EXPECT_TRUE(p[1].empty());
}

TEST(PlannedParts, BlocksInPiecesOrOnSeveralGpusAreNotCut) {
  RunResult r = launches_finishing_at({100});
  r.schedule.pieces.push_back(BlockPiece{0, 50, 0, 0, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{0, 100, 0, 1, 1, 0});  // on the second GPU
  EXPECT_TRUE(planned_parts(r)[0].empty());
}

TEST(PlannedParts, SpatialCutsValidateH100WhereItRepartitions) {
  // validate-h100 under spatial (interference none): sgemm has the GPU to itself until mriq's release, then half
  // (SMs 0-65) until stencil's; every block of every launch is in exactly one part, the parts in block order.
  const auto [loaded, plan] = test::shipped_plan("validate-h100", "spatial");
  const auto p = planned_parts(plan);
  ASSERT_EQ(p.size(), 9u);
  for (std::size_t i = 0; i < p.size(); ++i) {
    ASSERT_FALSE(p[i].empty()) << loaded.workload.launches[i].id;
    std::int32_t next = 0;
    for (const auto& part : p[i]) {
      EXPECT_EQ(part.first, next);
      EXPECT_GT(part.blocks, 0);
      next += part.blocks;
    }
    EXPECT_EQ(next, plan.launches[i].blocks) << loaded.workload.launches[i].id;
  }
  ASSERT_GE(p[0].size(), 2u);
  EXPECT_EQ(p[0][0].sms.size(), 132u);
  EXPECT_EQ(p[0][1].sms.size(), 66u);
  EXPECT_EQ(p[0][1].sms.front(), 0);
  EXPECT_EQ(p[0][1].sms.back(), 65);
}

TEST(PlannedParts, EveryLaunchHasPartsOnlyWhenNoneIsEmpty) {
  // validate and as-priorities run a plan in parts only when every launch was cut: a cut of no launches, or with one
  // launch left whole (its blocks out of order), is not enough.
  const PlannedPart part{0, 4, {0}, 0};
  EXPECT_TRUE(every_launch_has_parts({{part}, {part, part}}));
  EXPECT_FALSE(every_launch_has_parts({{part}, {}}));
  EXPECT_FALSE(every_launch_has_parts({}));
}

TEST(PlannedPieceParts, APreemptedBlockIsCutWhereItsSmChangesHands) {
  const RunResult r = preempted_plan();
  // Blocks in pieces: planned_parts does not cut.
  EXPECT_TRUE(planned_parts(r)[0].empty());
  // Instants: launch 0's first start 0, last start 100, end 150; launch 1's 40, 40, 90; the switched piece's end 40.
  // Launch 0's pieces start at 0 (two, SMs 0-1: epoch [0, 40)), 60 (epoch [40, 90)) and 100 (epoch [100, 150)); the
  // last two are on SM 0 and SM 1, so nothing merges. Launch 1: one part.
  const auto p = planned_piece_parts(r);
  ASSERT_EQ(p.size(), 2u);
  ASSERT_EQ(p[0].size(), 3u);
  EXPECT_EQ(p[0][0].pieces, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(p[0][0].sms, (std::vector<int>{0, 1}));
  EXPECT_EQ(p[0][0].start, 0);
  EXPECT_EQ(p[0][1].pieces, (std::vector<std::size_t>{3}));
  EXPECT_EQ(p[0][1].sms, (std::vector<int>{0}));
  EXPECT_EQ(p[0][1].start, 60);
  EXPECT_EQ(p[0][2].pieces, (std::vector<std::size_t>{4}));
  EXPECT_EQ(p[0][2].sms, (std::vector<int>{1}));
  EXPECT_EQ(p[0][2].start, 100);
  ASSERT_EQ(p[1].size(), 1u);
  EXPECT_EQ(p[1][0].pieces, (std::vector<std::size_t>{2}));
  EXPECT_EQ(p[1][0].sms, (std::vector<int>{1}));
}

TEST(PlannedPieceParts, APartSoonAfterItsLaunchsPartBeforeJoinsIt) {
  const RunResult r = preempted_plan();
  // Launch 0's parts start at 0 (SMs 0-1), 60 (SM 0) and 100 (SM 1), as above.
  // Within 30: 60 - 0 = 60 and 100 - 60 = 40 are not less than 30, nothing joins.
  EXPECT_EQ(planned_piece_parts(r, {.merge_within = 30})[0].size(), 3u);
  // Within 50: the part at 100 joins the part at 60 (100 - 60 = 40 < 50), SMs {0} and {1} give {0, 1}.
  const auto q = planned_piece_parts(r, {.merge_within = 50});
  ASSERT_EQ(q[0].size(), 2u);
  EXPECT_EQ(q[0][1].pieces, (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(q[0][1].sms, (std::vector<int>{0, 1}));
  EXPECT_EQ(q[0][1].start, 60);
  // Within 61: the part at 60 joins the part at 0 (60 - 0 < 61), SMs {0, 1} and {0} give {0, 1}; the part at 100 is
  // measured from the joined part's start, 0: 100 is not less than 61, a part of its own.
  const auto p = planned_piece_parts(r, {.merge_within = 61});
  ASSERT_EQ(p[0].size(), 2u);
  EXPECT_EQ(p[0][0].pieces, (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(p[0][0].sms, (std::vector<int>{0, 1}));
  EXPECT_EQ(p[0][0].start, 0);
  EXPECT_EQ(p[0][1].pieces, (std::vector<std::size_t>{4}));
  EXPECT_EQ(p[0][1].start, 100);
  // Within 101: all three are one part. Launch 1 has one part whatever the window.
  std::size_t unjoined = 0;
  const auto all = planned_piece_parts(r, {.merge_within = 101}, &unjoined);
  EXPECT_EQ(unjoined, 4u);  // unjoined: launch 0's three parts and launch 1's one
  ASSERT_EQ(all[0].size(), 1u);
  EXPECT_EQ(all[0][0].pieces, (std::vector<std::size_t>{0, 1, 3, 4}));
  EXPECT_EQ(all[0][0].sms, (std::vector<int>{0, 1}));
  ASSERT_EQ(all[1].size(), 1u);
  EXPECT_EQ(all[1][0].pieces, (std::vector<std::size_t>{2}));
}

// Two SMs. Launch 0 runs blocks 0-1 from t = 0 on SMs 0-1; at 40 launch 1 takes both SMs (blocks 0-1, [40, 90)) and
// launch 0's two pieces are switched out; launch 0 resumes them at 90 on the same SMs and ends at 150.
TEST(PlannedPieceParts, APartAfterItsSmsWentToAnotherLaunchIsAGridOfItsOwn) {
  RunResult r = launches_finishing_at({150, 90});
  r.schedule.pieces = {BlockPiece{0, 40, 0, 0, 0, 0, PieceOutcome::SwitchedOut},
                       BlockPiece{0, 40, 0, 1, 0, 1, PieceOutcome::SwitchedOut},
                       BlockPiece{40, 90, 1, 0, 0, 0},
                       BlockPiece{40, 90, 1, 1, 0, 1},
                       BlockPiece{90, 150, 0, 0, 0, 0, PieceOutcome::SwitchedIn},
                       BlockPiece{90, 150, 0, 1, 0, 1, PieceOutcome::SwitchedIn}};
  // Instants: launch 0's first start 0, last start 90, end 150; launch 1's 40, 40, 90; the switched pieces' end 40.
  // Launch 0's pieces start in epochs [0, 40) and [90, 150), both on SMs {0, 1}, and launch 1 starts pieces on both
  // SMs at 40, between launch 0's starts 0 and 90. Merged, one grid would hold the resumes too, and its workers could
  // take the slots freed at 40 before launch 1's grid: apart, two parts.
  std::size_t unjoined = 0;
  const auto p = planned_piece_parts(r, {}, &unjoined);
  ASSERT_EQ(p[0].size(), 2u);
  EXPECT_EQ(p[0][0].pieces, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(p[0][1].pieces, (std::vector<std::size_t>{4, 5}));
  EXPECT_EQ(p[0][1].start, 90);
  EXPECT_EQ(p[1].size(), 1u);
  EXPECT_EQ(unjoined, 3u);  // launch 0's two parts and launch 1's one
  // The old cut: one part of four pieces for launch 0.
  const auto merged = planned_piece_parts(r, {.apart_after_hand_over = false}, &unjoined);
  ASSERT_EQ(merged[0].size(), 1u);
  EXPECT_EQ(merged[0][0].pieces, (std::vector<std::size_t>{0, 1, 4, 5}));
  EXPECT_EQ(unjoined, 2u);
  // Joined within 100 (90 - 0 < 100), the resumes join the first part again: the window joins whatever it reaches.
  EXPECT_EQ(planned_piece_parts(r, {.merge_within = 100})[0].size(), 1u);
  // No stop: launch 0's blocks 0-1 end at 40, launch 1 runs on both SMs until 90, and launch 0's blocks 2-3 follow.
  // The SMs still went to launch 1 in between (bursts-h200's srtf-chimera lets a long launch's blocks end and gives the
  // slots to shorter ones): apart.
  r.schedule.pieces[0].outcome = PieceOutcome::Completed;
  r.schedule.pieces[1].outcome = PieceOutcome::Completed;
  r.schedule.pieces[4] = BlockPiece{90, 150, 0, 2, 0, 0};
  r.schedule.pieces[5] = BlockPiece{90, 150, 0, 3, 0, 1};
  EXPECT_EQ(planned_piece_parts(r)[0].size(), 2u);
  // Launch 1 on a third SM instead: nothing starts on SMs 0-1 between 0 and 90, and the parts on them merge.
  r.schedule.pieces[2] = BlockPiece{40, 90, 1, 0, 0, 2};
  r.schedule.pieces[3] = BlockPiece{40, 90, 1, 1, 0, 2};
  EXPECT_EQ(planned_piece_parts(r)[0].size(), 1u);
}

// Plans of whole blocks keep the cut they had: their launches share SMs at once (mpmax, srtf's samples), and the rule
// on hand-overs would cut them at every block of another launch. Two SMs: launch 0's blocks 0-1 at [0, 40), launch 1's
// blocks 0-1 at [40, 90), launch 0's blocks 2-3 at [90, 150), all on SMs 0-1, every block whole.
TEST(PlannedParts, WholeBlocksAreNotCutAtHandOvers) {
  RunResult r = launches_finishing_at({150, 90});
  r.schedule.pieces = {BlockPiece{0, 40, 0, 0, 0, 0},   BlockPiece{0, 40, 0, 1, 0, 1},
                       BlockPiece{40, 90, 1, 0, 0, 0},  BlockPiece{40, 90, 1, 1, 0, 1},
                       BlockPiece{90, 150, 0, 2, 0, 0}, BlockPiece{90, 150, 0, 3, 0, 1}};
  const auto parts = planned_parts(r);
  ASSERT_EQ(parts[0].size(), 1u);  // blocks 0-3 of launch 0, one part on SMs 0-1
  EXPECT_EQ(parts[0][0].first, 0);
  EXPECT_EQ(parts[0][0].blocks, 4);
  EXPECT_EQ(planned_piece_parts(r)[0].size(), 2u);  // the cut of pieces, by default apart after the hand-over at 40
}

// In a cut with parts apart after a hand-over, no part holds a piece that starts after a piece of the same part was
// stopped (the plan handed that slot to another launch). The plan has pieces flushed the instant they start; they hold
// no slot. validate-h200's srtf-chimera plan has such a part merged the old way: mriq's pieces before histogram
// (switched out at 679-689 us) and its resumes after (742.9 us), one grid.
TEST(PlannedPieceParts, NoPartResumesAfterItsOwnStopsOnValidateH200) {
  const auto [loaded, plan] = test::shipped_plan("validate-h200", "srtf-chimera");
  const auto resumes_after_a_stop = [&](const std::vector<std::vector<PlannedPieces>>& cut) {
    int n = 0;
    for (const auto& parts : cut)
      for (const auto& part : parts) {
        TimeNs first_stop = std::numeric_limits<TimeNs>::max();
        for (const std::size_t k : part.pieces) {
          const auto& piece = plan.schedule.pieces[k];
          const bool stopped = piece.outcome == PieceOutcome::SwitchedOut || piece.outcome == PieceOutcome::Flushed ||
                               piece.outcome == PieceOutcome::Killed;
          if (stopped && piece.end > piece.start)  // flushed the instant it started: it held no slot
            first_stop = std::min(first_stop, piece.end);
        }
        for (const std::size_t k : part.pieces) n += plan.schedule.pieces[k].start >= first_stop ? 1 : 0;
      }
    return n;
  };
  EXPECT_EQ(resumes_after_a_stop(planned_piece_parts(plan)), 0);
  EXPECT_GT(resumes_after_a_stop(planned_piece_parts(plan, {.apart_after_hand_over = false})), 0);
}

TEST(PlannedPieceParts, EveryPieceOfChimerasPlanIsInExactlyOnePart) {
  const auto [loaded, plan] = test::shipped_plan("validate-h100", "chimera");
  const auto p = planned_piece_parts(plan);
  // The count of parts before joining that a joined cut reports is the unjoined cut's.
  std::size_t parts = 0, unjoined = 0;
  for (const auto& c : p) parts += c.size();
  const auto joined = planned_piece_parts(plan, {.merge_within = 10'000}, &unjoined);
  EXPECT_EQ(unjoined, parts);
  std::size_t joined_parts = 0;
  for (const auto& c : joined) joined_parts += c.size();
  EXPECT_LT(joined_parts, parts);
  ASSERT_EQ(p.size(), plan.launches.size());
  std::vector<int> seen(plan.schedule.pieces.size(), 0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    ASSERT_FALSE(p[i].empty());
    TimeNs last = -1;
    for (const auto& part : p[i])
      for (const std::size_t k : part.pieces) {
        ++seen.at(k);
        EXPECT_EQ(plan.schedule.pieces[k].launch, static_cast<std::int32_t>(i));
        EXPECT_GE(plan.schedule.pieces[k].start, last);  // in planned start order
        last = plan.schedule.pieces[k].start;
      }
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
}

// Two SMs. Launch 0 runs blocks 0-1 from t = 0; at 10 launch 1 takes SM 1 for its sample (block 0, [10, 50)):
// launch 0's block 1 is switched out there and resumes at 50. Launch 1's blocks 1-2 run at 100 on both SMs.
TEST(SampleParts, OnlyAPartHoldingNothingButALaunchsSampleIsOne) {
  RunResult r = launches_finishing_at({100, 150});
  r.schedule.pieces = {test::piece(0, 100, 0, 0, 0),   test::piece(0, 10, 0, 1, 1, PieceOutcome::SwitchedOut),
                       test::piece(10, 50, 1, 0, 1),   test::piece(50, 100, 0, 1, 1, PieceOutcome::SwitchedIn),
                       test::piece(100, 150, 1, 1, 0), test::piece(100, 150, 1, 2, 1)};
  // Launch 0 has no sample: its blocks 0 and 1 start on two SMs before its first piece ends (10). Launch 1's sample is
  // block 0 on SM 1: the only piece of it that starts before its first block ends (50), with blocks left for the rest.
  const auto samples = planned_samples(r);
  ASSERT_FALSE(samples[0]);
  ASSERT_TRUE(samples[1]);
  EXPECT_EQ(samples[1]->blocks, 1);
  const auto cut = planned_piece_parts(r);
  ASSERT_EQ(cut[1].size(), 2u);  // the sample at 10 on SM 1, blocks 1-2 at 100 on SMs 0-1
  const auto flagged = sample_parts(r, cut);
  ASSERT_EQ(flagged.size(), 2u);
  EXPECT_TRUE(std::none_of(flagged[0].begin(), flagged[0].end(), [](char c) { return c != 0; }));
  EXPECT_EQ(flagged[1], (std::vector<char>{1, 0}));
  // Joined with the part after it (within 100 us), the sample is no longer a part of its own: nothing is flagged.
  const auto joined = planned_piece_parts(r, {.merge_within = 100});
  ASSERT_EQ(joined[1].size(), 1u);
  EXPECT_EQ(sample_parts(r, joined)[1], (std::vector<char>{0}));
}

// srtf-chimera samples each launch that arrives beside a running one on one SM; in validate-h200's plan, cut as
// validate cuts it (parts within 10 us joined), each part flagged holds the first pieces of its launch's blocks 0..k-1
// on one SM, and it is its launch's first part.
TEST(SampleParts, SrtfChimerasSamplesOnValidateH200) {
  const auto [loaded, plan] = test::shipped_plan("validate-h200", "srtf-chimera");
  const auto cut = planned_piece_parts(plan, {.merge_within = 10'000});
  const auto flagged = sample_parts(plan, cut);
  const auto samples = planned_samples(plan);
  int count = 0;
  for (std::size_t i = 0; i < cut.size(); ++i)
    for (std::size_t j = 0; j < cut[i].size(); ++j) {
      if (!flagged[i][j]) continue;
      ++count;
      EXPECT_EQ(j, 0u);
      ASSERT_TRUE(samples[i]);
      for (const std::size_t k : cut[i][j].pieces) {
        EXPECT_LT(plan.schedule.pieces[k].block, samples[i]->blocks);
        EXPECT_EQ(plan.schedule.pieces[k].sm, samples[i]->sm);
      }
      EXPECT_EQ(cut[i][j].sms.size(), 1u);
    }
  EXPECT_GE(count, 3);  // a sample part for most of the eight launches after sgemm
}

// The rows `gpusched as-priorities --parts-csv` writes: each planned piece with its part, by launch, part and start.
TEST(PlannedPartPieces, EachPieceOfEitherCutWithItsPart) {
  // Blocks whole: ALaunchIsCutWhereThePartitionChanges' plan. Launch 0's parts: blocks 0-3 [0, 100) and 4-5
  // [100, 200); launch 1's: blocks 0-1 [100, 250) and 2-3 [200, 300).
  const auto w = planned_part_pieces(repartitioned_plan());
  ASSERT_EQ(w.size(), 10u);
  const auto row = [](const PlannedPartPiece& p) {
    return std::vector<std::int64_t>{p.launch, p.part, p.block, p.start, p.end};
  };
  EXPECT_EQ(row(w[0]), (std::vector<std::int64_t>{0, 0, 0, 0, 100}));
  EXPECT_EQ(row(w[3]), (std::vector<std::int64_t>{0, 0, 3, 0, 100}));
  EXPECT_EQ(row(w[4]), (std::vector<std::int64_t>{0, 1, 4, 100, 200}));
  EXPECT_EQ(row(w[6]), (std::vector<std::int64_t>{1, 0, 0, 100, 250}));
  EXPECT_EQ(row(w[9]), (std::vector<std::int64_t>{1, 1, 3, 200, 300}));
  // Blocks in pieces: APreemptedBlockIsCutWhereItsSmChangesHands' plan. Launch 0's parts: pieces of blocks 0 and 1
  // from 0, block 2 from 60, block 1 resumed at 100; launch 1's block 0 alone.
  const auto p = planned_part_pieces(preempted_plan());
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(row(p[0]), (std::vector<std::int64_t>{0, 0, 0, 0, 60}));
  EXPECT_EQ(row(p[1]), (std::vector<std::int64_t>{0, 0, 1, 0, 40}));
  EXPECT_EQ(row(p[2]), (std::vector<std::int64_t>{0, 1, 2, 60, 120}));
  EXPECT_EQ(row(p[3]), (std::vector<std::int64_t>{0, 2, 1, 100, 150}));
  EXPECT_EQ(row(p[4]), (std::vector<std::int64_t>{1, 0, 0, 40, 90}));
  // A plan no cut covers (a block in pieces on two GPUs would be one; here a launch without pieces) gives no rows.
  RunResult empty = launches_finishing_at({100, 100});
  empty.schedule.pieces.push_back(BlockPiece{0, 100, 0, 0, 0, 0});
  EXPECT_TRUE(planned_part_pieces(empty).empty());
}

namespace {
Schedule executed_pieces(const std::vector<BlockPiece>& pieces) {
  Schedule s;
  s.pieces = pieces;
  return s;
}
std::vector<std::int64_t> start_row(const PartStart& s) {
  return {s.launch, s.part, s.planned, s.executed, s.executed_piece};
}
}  // namespace

TEST(PartStarts, EachPartsFirstBlockAgainstThePlansStartOfIt) {
  // repartitioned_plan's parts (above): launch 0 blocks 0-3 from 0 and 4-5 from 100; launch 1 blocks 0-1 from 100 and
  // 2-3 from 200. Executed: launch 0's blocks 0-3 at 6, 5, 4, 3 and 4-5 at 108, 104; launch 1's blocks 0-1 at 120,
  // 115; its blocks 2-3 did not run (a part none of whose blocks ran has no executed start).
  const auto starts = part_starts(repartitioned_plan(), executed_pieces({
                                                            BlockPiece{6, 106, 0, 0, 0, 0},
                                                            BlockPiece{5, 105, 0, 1, 0, 1},
                                                            BlockPiece{4, 104, 0, 2, 0, 2},
                                                            BlockPiece{3, 103, 0, 3, 0, 3},
                                                            BlockPiece{108, 208, 0, 4, 0, 0},
                                                            BlockPiece{104, 204, 0, 5, 0, 1},
                                                            BlockPiece{120, 270, 1, 0, 0, 2},
                                                            BlockPiece{115, 265, 1, 1, 0, 3},
                                                        }));
  ASSERT_EQ(starts.size(), 4u);
  EXPECT_EQ(start_row(starts[0]), (std::vector<std::int64_t>{0, 0, 0, 3, 3}));
  EXPECT_EQ(start_row(starts[1]), (std::vector<std::int64_t>{0, 1, 100, 104, 5}));
  EXPECT_EQ(start_row(starts[2]), (std::vector<std::int64_t>{1, 0, 100, 115, 7}));
  EXPECT_EQ(start_row(starts[3]), (std::vector<std::int64_t>{1, 1, 200, -1, -1}));
  // 3 - 0, 104 - 100, 115 - 100 ns, in us; the part that did not run is left out.
  EXPECT_EQ(part_start_delays_us(starts), (std::vector<double>{0.003, 0.004, 0.015}));
}

TEST(PartStarts, APiecesPartIsTheOneOfItsBlocksPlannedPieceOfTheSameOrdinal) {
  // preempted_plan's parts: launch 0 {block 0 [0, 60), block 1 [0, 40)} from 0, {block 2} from 60, {block 1 resumed}
  // from 100; launch 1 {block 0} from 40. Executed: launch 0's block 0 at 2, block 1 at 1 and again at 130 (its second
  // piece: the third part), block 2 at 75 and once more at 140 (more pieces than planned: counted in its last planned
  // part, where it starts no earlier); launch 1's block 0 at 52.
  const auto starts = part_starts(preempted_plan(), executed_pieces({
                                                        BlockPiece{2, 62, 0, 0, 0, 0},
                                                        BlockPiece{130, 180, 0, 1, 0, 1, PieceOutcome::SwitchedIn},
                                                        BlockPiece{1, 41, 0, 1, 0, 1, PieceOutcome::SwitchedOut},
                                                        BlockPiece{75, 135, 0, 2, 0, 0},
                                                        BlockPiece{140, 150, 0, 2, 0, 0},
                                                        BlockPiece{52, 102, 1, 0, 0, 1},
                                                    }));
  ASSERT_EQ(starts.size(), 4u);
  EXPECT_EQ(start_row(starts[0]), (std::vector<std::int64_t>{0, 0, 0, 1, 2}));
  EXPECT_EQ(start_row(starts[1]), (std::vector<std::int64_t>{0, 1, 60, 75, 3}));
  EXPECT_EQ(start_row(starts[2]), (std::vector<std::int64_t>{0, 2, 100, 130, 1}));
  EXPECT_EQ(start_row(starts[3]), (std::vector<std::int64_t>{1, 0, 40, 52, 5}));
}

TEST(PartStarts, APlanNoCutCoversHasEachLaunchAsOnePart) {
  // Launch 1 has no piece in the plan, so no cut covers it (planned_part_pieces is empty): launch 0 is one part from
  // its first planned piece (20), started at 27 by its earliest executed piece; pieces of launch 1 and of a launch the
  // plan does not have (5) are ignored.
  RunResult plan = launches_finishing_at({100, 100});
  plan.schedule.pieces.push_back(BlockPiece{50, 100, 0, 1, 0, 1});
  plan.schedule.pieces.push_back(BlockPiece{20, 100, 0, 0, 0, 0});
  const auto starts = part_starts(plan, executed_pieces({BlockPiece{31, 90, 0, 1, 0, 0}, BlockPiece{27, 90, 0, 0, 0, 1},
                                                         BlockPiece{5, 9, 1, 0, 0, 0}, BlockPiece{1, 9, 5, 0, 0, 0}}));
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(start_row(starts[0]), (std::vector<std::int64_t>{0, 0, 20, 27, 1}));
}

namespace {
// Three SMs, one block each at a time. Launch 0 (released at 0): blocks 0 and 1 [0, 100) on SMs 0 and 1, blocks 2, 3
// and 4 in turn on SM 2 ([0, 30), [30, 60), [60, 100)); from 100 on SMs 0-1 only (blocks 5 and 6, [100, 150)), as
// launch 1 (released at 100) takes SM 2 ([100, 200)). Launch 0's parts: blocks 0-4 on SMs 0-2 from 0, blocks 5-6 on
// SMs 0-1 from 100.
RunResult part_handed_over_plan() {
  RunResult r = launches_finishing_at({150, 200});
  r.launches[1].release = 100;
  r.schedule.pieces = {BlockPiece{0, 100, 0, 0, 0, 0},   BlockPiece{0, 100, 0, 1, 0, 1},
                       BlockPiece{0, 30, 0, 2, 0, 2},    BlockPiece{30, 60, 0, 3, 0, 2},
                       BlockPiece{60, 100, 0, 4, 0, 2},  BlockPiece{100, 150, 0, 5, 0, 0},
                       BlockPiece{100, 150, 0, 6, 0, 1}, BlockPiece{100, 200, 1, 0, 0, 2}};
  return r;
}
}  // namespace

TEST(PartStarts, APartWaitsBehindItsLaunchsEarlierPartStillPlacingBlocksOnItsSms) {
  const RunResult plan = part_handed_over_plan();
  ASSERT_EQ(planned_part_pieces(plan).back().part, 0);  // launch 1: one part
  ASSERT_EQ(planned_part_pieces(plan)[5].part, 1);      // launch 0's block 5 opens its second part
  // Executed: block 0 runs [0, 40) on SM 0, block 1 [0, 120) on SM 1 and block 2 [0, 110) on SM 2, all slower or
  // faster than planned; the GPU places the first part's blocks 3 and 4 on the first free slot, SM 0, at 40 and at 103
  // (block 3 ran [40, 103)). The second part, released at 100, gets its first slot when SM 1 frees at 120 (block 5
  // there), launch 1's block when SM 2 frees at 110.
  RunResult executed = launches_finishing_at({170, 210});
  executed.launches[1].release = 100;
  executed.schedule.pieces = {BlockPiece{0, 40, 0, 0, 0, 0},    BlockPiece{0, 120, 0, 1, 0, 1},
                              BlockPiece{0, 110, 0, 2, 0, 2},   BlockPiece{40, 103, 0, 3, 0, 0},
                              BlockPiece{103, 160, 0, 4, 0, 0}, BlockPiece{120, 170, 0, 5, 0, 1},
                              BlockPiece{160, 210, 0, 6, 0, 0}, BlockPiece{110, 210, 1, 0, 0, 2}};
  const auto starts = part_starts(plan, executed.schedule);
  ASSERT_EQ(starts.size(), 3u);
  EXPECT_EQ(start_row(starts[1]), (std::vector<std::int64_t>{0, 1, 100, 120, 5}));
  // Block 5's planned hand-off, block 0 on SM 0, ended at 40, before the part's release at 100: ready at 100, so
  // 120 - 100 = 20 ns late. But the first part was still placing blocks on SMs 0-1, which the plan gives both parts,
  // until 103 (block 4 on SM 0), and the GPU places a launch's earlier grid's blocks first: ready at 103, 120 - 103 =
  // 17 ns. Launch 0's first part (started at 0, planned at 0): 0. Launch 1's planned hand-off is block 4 (SM 2 in the
  // plan), which ran on SM 0 to 160: 110 - 160 = -50 ns (a moved block's hand-off says little; the rule is unchanged).
  const auto mapping = plan_piece_by_ordinal(plan.schedule, executed.schedule);
  ASSERT_TRUE(mapping);
  EXPECT_EQ(launch_issue_ready(plan, executed.schedule, *mapping, starts), (std::vector<TimeNs>{-1, 103, -1}));
  EXPECT_EQ(part_start_delays_after_ready_us(plan, executed, starts, {}), (std::vector<double>{0.0, 0.017, -0.05}));
  EXPECT_EQ(part_start_delays_after_ready_us(plan, executed, starts, {}, false),
            (std::vector<double>{0.0, 0.020, -0.05}));
}
