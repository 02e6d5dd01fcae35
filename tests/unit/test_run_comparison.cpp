// One stored run against another (`gpusched compare`, core/store/run_comparison.h): the statistics by hand, a
// workload mismatch, and the command on a real store.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/store/run_comparison.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::store;

namespace {

RunRecord record(std::int64_t id, const std::vector<TimeNs>& turnarounds, TimeNs makespan, double stp, double antt,
                 const std::vector<TimeNs>& block_times) {
  RunRecord r;
  r.info.id = id;
  r.info.workload = "w";
  r.info.workload_hash = "h";
  for (std::size_t i = 0; i < turnarounds.size(); ++i) {
    LaunchRow l;
    l.index = static_cast<int>(i);
    l.id = "l" + std::to_string(i);
    l.outcome.turnaround = turnarounds[i];
    r.launches.push_back(l);
  }
  r.metrics.makespan = makespan;
  r.metrics.stp = stp;
  r.metrics.antt = antt;
  TimeNs t = 0;
  for (std::size_t b = 0; b < block_times.size(); ++b) {
    r.schedule.pieces.push_back(
        {t, t + block_times[b], 0, static_cast<std::int32_t>(b), 0, 0, PieceOutcome::Completed});
    t += block_times[b];
  }
  return r;
}

}  // namespace

TEST(RunComparison, KolmogorovSmirnovByHand) {
  // a = {1, 2, 3, 4}, b = {3, 4, 5, 6}: after 2 the CDFs are 2/4 and 0/4, the largest gap: 0.5.
  std::vector<double> a{4, 3, 2, 1}, b{6, 5, 4, 3};
  EXPECT_DOUBLE_EQ(ks_statistic(a, b), 0.5);
  // Identical samples: 0. Disjoint: 1.
  std::vector<double> c{1, 2, 2}, d{2, 1, 2};
  EXPECT_DOUBLE_EQ(ks_statistic(c, d), 0.0);
  std::vector<double> e{1, 2}, f{5, 6, 7};
  EXPECT_DOUBLE_EQ(ks_statistic(e, f), 1.0);
  // Ties across samples are stepped together: a = {1, 2}, b = {2, 3}: at 1: 1/2 - 0 = 0.5; at 2: 1 - 1/2 = 0.5.
  std::vector<double> g{1, 2}, h{2, 3};
  EXPECT_DOUBLE_EQ(ks_statistic(g, h), 0.5);
  std::vector<double> none;
  EXPECT_DOUBLE_EQ(ks_statistic(none, h), 0.0);
}

TEST(RunComparison, ErrorsByHand) {
  // Predicted turnarounds 110 and 90 against measured 100 and 100: +10% and -10%, mean |e| 10%, max 10%.
  // Makespan 1050 against 1000: +5%; STP 1.8 against 2.0: -10%; ANTT 1.1 against 1.0: +10%.
  // Block times {10, 20, 30} against {10, 20, 40}: medians 20 and 20 (ratio 1); CDF gap 1/3 at 30.
  const auto predicted = record(1, {110, 90}, 1050, 1.8, 1.1, {10, 20, 30});
  const auto measured = record(2, {100, 100}, 1000, 2.0, 1.0, {10, 20, 40});
  const auto c = compare_runs(predicted, measured);
  ASSERT_EQ(c.launches.size(), 2u);
  EXPECT_NEAR(c.launches[0].relative_error, 0.10, 1e-12);
  EXPECT_NEAR(c.launches[1].relative_error, -0.10, 1e-12);
  EXPECT_NEAR(c.mean_abs_turnaround_error, 0.10, 1e-12);
  EXPECT_NEAR(c.max_abs_turnaround_error, 0.10, 1e-12);
  EXPECT_NEAR(c.makespan_error, 0.05, 1e-12);
  EXPECT_NEAR(c.stp_error, -0.10, 1e-12);
  EXPECT_NEAR(c.antt_error, 0.10, 1e-12);
  ASSERT_TRUE(c.block_time_ks.has_value());
  EXPECT_NEAR(*c.block_time_ks, 1.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(*c.block_time_median_ratio, 1.0);
  EXPECT_EQ(c.blocks, 3u);

  // A block in two pieces (switched out and in) counts once, with both pieces' time; a flushed piece not at all.
  auto split = record(3, {100, 100}, 1000, 2.0, 1.0, {10, 20});
  split.schedule.pieces.push_back({100, 105, 0, 1, 0, 0, PieceOutcome::SwitchedIn});  // block 1: 20 + 5
  split.schedule.pieces.push_back({200, 299, 0, 7, 0, 0, PieceOutcome::Flushed});     // rerun elsewhere
  const auto s = compare_runs(split, measured);
  EXPECT_EQ(s.blocks, 2u);  // blocks 0 (10) and 1 (25)

  // Without blocks: the distributions are not compared.
  auto metrics_only = measured;
  metrics_only.schedule.pieces.clear();
  EXPECT_FALSE(compare_runs(predicted, metrics_only).block_time_ks.has_value());

  // Different workloads are refused.
  auto other = measured;
  other.info.workload_hash = "other";
  EXPECT_THROW(compare_runs(predicted, other), std::invalid_argument);
}

TEST(RunComparison, TurnaroundErrorSplitsIntoStartBlockTimeAndWidth) {
  // One launch of two blocks, released at 0. Reference: both blocks side by side from 5 to 15 (first start 5, span
  // 10, block time 10, width 20 / 10 = 2 in flight), turnaround 15. Run: the first block from 8 to 20, the second
  // from 20 to 32 (first start 8, span 24, block time 12, width 24 / 24 = 1), turnaround 32.
  // Error (32 - 15) / 15 = 17/15. Start: (8 - 5) / 15 = 3/15. Block time: 2 blocks x (12 - 10) / width 2 / 15 = 2/15.
  // Width, the rest: 17/15 - 3/15 - 2/15 = 12/15 (2 x 12 / 1 - 2 x 12 / 2 = 12 more ns of span, one block at a time).
  const auto one_launch = [](std::int64_t id, TimeNs turnaround, std::vector<BlockPiece> pieces) {
    RunRecord r;
    r.info.id = id;
    r.info.workload_hash = "h";
    LaunchRow l;
    l.id = "a";
    l.outcome.release = 0;
    l.outcome.turnaround = turnaround;
    r.launches.push_back(l);
    r.schedule.pieces = std::move(pieces);
    return r;
  };
  const auto reference =
      one_launch(1, 15, {{5, 15, 0, 0, 0, 0, PieceOutcome::Completed}, {5, 15, 0, 1, 0, 1, PieceOutcome::Completed}});
  const auto run =
      one_launch(2, 32, {{8, 20, 0, 0, 0, 0, PieceOutcome::Completed}, {20, 32, 0, 1, 0, 0, PieceOutcome::Completed}});
  const auto c = compare_runs(run, reference);
  ASSERT_TRUE(c.launches[0].start_share.has_value());
  EXPECT_NEAR(c.launches[0].relative_error, 17.0 / 15, 1e-12);
  EXPECT_NEAR(*c.launches[0].start_share, 3.0 / 15, 1e-12);
  EXPECT_NEAR(*c.launches[0].duration_share, 2.0 / 15, 1e-12);
  EXPECT_NEAR(*c.launches[0].width_share, 12.0 / 15, 1e-12);
  EXPECT_NEAR(*c.mean_abs_width_share, 12.0 / 15, 1e-12);
  const std::string text = format_comparison(run, reference, c);
  EXPECT_NE(text.find("+20.00%   +13.33%   +80.00%"), std::string::npos) << text;
  EXPECT_NE(text.find("turnaround error from: first slot (start) mean |e| 20.00%, block time (blocks) 13.33%, slots "
                      "held (width) 80.00%"),
            std::string::npos)
      << text;
  // A run without its blocks is not decomposed.
  auto metrics_only = run;
  metrics_only.schedule.pieces.clear();
  const auto m = compare_runs(metrics_only, reference);
  EXPECT_FALSE(m.launches[0].start_share.has_value());
  EXPECT_FALSE(m.mean_abs_start_share.has_value());
  EXPECT_EQ(format_comparison(metrics_only, reference, m).find("turnaround error from"), std::string::npos);
}

TEST(RunComparison, CommandComparesStoredRuns) {
  const std::string db =
      (std::filesystem::temp_directory_path() / ("gpusched_compare_" + std::to_string(getpid()) + ".db")).string();
  std::filesystem::remove(db);
  const std::string w = std::string(GPUSCHED_TEST_DATA) + "/small/small.toml";
  std::string out;
  ASSERT_EQ(gpusched::test::run_cli("sim -w " + w + " -p fifo,srtf --db " + db, out), 0) << out;
  ASSERT_EQ(gpusched::test::run_cli("compare " + db + " 2 1", out), 0) << out;
  EXPECT_NE(out.find("run 2 (sim srtf, none) against run 1 (sim fifo, none), workload small"), std::string::npos)
      << out;
  EXPECT_NE(out.find("turnaround error: mean |e|"), std::string::npos) << out;
  EXPECT_NE(out.find("block times: KS statistic"), std::string::npos) << out;
  EXPECT_NE(out.find("turnaround error from: first slot (start) mean |e|"), std::string::npos) << out;
  // A run compared with itself: every error is zero.
  ASSERT_EQ(gpusched::test::run_cli("compare " + db + " 1 1", out), 0) << out;
  EXPECT_NE(out.find("makespan +0.00%"), std::string::npos) << out;
  EXPECT_NE(out.find("KS statistic 0.000, median ratio 1.000"), std::string::npos) << out;
  EXPECT_NE(out.find("first slot (start) mean |e| 0.00%, block time (blocks) 0.00%, slots held (width) 0.00%"),
            std::string::npos)
      << out;
  // An unknown run: exit 2 with the store named.
  EXPECT_EQ(gpusched::test::run_cli("compare " + db + " 1 99", out), 2);
  EXPECT_NE(out.find("no run with id 99"), std::string::npos) << out;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
}
