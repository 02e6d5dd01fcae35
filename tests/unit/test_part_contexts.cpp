// The green contexts of a plan's parts (sim/part_contexts.h, core/green_groups.h), by hand: no GPU.
#include <gtest/gtest.h>

#include "sim/part_contexts.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;

namespace {

// Three groups of two SMs.
const std::vector<std::vector<int>> kGroups = {{0, 1}, {2, 3}, {4, 5}};

}  // namespace

TEST(GreenGroups, ConsecutiveGroupsOfNSms) {
  EXPECT_EQ(consecutive_groups(5, 2), (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4}}));  // the last one short
  EXPECT_EQ(consecutive_groups(4, 4), (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  EXPECT_TRUE(consecutive_groups(4, 0).empty());
}

TEST(GreenGroups, DescribeGroupsInRunsOfConsecutiveSms) {
  // The three pairs of kGroups follow one another: one run.
  EXPECT_EQ(describe_groups(kGroups), "groups 0-2: SMs 0-5");
  // A layout like the H100's (docs/validation.md, "Green contexts"), scaled down: groups 0-1 hold SMs 0-3, groups 2-3
  // the last SMs 8-11, groups 4-5 SMs 4-7. SM 4 does not follow group 3's SM 11, so groups 4-5 start a run.
  const std::vector<std::vector<int>> h100_like = {{0, 1}, {2, 3}, {8, 9}, {10, 11}, {4, 5}, {6, 7}};
  EXPECT_EQ(describe_groups(h100_like), "groups 0-1: SMs 0-3; groups 2-3: SMs 8-11; groups 4-5: SMs 4-7");
  // A group of SMs that are not consecutive (listed in any order) is given alone; one group is "group", not "groups".
  EXPECT_EQ(describe_groups({{3, 0}, {1, 2}}), "group 0: SMs 0,3; group 1: SMs 1-2");
  EXPECT_EQ(describe_groups({{}}), "group 0: SMs none");
  EXPECT_EQ(describe_groups({}), "");
}

TEST(GreenGroups, SmsOfGroupsAscendingOnce) {
  // Groups 2 and 0 of kGroups: SMs 4, 5, 0, 1, ascending; a group named twice counts once; no group, no SM.
  EXPECT_EQ(sms_of_groups(kGroups, {2, 0}), (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(sms_of_groups(kGroups, {1, 1}), (std::vector<int>{2, 3}));
  EXPECT_TRUE(sms_of_groups(kGroups, {}).empty());
}

TEST(PartContexts, SpansOfAWholeBlockCutRunFromThePartsStartToItsLastEnd) {
  // Launch 0: blocks 0-1 a part on SM 0 (pieces 0-100 and 5-80), block 2 a part on SM 1 (100-150); launch 1 one part,
  // block 0 on SM 2 (20-30).
  RunResult plan;
  plan.schedule.pieces = {test::piece(0, 100, 0, 0, 0), test::piece(5, 80, 0, 1, 0), test::piece(100, 150, 0, 2, 1),
                          test::piece(20, 30, 1, 0, 2)};
  const std::vector<std::vector<PlannedPart>> cut{{PlannedPart{0, 2, {0}, 0}, PlannedPart{2, 1, {1}, 100}},
                                                  {PlannedPart{0, 1, {2}, 20}}};
  const auto spans = part_spans(plan, cut);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].launch, 0);
  EXPECT_EQ(spans[0].start, 0);
  EXPECT_EQ(spans[0].end, 100);  // max(100, 80)
  EXPECT_EQ(spans[1].start, 100);
  EXPECT_EQ(spans[1].end, 150);
  EXPECT_EQ(spans[2].launch, 1);
  EXPECT_EQ(spans[2].sms, (std::vector<int>{2}));
  EXPECT_EQ(spans[2].end, 30);
}

TEST(PartContexts, SpansOfAPieceCutRunToTheirPiecesLastEnd) {
  RunResult plan;
  plan.schedule.pieces = {test::piece(0, 40, 0, 0, 0), test::piece(10, 70, 0, 1, 0), test::piece(70, 90, 0, 0, 0)};
  const std::vector<std::vector<PlannedPieces>> cut{{PlannedPieces{{0, 1}, {0}, 0}, PlannedPieces{{2}, {0}, 70}}};
  const auto spans = part_spans(plan, cut);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].end, 70);  // max(40, 70)
  EXPECT_EQ(spans[1].start, 70);
  EXPECT_EQ(spans[1].end, 90);
}

TEST(PartContexts, CoverTakesEveryGroupOfThePartsSmsClaimedLeavesAContestedOne) {
  // A's part on SMs 1 and 2 over [0, 100): groups {0,1} and {2,3}. B's part on SMs 3 and 4 over [0, 10): groups
  // {2,3} and {4,5}. Cover: A on SMs 0-3, B on SMs 2-5. Claimed: group {2,3} is contested and A's lowest SM there (2)
  // is below B's (3), so A keeps it and B keeps only {4,5}: A on 0-3, B on 4-5.
  const std::vector<PartSpan> spans = {{0, {1, 2}, 0, 100}, {1, {3, 4}, 0, 10}};
  EXPECT_EQ(part_context_sms(kGroups, spans, PartContext::Cover),
            (std::vector<std::vector<int>>{{0, 1, 2, 3}, {2, 3, 4, 5}}));
  EXPECT_EQ(part_context_sms(kGroups, spans, PartContext::Claimed),
            (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5}}));
  // B after A ([200, 210)): nothing contested at the time, B keeps its cover.
  const std::vector<PartSpan> later = {{0, {1, 2}, 0, 100}, {1, {3, 4}, 200, 210}};
  EXPECT_EQ(part_context_sms(kGroups, later, PartContext::Claimed),
            (std::vector<std::vector<int>>{{0, 1, 2, 3}, {2, 3, 4, 5}}));
}

TEST(PartContexts, APartOnEveryGroupHasNoContext) {
  // SMs 0, 2 and 4: one of every group, so the context is every SM: empty (a plain stream).
  const std::vector<PartSpan> spans = {{0, {0, 2, 4}, 0, 10}};
  EXPECT_EQ(part_context_sms(kGroups, spans, PartContext::Cover), (std::vector<std::vector<int>>{{}}));
  EXPECT_EQ(part_context_groups(kGroups, spans, PartContext::Cover), (std::vector<std::vector<int>>{{}}));
}

TEST(PartContexts, NamesBothWays) {
  EXPECT_STREQ(part_context_name(PartContext::Cover), "cover");
  EXPECT_STREQ(part_context_name(PartContext::Claimed), "claimed");
  EXPECT_EQ(part_context_of("claimed"), PartContext::Claimed);
  EXPECT_EQ(part_context_of("cover"), PartContext::Cover);
  EXPECT_THROW(part_context_of("auto"), std::invalid_argument);
}
