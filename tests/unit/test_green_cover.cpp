// Which green-context groups a launch needs (live/executor/green_cover.h), by hand: no GPU.
#include <gtest/gtest.h>

#include "live/executor/green_cover.h"

using namespace gpusched;
using namespace gpusched::live;

namespace {

// Hopper-like groups of two SMs, not in %smid order (the H100's split puts SMs 124-131 in groups 8-11).
const std::vector<std::vector<int>> kGroups = {{0, 1}, {2, 3}, {6, 7}, {4, 5}};

}  // namespace

// A launch planned on SMs 0..3 only: its entries' offsets per SM of a 6-SM plan (SMs 4 and 5 empty).
TEST(GreenCover, PlannedSmsAreTheSmsWithEntries) {
  LaunchQueues q;
  q.sm_begin = {0, 2, 3, 3, 7, 7, 7};  // SM 0: 2 entries, SM 1: 1, SM 2: 0, SM 3: 4, SMs 4-5: 0
  EXPECT_EQ(planned_sms(q), (std::vector<std::uint8_t>{1, 1, 0, 1, 0, 0}));
  EXPECT_TRUE(planned_sms(LaunchQueues{}).empty());
}

TEST(GreenCover, GroupsHoldingAnyWantedSm) {
  // SMs 1 and 3 wanted: group {0,1} and group {2,3}, not the others.
  EXPECT_EQ(covering_groups(kGroups, {0, 1, 0, 1, 0, 0, 0, 0}), (std::vector<int>{0, 1}));
  // SM 7 alone: group 2 ({6,7}), though its partner SM 6 is not wanted (groups are the finest unit).
  EXPECT_EQ(covering_groups(kGroups, {0, 0, 0, 0, 0, 0, 0, 1}), (std::vector<int>{2}));
  // SMs 4 and 6: groups 2 and 3, in group order.
  EXPECT_EQ(covering_groups(kGroups, {0, 0, 0, 0, 1, 0, 1, 0}), (std::vector<int>{2, 3}));
}

TEST(GreenCover, NoPartitionWhenEveryGroupOrNoSmIsWanted) {
  // One SM of every group: the launch spans the GPU; no green context.
  EXPECT_TRUE(covering_groups(kGroups, {1, 0, 1, 0, 1, 0, 1, 0}).empty());
  EXPECT_TRUE(covering_groups(kGroups, std::vector<std::uint8_t>(8, 0)).empty());
  // A shorter wanted list (a plan of fewer SMs than %smid reaches): SMs past its end are not wanted.
  EXPECT_EQ(covering_groups(kGroups, {1, 1}), (std::vector<int>{0}));
}

TEST(GreenCover, GroupsOfAListOfSms) {
  // SMs 7 and 3, in any order: groups {2,3} (index 1) and {6,7} (index 2), in group order; a single SM, its group.
  EXPECT_EQ(covering_groups_of_sms(kGroups, {7, 3}), (std::vector<int>{1, 2}));
  EXPECT_EQ(covering_groups_of_sms(kGroups, {5}), (std::vector<int>{3}));
  // One SM of every group: no partition.
  EXPECT_TRUE(covering_groups_of_sms(kGroups, {0, 2, 4, 6}).empty());
}

TEST(GreenCover, ClaimedGroupGoesToThePartWithItsLowerSm) {
  // kGroups: {0,1} {2,3} {6,7} {4,5}. Launch 0's part on SMs 1 and 2, launch 1's on SM 3, both over [0, 10): group
  // {2,3} is contested; launch 0's lowest SM there (2) is lower than launch 1's (3), so launch 0 keeps it and launch 1
  // keeps nothing of its own and falls back to its cover (the group {2,3}). Launch 0 keeps {0,1}, uncontested.
  const std::vector<PartSpan> parts = {{0, {1, 2}, 0, 10}, {1, {3}, 0, 10}};
  const auto claimed = claimed_groups_of_parts(kGroups, parts);
  EXPECT_EQ(claimed[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(claimed[1], (std::vector<int>{1}));
}

TEST(GreenCover, ClaimedGroupIsLostOnlyBesideAnotherLaunchInTime) {
  // Launch 1's part on SMs 3 and 4 over [0, 10): group {2,3} (1) is contested by launch 0's part on SM 2 over [5, 15),
  // whose lowest SM there is lower: launch 1 keeps only {4,5} (3). Launch 0's later part on SM 2 over [10, 20) meets
  // launch 1's only after it ends ([0, 10) and [10, 20) do not overlap) and takes nothing from it; a part of its own
  // launch never contests. Launch 0's parts keep {2,3}.
  const std::vector<PartSpan> parts = {{1, {3, 4}, 0, 10}, {0, {2}, 5, 15}, {0, {2}, 10, 20}, {1, {3}, 20, 30}};
  const auto claimed = claimed_groups_of_parts(kGroups, parts);
  EXPECT_EQ(claimed[0], (std::vector<int>{3}));
  EXPECT_EQ(claimed[1], (std::vector<int>{1}));
  EXPECT_EQ(claimed[2], (std::vector<int>{1}));
  EXPECT_EQ(claimed[3], (std::vector<int>{1}));  // after both of launch 0's parts: uncontested
}

TEST(GreenCover, ClaimedGroupsSharedAtOneSmAndEveryGroup) {
  // Two launches on the same SM 2 at once: the same lowest SM, both keep the group. A part on one SM of every group,
  // uncontested: every group, so no partition (empty), as covering_groups says.
  const std::vector<PartSpan> parts = {{0, {2}, 0, 10}, {1, {2, 3}, 0, 10}, {2, {0, 2, 4, 6}, 50, 60}};
  const auto claimed = claimed_groups_of_parts(kGroups, parts);
  EXPECT_EQ(claimed[0], (std::vector<int>{1}));
  EXPECT_EQ(claimed[1], (std::vector<int>{1}));
  EXPECT_TRUE(claimed[2].empty());
}
