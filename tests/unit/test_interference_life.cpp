// Interference applied over a block's life (DurationModel::over_life: the engine re-times running blocks when their
// SM's launches change) and the `age` model's rule, fit and use in the engine, by hand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/corun_records.h"
#include "sim/duration_model.h"
#include "sim/interference/age_fit.h"
#include "sim/registry.h"
#include "test_helpers.h"

namespace gpusched {
namespace {

// A model for the engine tests: while two launches share an SM, the younger runs at 0.5 and the older at 0.8.
class TwoSpeeds final : public sim::DurationModel {
 public:
  TimeNs duration(const sim::DurationQuery& q) const override {
    return sim::recorded_duration(*q.kernel, q.block, q.draw_base);
  }
  bool over_life() const override { return true; }
  void group_rates(const GpuSpec&, std::span<const sim::SmGroup> groups, std::span<double> rates) const override {
    for (std::size_t i = 0; i < groups.size(); ++i) rates[i] = groups.size() < 2 ? 1.0 : (i == 0 ? 0.8 : 0.5);
  }
};

// As TwoSpeeds, but launches of one kernel only run at rate 1 together (as `age` and `equivalent` take them), so it
// may declare one_kernel_at_rate_one; the same model undeclared is the reference the engine's shortcut must match.
template <bool Declared>
class KernelSpeeds final : public sim::DurationModel {
 public:
  TimeNs duration(const sim::DurationQuery& q) const override {
    return sim::recorded_duration(*q.kernel, q.block, q.draw_base);
  }
  bool over_life() const override { return true; }
  bool one_kernel_at_rate_one() const override { return Declared; }
  void group_rates(const GpuSpec&, std::span<const sim::SmGroup> groups, std::span<double> rates) const override {
    const bool one_kernel = std::all_of(groups.begin(), groups.end(),
                                        [&](const sim::SmGroup& g) { return g.kernel == groups.front().kernel; });
    for (std::size_t i = 0; i < groups.size(); ++i) rates[i] = one_kernel ? 1.0 : (i == 0 ? 0.8 : 0.5);
  }
};

// A GPU-wide model for the engine tests: every block at 0.5 while two kernels or more have blocks on the GPU, else 1.
class GpuSpeeds final : public sim::DurationModel {
 public:
  TimeNs duration(const sim::DurationQuery& q) const override {
    return sim::recorded_duration(*q.kernel, q.block, q.draw_base);
  }
  bool over_life() const override { return true; }
  bool lone_launch_at_rate_one() const override { return false; }
  bool gpu_wide() const override { return true; }
  void group_rates_on_gpu(const GpuSpec&, std::span<const sim::SmGroup>, std::span<const sim::SmGroup> gpu_load, int,
                          std::span<double> rates) const override {
    std::fill(rates.begin(), rates.end(), gpu_load.size() < 2 ? 1.0 : 0.5);
  }
};

}  // namespace
}  // namespace gpusched

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, test_gpu_speeds, "test-gpu-speeds",
                         "tests only: every block at 0.5 while two kernels or more are on the GPU, else 1", {},
                         [](const gpusched::sim::Params&) { return std::make_unique<gpusched::GpuSpeeds>(); })
GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, test_kernel_speeds, "test-kernel-speeds",
                         "tests only: launches of one kernel at 1 together; else the oldest at 0.8, the rest at 0.5",
                         {},
                         [](const gpusched::sim::Params&) { return std::make_unique<gpusched::KernelSpeeds<true>>(); })
GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, test_kernel_speeds_undeclared, "test-kernel-speeds-undeclared",
                         "tests only: test-kernel-speeds without declaring one_kernel_at_rate_one", {},
                         [](const gpusched::sim::Params&) { return std::make_unique<gpusched::KernelSpeeds<false>>(); })

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, test_two_speeds, "test-two-speeds",
                         "tests only: the younger of two launches on an SM at 0.5, the older at 0.8", {},
                         [](const gpusched::sim::Params&) { return std::make_unique<gpusched::TwoSpeeds>(); })

namespace gpusched {
namespace {

TimeNs end_of(const RunResult& r, int l) {
  for (const auto& p : r.schedule.pieces)
    if (p.launch == l) return p.end;
  return -1;
}

RunResult run_two(TimeNs a_time, TimeNs b_time, const std::string& model,
                  std::map<std::string, std::string> params = {}) {
  return test::run_pair(a_time, b_time, model, std::move(params));
}

TEST(OverLife, RunningBlocksAreRetimedWhenAnotherLaunchJoinsTheirSm) {
  // a: 10000 ns from 0. b: 1000 ns, placed at 100 beside it. From 100 b runs at 0.5 and a at 0.8.
  // b: 1000 / 0.5 = 2000 ns -> ends at 2100. a: 100 done by 100, 2000 x 0.8 = 1600 more by 2100 (1700 in all), then
  // alone at 1: 10000 - 1700 = 8300 -> ends at 10400.
  const auto r = run_two(10000, 1000, "test-two-speeds");
  EXPECT_EQ(end_of(r, 1), 2100);
  EXPECT_EQ(end_of(r, 0), 10400);
  EXPECT_EQ(test::check_invariants(
                make_workload("w", {test::kernel("a-s1", 1, 128, {10000}), test::kernel("b-s1", 1, 128, {1000})},
                              {test::launch("a", 0, 0), test::launch("b", 1, 100)}),
                test::gpu_with_sms("h100", 1), r),
            "");
}

TEST(OverLife, ABlockSpeedsUpWhenItsCoRunnerLeaves) {
  // a: 1000 ns from 0; b: 1000 ns placed at 100. At 100: a has 900 left at 0.8 -> ends at 100 + 1125 = 1225.
  // b: 1125 x 0.5 = 562.5 done by 1225, 437.5 left alone at 1 -> ends at 1225 + 437.5 = 1662.5, rounded up: 1663.
  const auto r = run_two(1000, 1000, "test-two-speeds");
  EXPECT_EQ(end_of(r, 0), 1225);
  EXPECT_EQ(end_of(r, 1), 1663);
}

// A GPU-wide model (DurationModel::gpu_wide) sees the whole GPU's load, and every SM of the GPU is re-timed when a
// kernel comes or leaves. Two SMs: a-s1's block (1000 ns) from 0 on one, b-s1's (1000 ns) at 100 on the other. At 100
// both run at 0.5: a has 900 left -> 1800 more, ends at 1900, although nothing changed on its SM. At 1900 a leaves:
// b has done 900 (1800 x 0.5), 100 left at 1 -> ends at 2000.
TEST(OverLife, AGpuWideModelRetimesEverySmWhenAKernelComesOrLeaves) {
  const auto w = make_workload("w", {test::kernel("a-s1", 1, 128, {1000}), test::kernel("b-s1", 1, 128, {1000})},
                               {test::launch("a", 0, 0), test::launch("b", 1, 100)});
  sim::RunOptions o;
  o.interference = "test-gpu-speeds";
  sim::AloneTimeCache cache;
  const auto gpu = test::gpu_with_sms("h100", 2);
  const auto r = sim::run_workload(w, gpu, o, cache);
  ASSERT_EQ(r.schedule.pieces.size(), 2u);
  EXPECT_NE(r.schedule.pieces[0].sm, r.schedule.pieces[1].sm);
  EXPECT_EQ(end_of(r, 0), 1900);
  EXPECT_EQ(end_of(r, 1), 2000);
  EXPECT_EQ(test::check_invariants(w, gpu, r), "");
}

RunResult run_three(const std::string& model) {
  // Two launches of kernel a (one 1000 ns block each) at 0 and 100, one of kernel b (1000 ns) at 200, one SM.
  const auto w = make_workload("w", {test::kernel("a-s1", 1, 128, {1000}), test::kernel("b-s1", 1, 128, {1000})},
                               {test::launch("a1", 0, 0), test::launch("a2", 0, 100), test::launch("b", 1, 200)});
  sim::RunOptions o;
  o.interference = model;
  sim::AloneTimeCache cache;
  return sim::run_workload(w, test::gpu_with_sms("h100", 1), o, cache);
}

TEST(OverLife, AnSmOfOneKernelIsSkippedOnlyWhileNothingCanChange) {
  // a1 and a2 share the SM at rate 1 from 100 (one kernel: the engine skips the SM). At 200 b joins: a1 0.8, a2 0.5,
  // b 0.5. a1: 800 left / 0.8 = 1000 -> ends 1200. a2: 100 done by 200, + 1000 x 0.5 = 600 by 1200, 400 left; then
  // a2 (older) 0.8 and b 0.5: 400 / 0.8 = 500 -> ends 1700. b: 500 done by 1200, + 250 by 1700, 250 alone -> 1950.
  const auto declared = run_three("test-kernel-speeds");
  EXPECT_EQ(end_of(declared, 0), 1200);
  EXPECT_EQ(end_of(declared, 1), 1700);
  EXPECT_EQ(end_of(declared, 2), 1950);
  const auto reference = run_three("test-kernel-speeds-undeclared");
  ASSERT_EQ(declared.schedule.pieces.size(), reference.schedule.pieces.size());
  for (std::size_t i = 0; i < declared.schedule.pieces.size(); ++i) {
    EXPECT_EQ(declared.schedule.pieces[i].start, reference.schedule.pieces[i].start) << i;
    EXPECT_EQ(declared.schedule.pieces[i].end, reference.schedule.pieces[i].end) << i;
  }
}

TEST(AgeRule, IssueTermFromOlderLaunchesAndMemoryTermFromAll) {
  sim::AgeParams p;
  p.gamma = 1.0;
  p.kappa = 0.1;
  // -1 x ln(1 - 0.5) x 0.4 / (0.4 + 0.1) + 0.1 = 0.693147 x 0.8 + 0.1 = 0.654518
  EXPECT_NEAR(sim::age_log_slowdown(p, 0.4, 0.5, 0.1), 0.654518, 1e-6);
  // No older launch: only the memory term. A victim that issues nothing: no issue term either.
  EXPECT_DOUBLE_EQ(sim::age_log_slowdown(p, 0.4, 0.0, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(sim::age_log_slowdown(p, 0.0, 0.5, 0.0), 0.0);
  // Older launches never take every slot: u is capped at 0.97, -ln(0.03) x 0.8 = 3.506558 x 0.8 = 2.805246
  EXPECT_NEAR(sim::age_log_slowdown(p, 0.4, 1.5, 0.0), 2.805246, 1e-6);
}

// A kernel with `instructions` per block and one record set at residency 2 whose 264 blocks span 1000 ns.
std::shared_ptr<KernelProfile> counted(const std::string& name, double instructions) {
  auto k = test::kernel(name, 264, 128, {500});
  k->instructions_per_block = instructions;
  k->record_sets.back().residency = 2;
  k->record_sets.back().span = 1000;
  return k;
}

GpuSpec gpu_1ghz() {
  GpuSpec g = test::gpu_with_sms("h100", 132);
  g.clock_mhz = 1000;  // 1 cycle a ns
  return g;
}

TEST(AgeRule, IssueUtilisationFromTheRecordings) {
  // 264 blocks x 1000 instructions over 132 SMs x 1000 cycles x peak 4 = 264000 / 528000 = 0.5 at residency 2;
  // linear from (0, 0): 0.25 at 1; flat past the last recorded residency: 0.5 at 4.
  const auto k = counted("k-s1", 1000);
  const GpuSpec g = gpu_1ghz();
  EXPECT_DOUBLE_EQ(sim::issue_utilisation(*k, g, 2), 0.5);
  EXPECT_DOUBLE_EQ(sim::issue_utilisation(*k, g, 1), 0.25);
  EXPECT_DOUBLE_EQ(sim::issue_utilisation(*k, g, 4), 0.5);
  k->instructions_per_block.reset();  // not counted: no issue term
  EXPECT_DOUBLE_EQ(sim::issue_utilisation(*k, g, 2), 0.0);
}

const std::string kHeader =
    "run,repeat,victim,victim_full,victim_blocks_per_sm,victim_bytes_per_block,partners,partners_full,"
    "partners_blocks_per_sm,blocks,alone_mean_ns,corun_mean_ns,exposure,exposure_at_start\n";

// A co-run row of victim v (2 of 4 blocks per SM) beside partner p (exposure e of its limit 4), the partner launched
// first when `partner_first`; alone 1000 ns, co-run 1000 x slowdown.
std::string row(const std::string& v, const std::string& p, double e, double slowdown, bool partner_first) {
  const std::string run = fmt::format("{}+{}@0.50:0.50/{}", v, p, partner_first ? "ba" : "ab");
  return fmt::format("{},1,{},4,2,0,{},4,2,100,1000,{},{},{}\n", run, v, p, 1000 * slowdown, e, e);
}

TEST(AgeFit, RecoversTheParametersOfRecordsItGenerated) {
  // Victim a-s1 (U = 0.5 at its 2 blocks, above) beside b-s1 (U(1) = 0.25, U(2) = 0.5). gamma 1, kappa 0.05,
  // pi(b) 0.4: with b older at exposure e, ln s = -ln(1 - U_b(e)) x 0.5 / 0.55 + 0.4 x e / 4; with b younger, the
  // memory term only.
  const auto a = counted("a-s1", 1000), b = counted("b-s1", 1000);
  const GpuSpec g = gpu_1ghz();
  const auto profile = [&](const std::string& n) -> const KernelProfile* {
    return n == "a-s1" ? a.get() : n == "b-s1" ? b.get() : nullptr;
  };
  std::string text = kHeader;
  for (double e : {1.0, 2.0})
    for (bool older : {true, false}) {
      const double u = sim::issue_utilisation(*b, g, e);
      const double ln = (older ? -std::log(1 - u) * 0.5 / 0.55 : 0.0) + 0.4 * e / 4;
      text += row("a-s1", "b-s1", e, std::exp(ln), older);
    }
  const auto records = parse_corun_records(text, "t.csv").records;
  const sim::AgeParams p = sim::fit_age(records, g, profile);
  EXPECT_NEAR(p.gamma, 1.0, 1e-9);
  EXPECT_NEAR(p.kappa, 0.05, 1e-9);
  EXPECT_NEAR(p.pressure_of("b"), 0.4, 1e-9);
  EXPECT_DOUBLE_EQ(p.pressure_of("a"), 0.0);  // never a partner: no pressure
  // Each row predicted back: b older at exposure 2: exp(-ln(0.5) x 0.5 / 0.55 + 0.2) = 2^(10/11) x e^0.2.
  EXPECT_NEAR(sim::age_predict(p, records[2], g, profile), std::pow(2.0, 10.0 / 11.0) * std::exp(0.2), 1e-9);
  // A pair never recorded (c beside a, c older, no pressure fitted): the issue term from c's recordings alone.
  const auto c = counted("c-s1", 500);  // U_c(2) = 0.25
  const auto with_c = [&](const std::string& n) -> const KernelProfile* { return n == "c-s1" ? c.get() : profile(n); };
  const auto never = parse_corun_records(kHeader + row("a-s1", "c-s1", 2, 1.0, true), "t.csv").records.at(0);
  EXPECT_NEAR(sim::age_predict(p, never, g, with_c), std::exp(-std::log(0.75) * 0.5 / 0.55), 1e-9);
}

// An h100 co-run file in the temporary folder holding one row (kHeader's columns); returns its path.
std::string write_one_corun(const std::string& file, const std::string& row) {
  const auto path = (std::filesystem::temp_directory_path() / file).string();
  CoRunTable t;
  t.provenance["gpu"] = "h100";
  t.records = parse_corun_records(kHeader + row + "\n", "t.csv").records;
  write_corun_records(path, t);
  return path;
}

TEST(AgeModel, InTheEngineOverTheBlocksLife) {
  // Records: b beside a took 2x at a's share 8/16 = 0.5 (the kernels are built in code, so no profile file: no
  // counted instructions, no issue term): pi(a) = ln 2 / 0.5 = 2 ln 2. In the run b's block beside a's one block
  // (a's limit on an h100 SM at 128 threads: 16) runs at exp(-2 ln 2 / 16) = 2^(-1/8) while a is there, all its
  // life: 1000 x 2^(1/8) = 1090.5 -> placed at 100, it ends at 100 + 1091 = 1191. a is never slowed (pi(b) = 0).
  const auto path =
      write_one_corun("gpusched_age_model.csv", "b-s1+a-s1@0.50:0.50/ba,1,b-s1,16,8,0,a-s1,16,8,100,1000,2000,8,8");
  const auto r = run_two(10000, 1000, "age", {{"coruns", path}});
  EXPECT_EQ(end_of(r, 1), 1191);
  EXPECT_EQ(end_of(r, 0), 10000);
  // The same rule fixed at dispatch gives the same here (a stays all of b's life) ...
  EXPECT_EQ(end_of(run_two(10000, 1000, "age", {{"coruns", path}, {"apply", "dispatch"}}), 1), 1191);
  // ... but not when a leaves first: a ends at 500; over life b runs 400 x 2^(-1/8) = 366.8 by then, 633.2 after:
  // ends at 500 + 634 = 1134 (at dispatch: 1191 again).
  EXPECT_EQ(end_of(run_two(500, 1000, "age", {{"coruns", path}}), 1), 1134);
  EXPECT_EQ(end_of(run_two(500, 1000, "age", {{"coruns", path}, {"apply", "dispatch"}}), 1), 1191);
  EXPECT_THROW(run_two(500, 1000, "age", {{"coruns", path}, {"apply", "sometimes"}}), std::invalid_argument);
  std::filesystem::remove(path);
  // Kernels without co-run records keep their durations.
  EXPECT_EQ(end_of(run_two(10000, 1000, "age"), 1), 1100);
}

TEST(OverLife, AgeAndEquivalentRunLaunchesOfOneKernelAtRateOne) {
  // What one_kernel_at_rate_one declares for them: groups of one kernel only get rate 1, whatever their blocks, where
  // the same kernel beside another is slowed (the control that shows the model is fitted).
  const auto a = test::kernel("a-s1", 8, 128, {200});
  a->record_sets.back().residency = 4;
  test::add_record_set(*a, 2, 100);
  a->equivalent_blocks["b-s1"] = 1.5;
  const auto b = test::kernel("b-s1", 8, 128, {200});
  const GpuSpec g = test::gpu_with_sms("h100", 1);
  const std::vector<sim::SmGroup> one_kernel{{a.get(), 2, 0}, {a.get(), 1, 10}, {a.get(), 1, 20}};
  const std::vector<sim::SmGroup> mixed{{b.get(), 2, 0}, {a.get(), 2, 10}};
  // age: a beside b took 2x (b launched first), as in InTheEngineOverTheBlocksLife with the roles swapped.
  const auto path = write_one_corun("gpusched_age_one_kernel.csv",
                                    "a-s1+b-s1@0.50:0.50/ba,1,a-s1,16,8,0,b-s1,16,8,100,1000,2000,8,8");
  for (const std::string name : {"age", "equivalent"}) {
    const auto* info = sim::Registry<sim::DurationModel>::instance().find(name);
    ASSERT_NE(info, nullptr);
    std::map<std::string, std::string> given;
    if (name == "age") given["coruns"] = path;
    const auto model = info->make(sim::Params::resolve(name, info->params, given));
    EXPECT_TRUE(model->one_kernel_at_rate_one()) << name;
    std::vector<double> rates(one_kernel.size(), 0.0);
    model->group_rates(g, one_kernel, rates);
    for (const double r : rates) EXPECT_EQ(r, 1.0) << name;
    std::vector<double> control(mixed.size(), 1.0);
    model->group_rates(g, mixed, control);
    // a beside the older b: slowed by b, and for age sped up to its recording at 2 own blocks (own_count): not 1
    EXPECT_NE(control[1], 1.0) << name;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpusched

namespace gpusched {
namespace {

TEST(AgeModel, InvariantsAndDeterminismUnderEveryPolicyOnARecordedWorkload) {
  // validate-h100: recorded kernels with co-run records beside them, so every policy's blocks are re-timed as
  // launches come and go on their SMs (preemptive policies included: progress and saved work follow the rates).
  const auto loaded = sim::load_workload_and_gpu(std::string(GPUSCHED_TRACES_DIR) + "/workloads/validate-h100.toml", "",
                                                 nullptr, "--gpu", "");
  sim::RunOptions o;
  o.interference = "age";
  for (const auto& policy : sim::all_policy_names()) {
    o.policy = policy;
    sim::AloneTimeCache cache;
    const auto a = sim::run_workload(loaded.workload, loaded.gpu, o, cache);
    ASSERT_EQ(test::check_invariants(loaded.workload, loaded.gpu, a), "") << policy;
    if (policy != "fifo" && policy != "chimera" && policy != "preempt-switch" && policy != "kernelet") continue;
    const auto b = sim::run_workload(loaded.workload, loaded.gpu, o, cache);  // same seed, same Schedule
    ASSERT_EQ(a.schedule.pieces, b.schedule.pieces) << policy;
  }
  // And it does change the fifo schedule against none (the kernels share SMs at the launches' edges).
  o.policy = "fifo";
  sim::AloneTimeCache cache;
  const auto age = sim::run_workload(loaded.workload, loaded.gpu, o, cache);
  o.interference = "none";
  const auto none = sim::run_workload(loaded.workload, loaded.gpu, o, cache);
  EXPECT_NE(age.metrics.makespan, none.metrics.makespan);
}

}  // namespace
}  // namespace gpusched

namespace gpusched {
namespace {

TEST(AgeModel, AutoIsEquivalentWithFittedWeightsAgeWithCoRunsAndNoneElsewhere) {
  const std::string dir = std::string(GPUSCHED_TRACES_DIR) + "/workloads/";
  const auto recorded = sim::load_workload_and_gpu(dir + "live-h100.toml", "", nullptr, "--gpu", "");
  const auto paper = sim::load_workload_and_gpu(dir + "default.toml", "", nullptr, "--gpu", "");
  // traces/live/h100's profiles carry [equivalent_blocks] (scripts/fit-equivalent-blocks.py) and the GPU-wide fit
  // (gpu_wide_share, [gpu_wide_blocks]: scripts/fit-gpu-wide-share.py)
  EXPECT_EQ(sim::resolve_interference("auto", recorded.workload), "equivalent:gpu_wide=on");
  auto without_gpu_wide = recorded.workload;
  for (auto& k : without_gpu_wide.kernels) {
    auto copy = std::make_shared<KernelProfile>(*k);
    copy->gpu_wide_share.reset();
    copy->gpu_wide_blocks.clear();
    k = std::move(copy);
  }
  EXPECT_EQ(sim::resolve_interference("auto", without_gpu_wide), "equivalent");
  auto without_weights = recorded.workload;
  for (auto& k : without_weights.kernels) {
    auto copy = std::make_shared<KernelProfile>(*k);
    copy->equivalent_blocks.clear();
    k = std::move(copy);
  }
  EXPECT_EQ(sim::resolve_interference("auto", without_weights), "age");         // traces/live/h100/coruns.csv
  EXPECT_EQ(sim::resolve_interference("auto", paper.workload), "none");         // ERCBench: no co-run records
  EXPECT_EQ(sim::resolve_interference("markov", recorded.workload), "markov");  // a name is kept
}

}  // namespace
}  // namespace gpusched
