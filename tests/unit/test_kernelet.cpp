// Kernelet's scheduling (seed 000, sections 4.1-4.3) and its policies: slice sizing by hand, pruning,
// FindCoSchedule on the paper's kernels, and engine invariants under kernelet, kernelet-opt, kernelet-mc, base.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/kernelet_plan.h"
#include "core/profile_io.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::kernelet;

namespace {

std::vector<std::shared_ptr<const KernelProfile>> paper_kernels(const std::string& gpu) {
  std::vector<std::shared_ptr<const KernelProfile>> out;
  for (const char* name : {"pc", "sad", "spmv", "st", "mm", "mriq", "bs", "tea"}) {
    Warnings w;
    out.push_back(std::make_shared<KernelProfile>(
        read_kernel_profile(std::string(GPUSCHED_TRACES_DIR) + "/kernelet/" + gpu + "/" + name + ".kernel.toml", &w)));
  }
  return out;
}

PlanKernel with_ratios(double pur, double mur) {
  PlanKernel k;
  k.pur = pur;
  k.mur = mur;
  return k;
}

}  // namespace

TEST(KerneletPlan, SmallestSliceByHand) {
  // 1000 blocks, 10 SMs, 4 blocks per SM, block time 100 ns x residency (throughput does not depend on it).
  // Unsliced: ceil(1000 / 40) = 25 waves x 400 + overhead 5 = 10005 ns.
  //   P = 10: 100 slices x (5 + 100) = 10500 (+4.9%)    P = 20: 50 x (5 + 200) = 10250 (+2.4%)
  //   P = 30: 34 x (5 + 300) = 10370 (+3.6%)            P = 40: 25 x (5 + 400) = 10125 (+1.2%) <= 2%
  const auto linear = [](int r) { return 100.0 * r; };
  EXPECT_EQ(smallest_slice(1000, 10, 4, linear, 5, 0.02), 40);
  EXPECT_EQ(smallest_slice(1000, 10, 4, linear, 5, 0.03), 20);  // 2.4% is within 3%
  // Overhead 50: P = 40 costs 25 x 450 = 11250 against 10050 (+11.9%): no slice qualifies, the whole kernel.
  EXPECT_EQ(smallest_slice(1000, 10, 4, linear, 50, 0.02), 1000);
  EXPECT_EQ(smallest_slice(15, 10, 4, linear, 0, 0.02), 10) << "fewer blocks than a wave: P = 10 < 15";
}

TEST(KerneletPlan, PruningRule) {
  const PruneOptions o{0.4, 0.1};
  EXPECT_TRUE(survives_pruning(with_ratios(0.1, 0.05), with_ratios(0.6, 0.2), o));   // 0.5 >= 0.4, 0.15 >= 0.1
  EXPECT_FALSE(survives_pruning(with_ratios(0.1, 0.05), with_ratios(0.3, 0.2), o));  // PUR differ by 0.2
  EXPECT_FALSE(survives_pruning(with_ratios(0.1, 0.05), with_ratios(0.6, 0.1), o));  // MUR differ by 0.05
  PlanKernel unknown;
  EXPECT_TRUE(survives_pruning(unknown, with_ratios(0.1, 0.1), o)) << "no PUR/MUR: never pruned";
}

TEST(KerneletPlan, FindCoScheduleOnThePapersKernels) {
  const GpuSpec gpu = *find_gpu_preset("c2050");
  const SmModel model = sm_model_for(gpu);
  std::vector<PlanKernel> pending;
  for (const auto& k : paper_kernels("c2050")) pending.push_back(plan_kernel(*k, gpu, model));
  IpcCache cache;
  FindStats stats;
  const auto c = find_co_schedule(gpu, model, pending, {0.4, 0.1}, cache, &stats);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(stats.pairs, 28u);
  std::size_t pruned = 0;
  for (std::size_t i = 0; i < pending.size(); ++i)
    for (std::size_t j = i + 1; j < pending.size(); ++j)
      pruned += !survives_pruning(pending[i], pending[j], {0.4, 0.1});
  EXPECT_EQ(stats.pruned, pruned);
  EXPECT_LT(stats.pruned, stats.pairs);
  EXPECT_TRUE(survives_pruning(pending[c->first], pending[c->second], {0.4, 0.1}));
  EXPECT_GT(c->cp, 0.0) << "the chosen pair gains";
  // The chosen ratio fits one SM and is the balanced one among the candidates.
  const auto ratios = ratio_candidates(gpu, pending[c->first], pending[c->second]);
  ASSERT_FALSE(ratios.empty());
  EXPECT_NE(std::find(ratios.begin(), ratios.end(), std::make_pair(c->blocks_first, c->blocks_second)), ratios.end());
  const auto again = balanced_co_schedule(gpu, model, pending[c->first], pending[c->second], cache);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->blocks_first, c->blocks_first);
  EXPECT_LE(again->delta_t, c->delta_t + 1e-9);
  // No pair has a higher CP among the survivors.
  for (std::size_t i = 0; i < pending.size(); ++i)
    for (std::size_t j = i + 1; j < pending.size(); ++j) {
      if (!survives_pruning(pending[i], pending[j], {0.4, 0.1})) continue;
      const auto other = balanced_co_schedule(gpu, model, pending[i], pending[j], cache);
      if (other) {
        EXPECT_LE(other->cp, c->cp + 1e-12);
      }
    }
}

TEST(KerneletPlan, EverythingPrunedRelaxesTheThresholds) {
  const GpuSpec gpu = *find_gpu_preset("c2050");
  const SmModel model = sm_model_for(gpu);
  const auto kernels = paper_kernels("c2050");
  // Three kernels with the same PUR and MUR: no pair survives any positive threshold.
  std::vector<PlanKernel> pending;
  for (int i = 0; i < 3; ++i) {
    auto p = plan_kernel(*kernels[static_cast<std::size_t>(4 + i)], gpu, model);
    p.pur = 0.5;
    p.mur = 0.05;
    pending.push_back(p);
  }
  IpcCache cache;
  FindStats stats;
  const auto c = find_co_schedule(gpu, model, pending, {0.4, 0.1}, cache, &stats);
  ASSERT_TRUE(c.has_value()) << "a co-schedule is still found";
  EXPECT_LT(stats.alpha_p, 0.4);
  EXPECT_EQ(stats.pruned, 0u);
  EXPECT_FALSE(find_co_schedule(gpu, model, {pending[0]}, {}, cache).has_value()) << "one kernel: no pair";
}

TEST(KerneletPolicies, InvariantsAndDeterminism) {
  const auto kernels = paper_kernels("c2050");
  const GpuSpec gpu = *find_gpu_preset("c2050");
  // Six launches of four kernels, smaller grids, arriving over 2 ms.
  std::vector<std::shared_ptr<const KernelProfile>> small;
  for (const std::size_t i : {0u, 4u, 6u, 3u}) {
    auto k = std::make_shared<KernelProfile>(*kernels[i]);
    k->grid = {700, 1, 1};
    small.push_back(k);
  }
  std::vector<Launch> launches;
  for (int i = 0; i < 6; ++i)
    launches.push_back(test::launch("l" + std::to_string(i), static_cast<std::size_t>(i % 4), i * 400000));
  const Workload w = make_workload("kernelet-mix", small, launches);
  for (const char* policy : {"kernelet", "kernelet-opt", "kernelet-mc", "base"}) {
    const auto r = test::run(w, gpu, policy, 7);
    EXPECT_EQ(test::check_invariants(w, gpu, r), "") << policy;
    const auto again = test::run(w, gpu, policy, 7);
    EXPECT_EQ(again.schedule.pieces, r.schedule.pieces) << policy << ": same seed, same Schedule";
    EXPECT_GT(r.metrics.stp, 0.0) << policy;
  }
  // Monte Carlo samples differ.
  const auto s0 = test::run(w, gpu, "kernelet-mc", 7, 1, {{"sample", "0"}});
  const auto s1 = test::run(w, gpu, "kernelet-mc", 7, 1, {{"sample", "1"}});
  EXPECT_NE(s0.schedule.pieces, s1.schedule.pieces);
  // Kernelet co-schedules: at some moment two launches share an SM.
  const auto k = test::run(w, gpu, "kernelet", 7);
  bool shared = false;
  for (std::size_t i = 0; i < k.schedule.pieces.size() && !shared; ++i)
    for (std::size_t j = i + 1; j < std::min(k.schedule.pieces.size(), i + 200) && !shared; ++j) {
      const auto& a = k.schedule.pieces[i];
      const auto& b = k.schedule.pieces[j];
      shared = a.sm == b.sm && a.launch != b.launch && a.start < b.end && b.start < a.end;
    }
  EXPECT_TRUE(shared);
}
