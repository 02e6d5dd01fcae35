// Co-run records (core/corun_records.h), the co-run fit (sim/interference/corun_fit.h) and the `corun` and
// `bandwidth` interference models in the engine, by hand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/corun_records.h"
#include "core/corun_residency.h"
#include "core/error.h"
#include "sim/interference/bandwidth.h"
#include "sim/interference/corun_fit.h"
#include "test_helpers.h"

namespace gpusched {
namespace {

const std::string kHeader =
    "run,repeat,victim,victim_full,victim_blocks_per_sm,victim_bytes_per_block,partners,partners_full,"
    "partners_blocks_per_sm,blocks,alone_mean_ns,corun_mean_ns,exposure,exposure_at_start\n";

// A row: victim with k of `full` blocks per SM, one partner with m of `pfull`, exposure e, alone 1000 ns.
std::string row(const std::string& victim, const std::string& partner, int k, int m, double e, double corun,
                int full = 8, int pfull = 8) {
  return fmt::format("r,1,{},{},{},0,{},{},{},100,1000,{},{},{}\n", victim, full, k, partner, pfull, m, corun, e, e);
}

CoRunRecord record(const std::string& victim, const std::string& partner, int k, int m, double e, double corun) {
  return parse_corun_records(kHeader + row(victim, partner, k, m, e, corun), "t.csv").records.at(0);
}

TEST(CoRunRecords, ParsesRowsAndProvenance) {
  const auto t = parse_corun_records("# gpu = h100\n# device = H100\n" + kHeader +
                                         "x,2,sgemm-s1,8,4,3072,gather-s1;xtea-s1,8;8,2;2,528,1000,1500,1.5;2,1;2\n",
                                     "c.csv");
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.provenance.at("gpu"), "h100");
  const auto& r = t.records[0];
  EXPECT_EQ(r.repeat, 2);
  EXPECT_EQ(r.victim_blocks_per_sm, 4);
  ASSERT_EQ(r.partners.size(), 2u);
  EXPECT_EQ(r.partners[1].kernel, "xtea-s1");
  EXPECT_DOUBLE_EQ(r.partners[1].exposure, 2.0);
  EXPECT_DOUBLE_EQ(r.slowdown(), 1.5);
}

TEST(CoRunRecords, WriteThenReadGivesTheSameRecords) {
  CoRunTable t;
  t.provenance["gpu"] = "h100";
  t.records.push_back(record("a-s1", "b-s1", 4, 4, 3.5, 2500));
  const auto path = (std::filesystem::temp_directory_path() / "gpusched_corun_roundtrip.csv").string();
  write_corun_records(path, t);
  const auto back = read_corun_records(path);
  std::filesystem::remove(path);
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.provenance.at("gpu"), "h100");
  EXPECT_EQ(back.records[0].partners[0].kernel, "b-s1");
  EXPECT_DOUBLE_EQ(back.records[0].partners[0].exposure, 3.5);
  EXPECT_DOUBLE_EQ(back.records[0].corun_mean_ns, 2500);
}

// The message names the file, the line and the field.
void expect_error(const std::string& text, const std::string& field, int line) {
  try {
    (void)parse_corun_records(text, "bad.csv");
    FAIL() << "accepted: " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "bad.csv");
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(CoRunRecords, BadInputNamesFileLineAndField) {
  expect_error("run,repeat\n", "header", 1);
  expect_error("", "header", 0);
  expect_error(kHeader + "r,1,a-s1,8,4,0,b-s1,8,4,100,1000,slow,1,1\n", "corun_mean_ns", 2);
  expect_error(kHeader + "r,1,a-s1,8,4,0,b-s1,8,4,100,1000\n", "corun_mean_ns", 2);  // the first one missing
  expect_error(kHeader + "r,1,a-s1,8,4,0,b-s1;c-s1,8,4,100,1000,1200,1,1\n", "partners_full", 2);
  expect_error(kHeader + "r,1,a-s1,8,9,0,b-s1,8,4,100,1000,1200,1,1\n", "victim_blocks_per_sm", 2);
  expect_error(kHeader + "r,1,a-s1,8,4,0,a-s1,8,4,100,1000,1200,1,1\n", "partners", 2);
  expect_error(kHeader + "r,0,a-s1,8,4,0,b-s1,8,4,100,1000,1200,1,1\n", "repeat", 2);
  expect_error(kHeader + "r,1,a-s1,8,4,0,b-s1,8,4,100,0,1200,1,1\n", "alone_mean_ns", 2);
  expect_error(kHeader + "r,1,a-s1,8,4,0,b-s1,8,4,100,1000,1200,-1,1\n", "exposure", 2);
}

// Files since session 26 add the victim's own residency as placed (victim_exposure, victim_exposure_at_start).
const std::string kHeaderWithOwn =
    "run,repeat,victim,victim_full,victim_blocks_per_sm,victim_bytes_per_block,partners,partners_full,"
    "partners_blocks_per_sm,blocks,alone_mean_ns,corun_mean_ns,exposure,exposure_at_start,victim_exposure,"
    "victim_exposure_at_start\n";

TEST(CoRunRecords, TheVictimsOwnResidencyIsReadWrittenAndOptional) {
  const auto t =
      parse_corun_records(kHeaderWithOwn + "r,1,mriq-s1,8,2,0,gather-s1,8,6,264,1000,2200,0,0,6.7,6.0\n", "c.csv");
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_DOUBLE_EQ(t.records[0].victim_exposure, 6.7);
  EXPECT_DOUBLE_EQ(t.records[0].victim_residency(), 6.7);
  EXPECT_DOUBLE_EQ(t.records[0].victim_residency_at_start(), 6.0);
  // An older file has none: the launch's blocks per SM stand in.
  const auto old = record("a-s1", "b-s1", 4, 4, 3.5, 2500);
  EXPECT_EQ(old.victim_exposure, 0.0);
  EXPECT_DOUBLE_EQ(old.victim_residency(), 4.0);
  // Written with the columns when every record has them, and read back the same.
  const auto path = (std::filesystem::temp_directory_path() / "gpusched_corun_own.csv").string();
  write_corun_records(path, t);
  const auto back = read_corun_records(path);
  std::filesystem::remove(path);
  EXPECT_DOUBLE_EQ(back.records.at(0).victim_exposure, 6.7);
  EXPECT_DOUBLE_EQ(back.records.at(0).victim_exposure_at_start, 6.0);
  // The block itself is one of them: below 1 is refused, and the row must have both columns.
  expect_error(kHeaderWithOwn + "r,1,a-s1,8,4,0,b-s1,8,4,100,1000,1200,1,1,0.5,1\n", "victim_exposure", 2);
  expect_error(kHeaderWithOwn + "r,1,a-s1,8,4,0,b-s1,8,4,100,1000,1200,1,1,4\n", "victim_exposure_at_start", 2);
  expect_error(kHeader + "r,1,a-s1,8,4,0,b-s1,8,4,100,1000,1200,1,1,4,4\n", "exposure_at_start", 2);
}

TEST(CoRunResidency, TheReferenceMovesToTheResidencyTheVictimWasPlacedAt) {
  // The victim's recordings: 100 ns a block at 1 a SM, 400 at 4, 800 at 8. Launched at 2 (interpolated: 200 ns),
  // placed at 6 (600 ns): the reference alone (1000 ns at 2) becomes 1000 x 600 / 200 = 3000 ns at 6 a SM.
  auto k = test::kernel("mriq-s1", 16, 256, {100});
  test::add_record_set(*k, 4, 400);
  test::add_record_set(*k, 8, 800);
  auto r = parse_corun_records(kHeaderWithOwn + "r,1,mriq-s1,8,2,0,gather-s1,8,6,264,1000,3300,0,0,6,6\n", "c.csv")
               .records.at(0);
  const auto moved = at_own_residency(r, k.get());
  EXPECT_DOUBLE_EQ(moved.alone_mean_ns, 3000.0);
  EXPECT_EQ(moved.victim_blocks_per_sm, 6);
  EXPECT_NEAR(moved.slowdown(), 1.1, 1e-12);  // 3300 / 3000: what is left for the partner (none on the SM here)
  // Nothing moves without a measured residency, or without a curve to read it from.
  EXPECT_DOUBLE_EQ(at_own_residency(record("mriq-s1", "gather-s1", 2, 6, 0, 3300), k.get()).alone_mean_ns, 1000.0);
  EXPECT_DOUBLE_EQ(at_own_residency(r, nullptr).alone_mean_ns, 1000.0);
  EXPECT_DOUBLE_EQ(at_own_residency(r, test::kernel("one", 16, 256, {100}).get()).alone_mean_ns, 1000.0);
}

TEST(CoRunResidency, TheModelsParameterTakesPlacedOrLaunched) {
  const auto params = [](const std::string& v) {
    return sim::Params::resolve("corun", {sim::victim_residency_param()}, {{"victim_residency", v}});
  };
  EXPECT_TRUE(sim::victim_residency_placed(sim::Params::resolve("corun", {sim::victim_residency_param()}, {}), "x"));
  EXPECT_FALSE(sim::victim_residency_placed(params("launched"), "corun"));
  EXPECT_THROW((void)sim::victim_residency_placed(params("as-placed"), "corun"), std::invalid_argument);
}

TEST(CoRunRecords, SuiteKernelOfAProfile) {
  EXPECT_EQ(suite_kernel_of("sgemm-s1"), "sgemm");
  EXPECT_EQ(suite_kernel_of("mriq-s12"), "mriq");
  EXPECT_EQ(suite_kernel_of("kernel"), "kernel");
  EXPECT_EQ(suite_kernel_of("a-sx"), "a-sx");
  EXPECT_EQ(suite_kernel_of("a-s"), "a-s");
}

TEST(CoRunFit, APairsSlopeIsTheLeastSquaresFitOfLogSlowdowns) {
  // a beside b: x = 4/8 = 0.5 with slowdown 2, and x = 2/8 = 0.25 with slowdown sqrt(2).
  // sum x ln s = 0.5 ln2 + 0.25 x 0.5 ln2 = 0.625 ln2; sum x^2 = 0.25 + 0.0625 = 0.3125; beta = 2 ln2.
  const sim::CoRunCoefficients c(
      {record("a-s1", "b-s1", 4, 4, 4, 2000), record("a-s1", "b-s1", 4, 2, 2, 1000 * std::sqrt(2.0))});
  EXPECT_NEAR(c.beta("a", "b"), 2 * std::log(2.0), 1e-9);
  EXPECT_TRUE(c.recorded("a", "b"));
  EXPECT_FALSE(c.recorded("b", "a"));
  // Predicting the first row back: exp(2 ln2 x 0.5) = 2.
  EXPECT_NEAR(c.predict(record("a-s1", "b-s1", 4, 4, 4, 2000), sim::Exposure::Life), 2.0, 1e-9);
}

TEST(CoRunFit, OlderPartnersOnlyFitsTheRowsWhereThePartnerWasLaunchedFirst) {
  // Pair "a-s1+b-s1": in /ab a is launched first, in /ba b is. Victim a beside b at x = 4/8 = 0.5: slowdown 4 when
  // b came first (/ba), 1 (none) when a came first (/ab). Both orders: sum x ln s = 0.5 ln4 + 0.5 ln1 = ln2, sum
  // x^2 = 0.5, beta = 2 ln2. Only the older partner's row: beta = 0.5 ln4 / 0.25 = 4 ln2.
  auto first = record("a-s1", "b-s1", 4, 4, 4, 1000);
  first.run = "a-s1+b-s1@0.50:0.50/ab";
  auto second = record("a-s1", "b-s1", 4, 4, 4, 4000);
  second.run = "a-s1+b-s1@0.50:0.50@16sm/ba";  // tags after the mix are allowed
  EXPECT_EQ(sim::partner_launched_first(first), std::optional<bool>(false));
  EXPECT_EQ(sim::partner_launched_first(second), std::optional<bool>(true));
  auto unnamed = record("a-s1", "b-s1", 4, 4, 4, 1000);
  EXPECT_EQ(sim::partner_launched_first(unnamed), std::nullopt) << "the run name 'r' does not say";
  const sim::CoRunCoefficients both({first, second});
  EXPECT_NEAR(both.beta("a", "b"), 2 * std::log(2.0), 1e-9);
  const sim::CoRunCoefficients older({first, second, unnamed}, sim::CoRunForm::Occupancy, sim::Exposure::Life, {},
                                     sim::CoRunOrder::PartnerFirst);
  EXPECT_NEAR(older.beta("a", "b"), 4 * std::log(2.0), 1e-9);
}

TEST(CoRunFit, AMixOfThreeAddsTheExponents) {
  // beta(a, b) = 2 ln2 (x = 0.5, slowdown 2), beta(a, c) = 2 ln3 (x = 0.5, slowdown 3). Beside both at x = 0.25
  // each: exp(2 ln2 x 0.25 + 2 ln3 x 0.25) = sqrt(2) x sqrt(3) = sqrt(6).
  const sim::CoRunCoefficients c({record("a-s1", "b-s1", 4, 4, 4, 2000), record("a-s1", "c-s1", 4, 4, 4, 3000)});
  const auto mix =
      parse_corun_records(kHeader + "m,1,a-s1,8,4,0,b-s1;c-s1,8;8,2;2,100,1000,2400,2;2,2;2\n", "m").records.at(0);
  EXPECT_NEAR(c.predict(mix, sim::Exposure::Life), std::sqrt(6.0), 1e-9);
}

TEST(CoRunFit, APairNeverRecordedFollowsTheProductRule) {
  // Recorded: beta(a, b) = 2 ln2, beta(c, b) = 2 ln4 = 4 ln2, beta(a, d) = 2 ln8 = 6 ln2 (x = 0.5 each).
  // c's sensitivity s_c = 4 ln2 (its only beta); d's pressure p_d = 6 ln2; g = (2 + 4 + 6) ln2 / 3 = 4 ln2.
  // beta(c, d) = s_c x p_d / g = 4 ln2 x 6 ln2 / (4 ln2) = 6 ln2. A kernel never recorded at all (e) as victim
  // takes d's pressure; beside an unknown partner too: g.
  const sim::CoRunCoefficients c({record("a-s1", "b-s1", 4, 4, 4, 2000), record("c-s1", "b-s1", 4, 4, 4, 4000),
                                  record("a-s1", "d-s1", 4, 4, 4, 8000)});
  const double ln2 = std::log(2.0);
  EXPECT_NEAR(c.beta("c", "d"), 6 * ln2, 1e-9);
  EXPECT_NEAR(c.beta("e", "d"), 6 * ln2, 1e-9);
  EXPECT_NEAR(c.beta("e", "f"), 4 * ln2, 1e-9);
  // Another launch of the same kernel is no co-runner.
  EXPECT_EQ(c.beta("a", "a"), 0.0);
}

TEST(CoRunFit, RatioFormWeighsThePartnerAgainstTheVictimsOwnShare) {
  // Partner 2 of 8 (share 0.25), victim 1 of 4 (own share 0.25): ratio 1; occupancy form 0.25.
  EXPECT_DOUBLE_EQ(sim::corun_share(sim::CoRunForm::Ratio, 2, 8, 1, 4), 1.0);
  EXPECT_DOUBLE_EQ(sim::corun_share(sim::CoRunForm::Occupancy, 2, 8, 1, 4), 0.25);
}

// Two kernels on one SM (h100 limits: 128 threads, no registers or shared memory: 16 blocks per SM). a-s1's block
// runs 0-10000; b-s1's block arrives at 100 and is dispatched beside it.
// The duration of launch `l`'s (only) block.
TimeNs block_time(const RunResult& r, int l) {
  for (const auto& p : r.schedule.pieces)
    if (p.launch == l) return p.end - p.start;
  return -1;
}

RunResult run_pair(const std::string& interference, std::map<std::string, std::string> params) {
  return test::run_pair(10000, 1000, interference, std::move(params));
}

TEST(CoRunModel, AppliesTheFittedSlowdownAtDispatch) {
  // Records: b beside a at x = 8/16 = 0.5 took 2x: beta(b, a) = ln2 / 0.5 = 2 ln2.
  const auto path = (std::filesystem::temp_directory_path() / "gpusched_corun_model.csv").string();
  CoRunTable t;
  t.records.push_back(parse_corun_records(kHeader + row("b-s1", "a-s1", 8, 8, 8, 2000, 16, 16), "t").records[0]);
  write_corun_records(path, t);
  // Occupancy form: b's block sees one block of a (x = 1/16): 1000 x exp(2 ln2 / 16) = 1000 x 2^(1/8) = 1090.5.
  const auto occ = run_pair("corun", {{"coruns", path}});
  EXPECT_EQ(block_time(occ, 1), 1090);
  // a's block was dispatched alone: unchanged.
  EXPECT_EQ(block_time(occ, 0), 10000);
  // Ratio form: the record's x is (8/16) / (8/16) = 1, so beta = ln2; at dispatch a's share 1/16 over b's own
  // 1/16 is 1 too: 1000 x exp(ln2) = 2000.
  const auto ratio = run_pair("corun", {{"coruns", path}, {"form", "ratio"}});
  EXPECT_EQ(block_time(ratio, 1), 2000);
  std::filesystem::remove(path);
  EXPECT_THROW(run_pair("corun", {{"coruns", path}}), InputError);  // the file is gone: named in the error
  EXPECT_THROW(run_pair("corun", {{"form", "both"}}), std::invalid_argument);
}

TEST(CoRunModel, KernelsWithoutRecordsKeepTheirDurations) {
  // Built in code: no profile file, so no coruns.csv beside it.
  const auto r = run_pair("corun", {});
  EXPECT_EQ(block_time(r, 1), 1000);
}

TEST(BandwidthModel, StretchesABlockWhenTheSmsDemandExceedsItsShare) {
  // One SM of an h100 with 160 GB/s (160 bytes/ns over 1 SM). a: 1 block, 10000 ns, 16 MB of footprint:
  // d_a = 16e6 / 10000 = 1600 bytes/ns per block; its limit is 16 blocks, so alone at full residency it drew
  // 16 x 1600 = 25600 bytes/ns: C_a = 25600. b: 1 block of 1000 ns, 32 MB: d_b = 32000 bytes/ns; C_b = 16 x 32000.
  // b beside one a block: D = 32000 + 1600 = 33600 < 512000: unchanged. Make b light (1 MB: d_b = 1000, C_b = 16000)
  // and a heavy (320 MB: d_a = 32000): D = 1000 + 32000 = 33000 > 16000: 1000 x 33000 / 16000 = 2062.5.
  auto a = test::kernel("a", 1, 128, {10000});
  auto b = test::kernel("b", 1, 128, {1000});
  a->memory_footprint_bytes = 320'000'000;
  b->memory_footprint_bytes = 1'000'000;
  const auto w = make_workload("w", {a, b}, {test::launch("a", 0, 0), test::launch("b", 1, 100)});
  GpuSpec g = test::gpu_with_sms("h100", 1);
  g.dram_bandwidth_gbps = 160;
  sim::RunOptions o;
  o.interference = "bandwidth";
  sim::AloneTimeCache cache;
  const auto r = sim::run_workload(w, g, o, cache);
  EXPECT_EQ(block_time(r, 1), 2062);
  EXPECT_EQ(block_time(r, 0), 10000);
}

TEST(BandwidthModel, CountedDramTrafficReplacesTheCompulsoryOne) {
  // The same two kernels, but a's profile says a profiler counted 1.6e8 bytes per block: d_a = 1.6e8 / 10000 =
  // 16000 bytes/ns (its footprint would give 32000). b beside one a block: D = 1000 + 16000 = 17000 > C_b = 16000:
  // 1000 x 17000 / 16000 = 1062.5. Counted traffic on b alone (16e6 bytes: d_b = 16000, C_b = 256000) keeps it
  // unchanged: D = 32000 < 256000.
  auto a = test::kernel("a", 1, 128, {10000});
  auto b = test::kernel("b", 1, 128, {1000});
  a->memory_footprint_bytes = 320'000'000;
  a->dram_bytes_per_block = 1.6e8;
  b->memory_footprint_bytes = 1'000'000;
  EXPECT_DOUBLE_EQ(sim::bandwidth_demand_per_block(*a), 16000.0);
  EXPECT_DOUBLE_EQ(sim::bandwidth_demand_per_block(*b), 1000.0);
  const auto w = make_workload("w", {a, b}, {test::launch("a", 0, 0), test::launch("b", 1, 100)});
  GpuSpec g = test::gpu_with_sms("h100", 1);
  g.dram_bandwidth_gbps = 160;
  sim::RunOptions o;
  o.interference = "bandwidth";
  sim::AloneTimeCache cache;
  EXPECT_EQ(block_time(sim::run_workload(w, g, o, cache), 1), 1062);
  b->dram_bytes_per_block = 16e6;
  sim::AloneTimeCache cache2;
  EXPECT_EQ(block_time(sim::run_workload(w, g, o, cache2), 1), 1000);
}

}  // namespace
}  // namespace gpusched
