// Stream priorities for native execution of whole-launch plans (sim/launch_priorities.h), on plans
// written by hand: a launch's window is [release, start of its last block].
#include <gtest/gtest.h>

#include "sim/launch_priorities.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;

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

// Replays through the `priority` policy, on the hand cases of test_policies_by_hand.cpp: one SM of an H100 with
// room for two 1024-thread blocks; A: 4 blocks of 100 ns, B: 2 blocks of 10 ns, both released at 0, A first.
namespace {
using test::a_and_b;
PriorityReplay replay_of(const std::string& policy) {
  const auto w = a_and_b();
  const auto gpu = test::gpu_with_sms("h100", 1);
  AloneTimeCache alone;
  RunOptions o;
  o.policy = policy;
  const RunResult plan = run_workload(w, gpu, o, alone);
  return replay_as_priorities(w, gpu, plan, o, 6, alone);
}
}  // namespace

TEST(PriorityReplay, AnSjfPlanIsReplayedExactly) {
  // sjf: B 0-10, A 10-210. B overtakes A (released together, A first): B one level up, and the dispatcher does the
  // same: every turnaround as planned.
  const auto r = replay_of("sjf");
  EXPECT_EQ(r.priorities.priority, (std::vector<int>{0, -1}));
  EXPECT_EQ(r.replay.launches[1].finish, 10);
  EXPECT_EQ(r.replay.launches[0].finish, 210);
  EXPECT_EQ(r.turnaround_err_pct, (std::vector<double>{0.0, 0.0}));
  EXPECT_TRUE(replay_within(r));
}

TEST(PriorityReplay, AnMpmaxPlanIsNotWhatTheDispatcherDoes) {
  // mpmax keeps a slot for B while A runs: A 0-100 | 20-120, 100-200 | 120-220; B 0-10, 10-20 (ByHand.Mpmax). B's
  // last block starts at 10, before A's (120): B one level up. The dispatcher then runs B's two blocks at once, 0-10,
  // and A in two waves 10-110, 110-210. Errors: A |210 - 220| / 210 = 4.76 %, B |10 - 20| / 10 = 100 %; nearest-rank
  // median of two is the smaller, p90 the larger: outside the bound (10 % / 25 %).
  const auto r = replay_of("mpmax");
  EXPECT_EQ(r.replay.launches[1].finish, 10);
  EXPECT_EQ(r.replay.launches[0].finish, 210);
  ASSERT_EQ(r.turnaround_err_pct.size(), 2u);
  EXPECT_NEAR(r.turnaround_err_pct[0], 100.0 * 10.0 / 210.0, 1e-9);
  EXPECT_NEAR(r.turnaround_err_pct[1], 100.0, 1e-9);
  EXPECT_NEAR(nearest_rank_pct(r.turnaround_err_pct, 0.5), 100.0 * 10.0 / 210.0, 1e-9);
  EXPECT_NEAR(nearest_rank_pct(r.turnaround_err_pct, 0.9), 100.0, 1e-9);
  EXPECT_FALSE(replay_within(r));
}

TEST(PriorityReplay, OnlyPlansOfWholeBlocksAreForTheHardware) {
  RunResult r = plan_of({{0, 100}, {10, 200}});
  EXPECT_TRUE(runs_blocks_whole(r));
  r.schedule.pieces.push_back(r.schedule.pieces.front());  // block 0 of launch 0 runs twice
  EXPECT_FALSE(runs_blocks_whole(r));
  r = plan_of({{0, 100}});
  r.schedule.pieces[0].outcome = PieceOutcome::SwitchedOut;  // stopped and resumed later
  EXPECT_FALSE(runs_blocks_whole(r));
}

// Planned samples (srtf's first block on one SM before the launch runs anywhere else), on hand-written plans.
TEST(PlannedSamples, BlocksOnOneSmBeforeTheFirstEndsAreASample) {
  RunResult r;
  r.launches.resize(3);
  // Launch 0 (running, no sample): blocks 0 and 1 start together on SMs 0 and 1.
  r.schedule.pieces.push_back(BlockPiece{0, 100, 0, 0, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{0, 100, 0, 1, 0, 1});
  // Launch 1 (sampled on SM 1): block 0 from 50 to 80 (its end is the prediction), block 1 on SM 1 at 60 (before 80:
  // in the sample), block 2 on SM 0 at 80 (after it). Sample: blocks 0-1, SM 1, 50 to 80.
  r.schedule.pieces.push_back(BlockPiece{50, 80, 1, 0, 0, 1});
  r.schedule.pieces.push_back(BlockPiece{60, 95, 1, 1, 0, 1});
  r.schedule.pieces.push_back(BlockPiece{80, 90, 1, 2, 0, 0});
  // Launch 2: block 0 on SM 0 from 100 to 130, but block 1 on SM 1 at 120, before it ended: not a sample.
  r.schedule.pieces.push_back(BlockPiece{100, 130, 2, 0, 0, 0});
  r.schedule.pieces.push_back(BlockPiece{120, 140, 2, 1, 0, 1});
  const auto s = planned_samples(r);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FALSE(s[0].has_value());
  ASSERT_TRUE(s[1].has_value());
  EXPECT_EQ(s[1]->blocks, 2);
  EXPECT_EQ(s[1]->sm, 1);
  EXPECT_EQ(s[1]->start, 50);
  EXPECT_EQ(s[1]->end, 80);
  EXPECT_FALSE(s[2].has_value());
}

TEST(PlannedSamples, OneBlockLaunchesAndOtherFirstBlocksAreNotSplit) {
  RunResult r;
  r.launches.resize(2);
  r.schedule.pieces.push_back(BlockPiece{0, 10, 0, 0, 0, 0});  // one block: nothing to split
  // Block 1 first, alone until its end: the native split needs blocks 0..k-1 (a grid of its own).
  r.schedule.pieces.push_back(BlockPiece{5, 20, 1, 1, 0, 2});
  r.schedule.pieces.push_back(BlockPiece{30, 40, 1, 0, 0, 3});
  const auto s = planned_samples(r);
  EXPECT_FALSE(s[0].has_value());
  EXPECT_FALSE(s[1].has_value());
}

TEST(PlannedSamples, SrtfSamplesTheLaunchesOfValidateH100ThatArriveWhileAnotherRuns) {
  // validate-h100 under srtf (interference none): sgemm arrives on an idle GPU and starts on every SM at once; each
  // later launch arrives while another runs and starts on the sample SM alone until its first block ends (`gpusched
  // sim ... --stream-schedule`: mriq's blocks 0-7 start on SM 0 from 320.5 us, the first ends at 384.1 us, nothing of
  // it elsewhere before 386.1 us). Without sampling nothing is a sample.
  const auto loaded = load_workload_and_gpu(std::string(GPUSCHED_TRACES_DIR) + "/workloads/validate-h100.toml", "",
                                            nullptr, "--gpu", "");
  RunOptions o;
  o.policy = "srtf";
  o.interference = "none";
  AloneTimeCache cache;
  const RunResult plan = run_workload(loaded.workload, loaded.gpu, o, cache);
  const auto s = planned_samples(plan);
  ASSERT_EQ(s.size(), 9u);
  std::vector<std::string> sampled;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i]) sampled.push_back(loaded.workload.launches[i].id);
  EXPECT_EQ(sampled, (std::vector<std::string>{"mriq", "stencil", "histogram", "blackscholes", "spmv", "xtea", "sad",
                                               "gather"}));
  ASSERT_TRUE(s[1].has_value());
  EXPECT_EQ(s[1]->blocks, 8);
  EXPECT_EQ(s[1]->sm, 0);
  EXPECT_EQ(s[1]->start, 320453);
  EXPECT_EQ(s[1]->end, 384101);
  o.policy_params["sampling"] = "false";
  for (const auto& x : planned_samples(run_workload(loaded.workload, loaded.gpu, o, cache)))
    EXPECT_FALSE(x.has_value());
}
