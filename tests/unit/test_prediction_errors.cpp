// The errors docs/validation.md reports for a prediction against a measured run (core/prediction_errors.h),
// by hand.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "core/prediction_errors.h"
#include "test_helpers.h"

namespace gpusched {
namespace {

RunResult run_of(const std::vector<TimeNs>& turnarounds, TimeNs makespan, const std::vector<TimeNs>& piece_times) {
  RunResult r;
  for (TimeNs t : turnarounds) {
    LaunchOutcome o;
    o.turnaround = t;
    r.launches.push_back(o);
  }
  r.metrics.makespan = makespan;
  for (std::size_t i = 0; i < piece_times.size(); ++i)
    r.schedule.pieces.push_back(BlockPiece{0, piece_times[i], static_cast<std::int32_t>(i % turnarounds.size()), 0, 0,
                                           0, PieceOutcome::Completed});
  return r;
}

TEST(PredictionErrors, ByHand) {
  auto k = test::kernel("k", 1, 32, {100});
  auto w = make_workload("w", {k}, {test::launch("a", 0, 0), test::launch("b", 0, 0), test::launch("c", 0, 0)});
  // Measured turnarounds 100, 200, 400 against predicted 90, 220, 400: |errors| 10 %, 10 %, 0 %. Nearest rank:
  // median = the 2nd of [0, 10, 10] = 10 %, p90 = the ceil(2.7) = 3rd = 10 %, max 10 %. Makespan 500 against 450:
  // 10 %. Same block times on both sides: KS 0.
  const auto measured = run_of({100, 200, 400}, 500, {50, 60, 70});
  const auto predicted = run_of({90, 220, 400}, 450, {50, 60, 70});
  const auto e = prediction_errors(w, measured, predicted);
  EXPECT_EQ(e.launches, 3u);
  EXPECT_DOUBLE_EQ(e.turnaround_median_pct, 10.0);
  EXPECT_DOUBLE_EQ(e.turnaround_p90_pct, 10.0);
  EXPECT_DOUBLE_EQ(e.turnaround_max_pct, 10.0);
  EXPECT_DOUBLE_EQ(e.makespan_pct, 10.0);
  EXPECT_DOUBLE_EQ(e.block_ks, 0.0);
  // Predicted blocks all longer than every measured one: KS 1.
  EXPECT_DOUBLE_EQ(prediction_errors(w, measured, run_of({90, 220, 400}, 450, {80, 90, 95})).block_ks, 1.0);
  EXPECT_EQ(native_csv_row("w", "h100", "fifo", 2, e), "w,h100,fifo,2,3,10.00,10.00,10.00,10.00,0.0000");
}

TEST(PredictionErrors, NearestRank) {
  EXPECT_EQ(nearest_rank({}, 0.5), 0.0);
  EXPECT_EQ(nearest_rank({5}, 0.9), 5.0);
  // 10 values 1..10: p90 = the 9th, median = the 5th.
  std::vector<double> v{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(nearest_rank(v, 0.9), 9.0);
  EXPECT_EQ(nearest_rank(v, 0.5), 5.0);
}

TEST(PredictionErrors, MismatchedRunsAreRefused) {
  auto w = make_workload("w", {test::kernel("k", 1, 32, {100})}, {test::launch("a", 0, 0)});
  EXPECT_THROW((void)prediction_errors(w, run_of({1, 2}, 1, {}), run_of({1}, 1, {})), std::invalid_argument);
}

TEST(PredictionErrors, CsvHeaderOnceThenRows) {
  const auto path = (std::filesystem::temp_directory_path() / "gpusched-native-test.csv").string();
  std::filesystem::remove(path);
  append_csv_rows(path, kNativeCsvHeader, {"r1"});
  append_csv_rows(path, kNativeCsvHeader, {"r2", "r3"});
  EXPECT_EQ(test::read_file(path), std::string(kNativeCsvHeader) + "\nr1\nr2\nr3\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpusched
