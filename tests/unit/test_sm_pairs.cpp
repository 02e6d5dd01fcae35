// The plan's SMs paired onto the GPU's two-SM green-context groups (sim/sm_pairs.h): hand-computed spill weights,
// the pair exchange, the renumbering, and chimera's plan of validate-h200.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/planned_parts.h"
#include "sim/sm_pairs.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;
using gpusched::test::piece;

using gpusched::test::launches_finishing_at;

namespace {
// Four SMs. Launch 0 runs its two blocks on SMs 0 and 2, launch 1 its two on SMs 1 and 3, each block [0, 100).
RunResult interleaved_plan() {
  RunResult r = launches_finishing_at({100, 100});
  r.schedule.pieces = {piece(0, 100, 0, 0, 0), piece(0, 100, 1, 0, 1), piece(0, 100, 0, 1, 2), piece(0, 100, 1, 1, 3)};
  return r;
}
}  // namespace

TEST(SmPairs, SpillWeightIsTheWorksBusyTimePerSmForEachPairAcrossItsEdge) {
  // Work on SMs {0, 2} for 2,000 ns of blocks: 1 us per SM, on each pair of one SM inside and one outside: (0,1),
  // (0,3), (2,1), (2,3). Work on all four SMs has nowhere to spill.
  const SpillWeights w({{{0, 2}, 2000}, {{0, 1, 2, 3}, 8000}}, 4);
  EXPECT_DOUBLE_EQ(w(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(w(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(w(0, 3), 1.0);
  EXPECT_DOUBLE_EQ(w(2, 1), 1.0);
  EXPECT_DOUBLE_EQ(w(2, 3), 1.0);
  EXPECT_DOUBLE_EQ(w(0, 2), 0.0);
  EXPECT_DOUBLE_EQ(w(1, 3), 0.0);
}

TEST(SmPairs, PartnersAreExchangedWhileThatLowersTheSpill) {
  // From (0,1), (2,3): spill w(0,1) + w(2,3) = 1 + 1 = 2 us. Exchanging gives (0,2), (1,3): 0 + 0, or (0,3), (1,2):
  // 1 + 1; the first is taken.
  const SpillWeights w({{{0, 2}, 2000}}, 4);
  const SmPairing p = pair_sms(w, {{0, 1}, {2, 3}});
  EXPECT_DOUBLE_EQ(p.start_spill_us, 2.0);
  EXPECT_DOUBLE_EQ(p.spill_us, 0.0);
  ASSERT_EQ(p.pairs.size(), 2u);
  EXPECT_EQ(p.pairs[0], (SmPair{0, 2}));
  EXPECT_EQ(p.pairs[1], (SmPair{1, 3}));
}

TEST(SmPairs, PairsThatSpillNothingAreKept) {
  const SpillWeights w({{{0, 1}, 2000}}, 4);
  const SmPairing p = pair_sms(w, {{0, 1}, {2, 3}});
  EXPECT_DOUBLE_EQ(p.spill_us, 0.0);
  EXPECT_EQ(p.pairs, (std::vector<SmPair>{{0, 1}, {2, 3}}));
}

TEST(SmPairs, StartingPairsMustHoldEverySmOnce) {
  const SpillWeights w({}, 4);
  EXPECT_THROW(pair_sms(w, {{0, 1}, {1, 3}}), std::invalid_argument);
  EXPECT_THROW(pair_sms(w, {{0, 1}}), std::invalid_argument);
  EXPECT_THROW(pair_sms(w, {{0, 1}, {2, 4}}), std::invalid_argument);
}

TEST(SmPairs, RenumberingMovesEveryPieceAndKeepsTheEndOrder) {
  RunResult r = interleaved_plan();
  renumber_sms(r, {3, 2, 1, 0});
  // Pieces all end at 100: ordered by their new SM, 0 (was 3), 1 (was 2), 2 (was 1), 3 (was 0).
  ASSERT_EQ(r.schedule.pieces.size(), 4u);
  EXPECT_EQ(r.schedule.pieces[0], piece(0, 100, 1, 1, 0));
  EXPECT_EQ(r.schedule.pieces[1], piece(0, 100, 0, 1, 1));
  EXPECT_EQ(r.schedule.pieces[2], piece(0, 100, 1, 0, 2));
  EXPECT_EQ(r.schedule.pieces[3], piece(0, 100, 0, 0, 3));
  EXPECT_THROW(renumber_sms(r, {0, 0, 1, 2}), std::invalid_argument);
  EXPECT_THROW(renumber_sms(r, {0, 1, 2}), std::invalid_argument);  // a piece on SM 3 has nowhere to go
}

TEST(SmPairs, APlanIsNumberedSoThatEachLaunchHasWholeGroups) {
  // interleaved_plan: one part per launch (blocks whole), launch 0 on {0, 2}, launch 1 on {1, 3}, each 200 ns of
  // blocks: 0.1 us per SM. With the groups {0, 1} and {2, 3} as the plan numbers its SMs, w(0,1) = 0.1 (launch 0:
  // 0 in, 1 out) + 0.1 (launch 1: 1 in, 0 out) = 0.2, and w(2,3) = 0.2: 0.4 us. Paired (0,2), (1,3): nothing. Pair 0
  // goes onto group 0 (SMs 0 and 1), pair 1 onto group 1 (SMs 2 and 3): launch 0 runs on SMs 0-1, launch 1 on 2-3.
  RunResult r = interleaved_plan();
  const auto p = pair_sms_onto_groups(r, {{0, 1}, {2, 3}}, 4, {});
  ASSERT_TRUE(p.has_value());
  EXPECT_NEAR(p->start_spill_us, 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(p->spill_us, 0.0);
  std::map<std::pair<int, int>, int> sm_of;  // (launch, block) -> SM
  for (const auto& q : r.schedule.pieces) sm_of[{q.launch, q.block}] = q.sm;
  EXPECT_EQ((sm_of[{0, 0}]), 0);
  EXPECT_EQ((sm_of[{0, 1}]), 1);
  EXPECT_EQ((sm_of[{1, 0}]), 2);
  EXPECT_EQ((sm_of[{1, 1}]), 3);
}

TEST(SmPairs, GroupsOnTheGpusOwnNumbersTakeTheirPairs) {
  // The GPU's group 0 holds SMs 2 and 3, group 1 SMs 0 and 1 (as the H100's groups 8-11 hold SMs 124-131). The plan's
  // pairs start as those groups: (2,3), (0,1); exchanged to (2,0), (3,1) [w(2,0) = 0: both launch 0's]. Pair 0
  // goes onto group 0: plan SM 2 -> 2, 0 -> 3; pair 1 onto group 1: 3 -> 0, 1 -> 1.
  RunResult r = interleaved_plan();
  const auto p = pair_sms_onto_groups(r, {{2, 3}, {0, 1}}, 4, {});
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->spill_us, 0.0);
  EXPECT_EQ(p->pairs, (std::vector<SmPair>{{2, 0}, {3, 1}}));
  std::map<std::pair<int, int>, int> sm_of;
  for (const auto& q : r.schedule.pieces) sm_of[{q.launch, q.block}] = q.sm;
  EXPECT_EQ((sm_of[{0, 0}]), 3);  // plan SM 0
  EXPECT_EQ((sm_of[{0, 1}]), 2);  // plan SM 2
  EXPECT_EQ((sm_of[{1, 0}]), 1);  // plan SM 1
  EXPECT_EQ((sm_of[{1, 1}]), 0);  // plan SM 3
}

TEST(SmPairs, GroupsNotOfTwoSmsLeaveThePlanAlone) {
  RunResult r = interleaved_plan();
  const auto before = r.schedule.pieces;
  EXPECT_FALSE(pair_sms_onto_groups(r, {{0, 1, 2, 3}}, 4, {}).has_value());    // one group of four
  EXPECT_FALSE(pair_sms_onto_groups(r, {{0, 1}, {1, 2}}, 4, {}).has_value());  // SM 1 twice, SM 3 in none
  EXPECT_FALSE(pair_sms_onto_groups(r, {{0, 1}, {2, 3}}, 6, {}).has_value());  // SMs 4-5 in none
  EXPECT_EQ(r.schedule.pieces, before);
}

TEST(SmPairs, ChimerasPlanOfValidateH200SpillsLessAndKeepsEveryPiece) {
  // chimera on validate-h200 (interference none) picks single SMs as they free up: with the plan's numbers nearly every
  // part's green context would hold SMs it was not given. Paired, the spill falls; every piece keeps its launch,
  // block, times and outcome, only its SM renumbered, one plan SM to one GPU SM.
  const auto [loaded, plan] = test::shipped_plan("validate-h200", "chimera");
  std::vector<std::vector<int>> groups;
  for (int g = 0; g < loaded.gpu.sm_count / 2; ++g) groups.push_back({2 * g, 2 * g + 1});
  RunResult paired = plan;
  const auto p = pair_sms_onto_groups(paired, groups, loaded.gpu.sm_count, {.merge_within = 10'000});
  ASSERT_TRUE(p.has_value());
  EXPECT_GT(p->start_spill_us, 0.0);
  EXPECT_LT(p->spill_us, 0.5 * p->start_spill_us);
  ASSERT_EQ(paired.schedule.pieces.size(), plan.schedule.pieces.size());
  using Key = std::tuple<int, int, TimeNs, TimeNs, PieceOutcome>;
  std::map<Key, int> sm_before;
  for (const auto& q : plan.schedule.pieces) sm_before[{q.launch, q.block, q.start, q.end, q.outcome}] = q.sm;
  std::map<int, int> to;
  for (const auto& q : paired.schedule.pieces) {
    const auto it = sm_before.find({q.launch, q.block, q.start, q.end, q.outcome});
    ASSERT_NE(it, sm_before.end());
    const auto [m, fresh] = to.emplace(it->second, q.sm);
    EXPECT_EQ(m->second, q.sm) << "plan SM " << it->second << " went to two SMs";
  }
  EXPECT_TRUE(std::is_sorted(paired.schedule.pieces.begin(), paired.schedule.pieces.end(),
                             [](const BlockPiece& x, const BlockPiece& y) { return x.end < y.end; }));
}
