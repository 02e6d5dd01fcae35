// Stream priorities for native execution of whole-launch plans (live/timing/launch_priorities.h), on plans
// written by hand: a launch's window is [release, start of its last block].
#include <gtest/gtest.h>

#include "live/timing/launch_priorities.h"

using namespace gpusched;
using namespace gpusched::live;

namespace {
// One launch per (release, last block start); each gets two pieces: one at its release, one at `last`.
RunResult plan_of(const std::vector<std::pair<TimeNs, TimeNs>>& windows) {
  RunResult r;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    LaunchOutcome o;
    o.release = windows[i].first;
    r.launches.push_back(o);
    const auto l = static_cast<std::int32_t>(i);
    r.schedule.pieces.push_back(BlockPiece{windows[i].first, windows[i].first + 5, l, 0, 0, 0});
    r.schedule.pieces.push_back(BlockPiece{windows[i].second, windows[i].second + 5, l, 1, 0, 0});
  }
  return r;
}
}  // namespace

TEST(LaunchPriorities, FifoNeedsOneLevel) {
  // A (released 0, last block at 100) issues before B (released 10, last at 200): they overlap, but A was
  // released first, so equal priorities already put it first.
  const auto p = launch_priorities(plan_of({{0, 100}, {10, 200}}), 0, -5);
  EXPECT_EQ(p.priority, (std::vector<int>{0, 0}));
  EXPECT_EQ(p.levels_needed, 1);
  EXPECT_EQ(p.levels_given, 6);
}

TEST(LaunchPriorities, AShortLaunchOvertakingALongOneGetsALevelMore) {
  // sjf: L released at 0 issues until 300; S, released at 50 while L still has blocks to issue, finishes issuing
  // at 120: S before L against release order, so S needs priority least - 1 = -1.
  const auto p = launch_priorities(plan_of({{0, 300}, {50, 120}}), 0, -5);
  EXPECT_EQ(p.priority, (std::vector<int>{0, -1}));
  EXPECT_EQ(p.levels_needed, 2);
  EXPECT_EQ(p.clamped, 0u);
}

TEST(LaunchPriorities, ChainsOfInversionsAreClampedAtTheDevicesGreatestPriority) {
  // L (0..500), M (10..300), S (20..100): by window end S, M, L. L level 0; M overlaps L, released after it:
  // level 0 + 1 = 1; S overlaps M (released before S): 1 + 1 = 2, and L: 0 + 1 = 1; so 2. Three levels needed,
  // two given (0, -1): S is clamped at -1.
  const auto p = launch_priorities(plan_of({{0, 500}, {10, 300}, {20, 100}}), 0, -1);
  EXPECT_EQ(p.priority, (std::vector<int>{0, -1, -1}));
  EXPECT_EQ(p.levels_needed, 3);
  EXPECT_EQ(p.levels_given, 2);
  EXPECT_EQ(p.clamped, 1u);
}

TEST(LaunchPriorities, LaunchesThatNeverWaitTogetherNeedNoOrder) {
  // B is released (20) after A's last block started (10), and C (released 5, last at 8) finished issuing before
  // B was released; C and A overlap, C released later but issuing first: C one level up.
  const auto p = launch_priorities(plan_of({{0, 10}, {20, 30}, {5, 8}}), 0, -5);
  EXPECT_EQ(p.priority, (std::vector<int>{0, 0, -1}));
}

TEST(LaunchPriorities, ALaunchWithoutPiecesKeepsTheDefault) {
  RunResult r = plan_of({{0, 300}, {50, 120}});
  r.launches.push_back(LaunchOutcome{});
  const auto p = launch_priorities(r, 0, -5);
  EXPECT_EQ(p.priority.size(), 3u);
  EXPECT_EQ(p.priority[2], 0);
}
