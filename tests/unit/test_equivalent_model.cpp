// The `equivalent` interference model (equivalent residency over a block's life), by hand.
#include <gtest/gtest.h>

#include "sim/duration_model.h"
#include "sim/interference/equivalent.h"
#include "sim/registry.h"
#include "sim/run_identity.h"
#include "sim/runner.h"
#include "test_helpers.h"

namespace gpusched {
namespace {

std::unique_ptr<sim::DurationModel> equivalent(std::map<std::string, std::string> params = {}) {
  const auto* info = sim::Registry<sim::DurationModel>::instance().find("equivalent");
  EXPECT_NE(info, nullptr);
  return info->make(sim::Params::resolve("equivalent", info->params, params));
}

// k's record sets: residency 2 at 100 ns a block, residency 4 (its primary) at 200 ns: 50 ns a block more per
// block on the SM, and along that slope past residency 4.
std::shared_ptr<KernelProfile> victim() {
  auto k = test::kernel("k-s1", 264, 128, {200});
  k->record_sets.back().residency = 4;
  test::add_record_set(*k, 2, 100);
  k->equivalent_blocks["j-s1"] = 1.5;
  return k;
}

std::vector<double> rates(const sim::DurationModel& m, std::vector<sim::SmGroup> groups) {
  std::vector<double> out(groups.size());
  m.group_rates(test::gpu_with_sms("h100", 132), groups, out);
  return out;
}

TEST(EquivalentModel, OtherBlocksCountAsTheirFittedWeightInOwnBlocks) {
  const auto k = victim();
  const auto j = test::kernel("j-s1", 264, 128, {300});    // one record set: no curve, runs as recorded
  const auto m = test::kernel("m-s1", 264, 128, {300});    // no weight fitted for k <- m
  const auto model = equivalent({{"fallback", "value"}});  // an unfitted pair weighs `unfitted` (1)
  ASSERT_TRUE(model->over_life());
  // 2 of k's blocks beside 2 of j's: r_eff = 2 + 1.5 x 2 = 5 -> 200 + 50 x (5 - 4) = 250 ns: rate 200 / 250.
  auto r = rates(*model, {{k.get(), 2, 0}, {j.get(), 2, 1}});
  EXPECT_DOUBLE_EQ(r[0], 0.8);
  EXPECT_DOUBLE_EQ(r[1], 1.0);
  // Beside 2 of m's (weight 1): r_eff = 4, the recording's own residency: rate 1.
  r = rates(*model, {{k.get(), 2, 0}, {m.get(), 2, 1}});
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  // Beside 1 of m's: r_eff = 3 -> 150 ns: faster than recorded, 200 / 150.
  r = rates(*model, {{k.get(), 2, 0}, {m.get(), 1, 1}});
  EXPECT_DOUBLE_EQ(r[0], 200.0 / 150.0);
  // Both: r_eff = 2 + 3 + 1 = 6 -> 300 ns.
  r = rates(*model, {{k.get(), 2, 0}, {j.get(), 2, 1}, {m.get(), 1, 2}});
  EXPECT_DOUBLE_EQ(r[0], 200.0 / 300.0);
  // The `unfitted` parameter weighs m's block: 2 + 2 x 2 = 6 -> 300 ns.
  r = rates(*equivalent({{"fallback", "value"}, {"unfitted", "2"}}), {{k.get(), 2, 0}, {m.get(), 2, 1}});
  EXPECT_DOUBLE_EQ(r[0], 200.0 / 300.0);
}

// The default fallback: an unfitted pair weighs the median of the victim's fitted weights.
TEST(EquivalentModel, AnUnfittedPairWeighsTheVictimsMedianWeight) {
  auto k = victim();  // fitted: j-s1 1.5
  const auto m = test::kernel("m-s1", 264, 128, {300});
  const auto model = equivalent();
  // One fitted weight (1.5): 2 of k's beside 2 of m's: r_eff = 2 + 1.5 x 2 = 5 -> 250 ns: rate 0.8.
  EXPECT_DOUBLE_EQ(rates(*model, {{k.get(), 2, 0}, {m.get(), 2, 1}})[0], 0.8);
  // Weights 1.5, 0.5, 0.1: median 0.5; r_eff = 2 + 0.5 x 2 = 3 -> 150 ns: rate 200 / 150.
  k->equivalent_blocks["p-s1"] = 0.5;
  k->equivalent_blocks["q-s1"] = 0.1;
  model->begin_run();  // the profile changed: as between two runs (the model keeps what it read for a run)
  EXPECT_DOUBLE_EQ(rates(*model, {{k.get(), 2, 0}, {m.get(), 2, 1}})[0], 200.0 / 150.0);
  // Four weights 1.5, 0.5, 0.1, 0.3: median (0.3 + 0.5) / 2 = 0.4; r_eff = 2 + 0.4 x 5 = 4: rate 1.
  k->equivalent_blocks["s-s1"] = 0.3;
  model->begin_run();
  EXPECT_DOUBLE_EQ(rates(*model, {{k.get(), 2, 0}, {m.get(), 5, 1}})[0], 1.0);
  EXPECT_DOUBLE_EQ(sim::equivalent_unfitted_weight(*k, sim::EquivalentFallback::Median, 1.0), 0.4);
  // No fitted weight at all: the `unfitted` parameter (1), whatever the fallback.
  k->equivalent_blocks.clear();
  EXPECT_DOUBLE_EQ(sim::equivalent_unfitted_weight(*k, sim::EquivalentFallback::Median, 1.0), 1.0);
  EXPECT_THROW(equivalent({{"fallback", "mean"}}), std::invalid_argument);
}

// The rule as gpusched crossval applies it to a co-run record (held-out pairs): the curve and the weights.
// Two sizes of one suite kernel (k-s1 beside k-s2, no weight fitted between them) weigh as own blocks under
// `same_suite=own`; under the default `same_suite=fallback` as any unfitted pair; a fitted weight wins either way.
TEST(EquivalentModel, AnotherSizeOfTheSameSuiteKernelWeighsAsAnOwnBlock) {
  auto k = victim();  // records: residency 2 at 100 ns, 4 (primary) at 200 ns; fitted: j-s1 1.5
  const auto other_size = test::kernel("k-s2", 264, 128, {400});
  // own: 2 + 1 x 2 = 4 -> 200 ns, the primary's: rate 1.
  auto r = rates(*equivalent({{"same_suite", "own"}}), {{k.get(), 2, 0}, {other_size.get(), 2, 1}});
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  // fallback (the default): the median of k's fitted weights (1.5): 2 + 1.5 x 2 = 5 -> 200 + 50 = 250 ns: 200 / 250.
  r = rates(*equivalent(), {{k.get(), 2, 0}, {other_size.get(), 2, 1}});
  EXPECT_DOUBLE_EQ(r[0], 0.8);
  // A fitted weight for the other size wins: 2 + 0.5 x 2 = 3 -> 150 ns: rate 200 / 150.
  k->equivalent_blocks["k-s2"] = 0.5;
  r = rates(*equivalent({{"same_suite", "own"}}), {{k.get(), 2, 0}, {other_size.get(), 2, 1}});
  EXPECT_DOUBLE_EQ(r[0], 200.0 / 150.0);
  EXPECT_DOUBLE_EQ(sim::equivalent_weight(*k, "k-s2", 0.1, true), 0.5);
  EXPECT_DOUBLE_EQ(sim::equivalent_weight(*k, "k-s3", 0.1, true), 1.0);
  EXPECT_DOUBLE_EQ(sim::equivalent_weight(*k, "k-s3", 0.1, false), 0.1);
  EXPECT_TRUE(sim::same_suite_kernel("gather-s1", "gather-s2"));
  EXPECT_TRUE(sim::same_suite_kernel("gather", "gather-s2"));
  EXPECT_FALSE(sim::same_suite_kernel("gather-s1", "gathers-s1"));
  EXPECT_FALSE(sim::same_suite_kernel("sgemm-s1", "gather-s1"));
  EXPECT_THROW(equivalent({{"same_suite", "yes"}}), std::invalid_argument);
}

// A run stored with a model spec that carries parameters ("name:key=value", as --interference takes it) records the
// model's name and its resolved parameters; an unknown name is refused by name.
TEST(EquivalentModel, AParameterisedSpecIsDescribedForTheStore) {
  const auto loaded =
      sim::load_workload_and_gpu(std::string(GPUSCHED_TEST_DATA) + "/small/small.toml", "", nullptr, "--gpu", "");
  sim::RunOptions o;
  o.policy = "fifo";
  o.interference = "equivalent:same_suite=own";
  const auto info = sim::describe_sim_run(loaded.workload, "hash", loaded.gpu, o);
  EXPECT_EQ(info.interference, "equivalent(unfitted=1,fallback=median,same_suite=own,gpu_wide=off)");
  o.interference = "equivalnt:same_suite=own";
  try {
    (void)sim::describe_sim_run(loaded.workload, "hash", loaded.gpu, o);
    ADD_FAILURE() << "an unknown model was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown interference model 'equivalnt'"), std::string::npos) << e.what();
  }
}

std::vector<double> rates_on_gpu(const sim::DurationModel& m, std::vector<sim::SmGroup> groups,
                                 std::vector<sim::SmGroup> gpu_load, int sms) {
  std::vector<double> out(groups.size());
  m.group_rates_on_gpu(test::gpu_with_sms("h100", sms), groups, gpu_load, sms, out);
  return out;
}

// gpu_wide=on: a share mu (the profile's gpu_wide_share) of the residency is read over the whole GPU, blocks of the
// kernel's suite anywhere counting as own: r_eff = s + others + mu x (S / SMs - s). On 10 SMs, k (records: 2 at
// 100 ns, 4 at 200 ns, 50 ns a block more past 2) with mu = 0.5.
TEST(EquivalentModel, AShareOfTheResidencyIsReadOverTheWholeGpu) {
  auto k = victim();  // fitted: j-s1 1.5
  k->gpu_wide_share = 0.5;
  const auto k2 = test::kernel("k-s2", 264, 128, {400});  // another size of k's suite kernel
  const auto j = test::kernel("j-s1", 264, 128, {300});
  const auto on = equivalent({{"gpu_wide", "on"}});
  const auto up = equivalent({{"gpu_wide", "up"}});
  ASSERT_TRUE(on->gpu_wide());
  EXPECT_FALSE(on->lone_launch_at_rate_one());  // a lone launch on its SM is re-rated from the GPU's load
  EXPECT_FALSE(equivalent()->gpu_wide());
  // 2 of k's blocks alone on their SM, k-s2's 60 blocks elsewhere on the 10 SMs (S = 62): r_eff = 2 + 0.5 x (6.2 - 2)
  // = 4.1 -> 200 + 50 x 0.1 = 205 ns: rate 200 / 205. Under `up` the same (the suite's load is above the SM's).
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 2, 0}}, {{k.get(), 2, 0}, {k2.get(), 60, 0}}, 10)[0], 200.0 / 205.0);
  EXPECT_DOUBLE_EQ(rates_on_gpu(*up, {{k.get(), 2, 0}}, {{k.get(), 2, 0}, {k2.get(), 60, 0}}, 10)[0], 200.0 / 205.0);
  // 4 of k's beside 2 of j's (weight 1.5), k's suite on the GPU 10 blocks in all (S / SMs = 1): r_eff = 4 + 1.5 x 2
  // + 0.5 x (1 - 4) = 5.5 -> 275 ns: rate 200 / 275. Under `up` the suite's lighter load elsewhere does not count:
  // 4 + 3 = 7 -> 350 ns.
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 4, 0}, {j.get(), 2, 1}}, {{k.get(), 10, 0}, {j.get(), 2, 0}}, 10)[0],
                   200.0 / 275.0);
  EXPECT_DOUBLE_EQ(rates_on_gpu(*up, {{k.get(), 4, 0}, {j.get(), 2, 1}}, {{k.get(), 10, 0}, {j.get(), 2, 0}}, 10)[0],
                   200.0 / 350.0);
  // The same SM beside 2 of k-s2's: under gpu_wide they count as own blocks (weight 1, not the fallback's median):
  // s = 6, S / SMs = 1: r_eff = 6 + 0.5 x (1 - 6) = 3.5 -> 175 ns.
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 4, 0}, {k2.get(), 2, 1}}, {{k.get(), 8, 0}, {k2.get(), 2, 0}}, 10)[0],
                   200.0 / 175.0);
  // Uniform over the GPU (S / SMs = s) the rule is the SM's: 2 of k's beside 2 of j's everywhere: 2 + 3 = 5 -> 250.
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 2, 0}, {j.get(), 2, 1}}, {{k.get(), 20, 0}, {j.get(), 20, 0}}, 10)[0],
                   rates(*equivalent(), {{k.get(), 2, 0}, {j.get(), 2, 1}})[0]);
  // Another kernel's GPU-wide weight (k's [gpu_wide_blocks]): j's blocks per SM over the GPU beyond those on k's SM.
  // 2 of k's alone on the SM, k's suite 20 blocks on the GPU (S / SMs = 2 = s), j's 30 elsewhere, g(k <- j) = 0.5:
  // r_eff = 2 + 0.5 x (3 - 0) = 3.5 -> 175 ns. With 1 of j's on the SM (weight 1.5) and 31 in all: 2 + 1.5 +
  // 0.5 x (3.1 - 1) = 4.55 -> 227.5 ns. `up` counts no other kernel's GPU-wide load: 2 -> 100 ns; 2 + 1.5 -> 175 ns.
  k->gpu_wide_blocks["j-s1"] = 0.5;
  on->begin_run();  // the profile changed: as between two runs (the model keeps what it read for a run)
  up->begin_run();
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 2, 0}}, {{k.get(), 20, 0}, {j.get(), 30, 0}}, 10)[0], 200.0 / 175.0);
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 2, 0}, {j.get(), 1, 1}}, {{k.get(), 20, 0}, {j.get(), 31, 0}}, 10)[0],
                   200.0 / 227.5);
  EXPECT_DOUBLE_EQ(rates_on_gpu(*up, {{k.get(), 2, 0}}, {{k.get(), 20, 0}, {j.get(), 30, 0}}, 10)[0], 2.0);
  EXPECT_DOUBLE_EQ(rates_on_gpu(*up, {{k.get(), 2, 0}, {j.get(), 1, 1}}, {{k.get(), 20, 0}, {j.get(), 31, 0}}, 10)[0],
                   200.0 / 175.0);
  // Copies of j's profile (the parts replay runs each part as a launch of a copy of the same name) are one kernel:
  // the same SM with 3 of j's here (copy j1) and 2 more elsewhere (copy j2), 5 in all: j's load beyond this SM is
  // max(0, 5 / 10 - 3) = 0, and r_eff = 2 + 1.5 x 3 = 6.5 -> 325 ns. Clamped copy by copy it was
  // 2 + 1.5 x 3 + 0.5 x (max(0, 0.3 - 3) + max(0, 0.2 - 0)) = 6.6 -> 330 ns.
  const auto j1 = std::make_shared<KernelProfile>(*j), j2 = std::make_shared<KernelProfile>(*j);
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 2, 0}, {j1.get(), 3, 1}},
                                {{k.get(), 20, 0}, {j1.get(), 3, 0}, {j2.get(), 2, 0}}, 10)[0],
                   200.0 / 325.0);
  k->gpu_wide_blocks.clear();
  on->begin_run();
  // One kernel on the whole GPU runs as recorded, however its blocks are spread.
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 1, 0}}, {{k.get(), 40, 0}}, 10)[0], 1.0);
  // No share in the profile: 0, the plain rule (2 of k's alone on the SM: 2 -> 100 ns, 200 / 100).
  k->gpu_wide_share.reset();
  EXPECT_DOUBLE_EQ(rates_on_gpu(*on, {{k.get(), 2, 0}}, {{k.get(), 2, 0}, {j.get(), 60, 0}}, 10)[0], 2.0);
  // Off (the default): group_rates_on_gpu is group_rates (a lone launch at rate 1).
  EXPECT_DOUBLE_EQ(rates_on_gpu(*equivalent(), {{k.get(), 2, 0}}, {{k.get(), 2, 0}, {k2.get(), 60, 0}}, 10)[0], 1.0);
  EXPECT_THROW(equivalent({{"gpu_wide", "yes"}}), std::invalid_argument);
}

TEST(EquivalentModel, TheCurveAndTheWeightsOutsideTheEngine) {
  const auto k = victim();
  EXPECT_DOUBLE_EQ(sim::equivalent_mean_ns(*k, 2), 100.0);    // a record set
  EXPECT_DOUBLE_EQ(sim::equivalent_mean_ns(*k, 3), 150.0);    // between 2 (100) and 4 (200)
  EXPECT_DOUBLE_EQ(sim::equivalent_mean_ns(*k, 5.5), 275.0);  // past 4 along 50 ns a block: 200 + 1.5 x 50
  EXPECT_DOUBLE_EQ(sim::equivalent_weight(*k, "j-s1"), 1.5);
  EXPECT_DOUBLE_EQ(sim::equivalent_weight(*k, "m-s1"), 1.0);  // unfitted
  EXPECT_DOUBLE_EQ(sim::equivalent_weight(*k, "m-s1", 0.5), 0.5);
  // A co-run of 2 of k's blocks with j's at an exposure of 1.0: r_eff = 2 + 1.5 = 3.5 -> 175 ns against 100 alone.
  EXPECT_DOUBLE_EQ(
      sim::equivalent_mean_ns(*k, 2 + sim::equivalent_weight(*k, "j-s1") * 1.0) / sim::equivalent_mean_ns(*k, 2), 1.75);
}

TEST(EquivalentModel, ALaunchBesideOnlyItsOwnKernelRunsAsRecorded) {
  const auto k = victim();
  const auto r = rates(*equivalent(), {{k.get(), 1, 0}, {k.get(), 1, 1}});
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_DOUBLE_EQ(r[1], 1.0);
}

TEST(EquivalentModel, InTheEngineOverTheBlocksLife) {
  // a-s1's block (10 000 ns) alone, b-s1's (1000 ns) placed beside it at 100 (test::run_pair). Their profiles have
  // one record set each, so neither has a curve: both run as recorded.
  EXPECT_EQ(test::run_pair(10000, 1000, "equivalent").schedule.pieces.size(), 2u);
  for (const auto& p : test::run_pair(10000, 1000, "equivalent").schedule.pieces)
    EXPECT_EQ(p.end - p.start, p.launch == 0 ? 10000 : 1000);
}

}  // namespace
}  // namespace gpusched
