// Kernelet's scheduling (seed 000, sections 4.1-4.3) and its policies: slice sizing by hand, pruning,
// FindCoSchedule on the paper's kernels, and engine invariants under kernelet, kernelet-opt, kernelet-mc, base.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>

#include "core/kernelet_plan.h"
#include "core/profile_io.h"
#include "sim/runner.h"
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

// AddressSanitizer builds (CI's second pass) run 50-100x slower: whole-workload property tests take a few of their
// cases there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

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
  // The other reading of section 4.3's sentence: everything pruned means no pair gains, so none is co-scheduled.
  FindStats alone_stats;
  EXPECT_FALSE(find_co_schedule(gpu, model, pending, {0.4, 0.1, PruneRule::Or, AllPruned::Alone}, cache, &alone_stats)
                   .has_value());
  EXPECT_EQ(alone_stats.pruned, 3u) << "3 pairs, all pruned at (0.4, 0.1)";
  EXPECT_EQ(alone_stats.evaluated, 0u);
  EXPECT_DOUBLE_EQ(alone_stats.alpha_p, 0.4) << "thresholds kept";
  // Where a pair survives, the two readings agree: PUR 0.5 and 0.95 differ by 0.45 >= 0.4, MUR 0.05 and 0.3 by
  // 0.25 >= 0.1.
  pending[2].pur = 0.95;
  pending[2].mur = 0.3;
  const auto relaxed = find_co_schedule(gpu, model, pending, {0.4, 0.1}, cache);
  const auto alone = find_co_schedule(gpu, model, pending, {0.4, 0.1, PruneRule::Or, AllPruned::Alone}, cache);
  ASSERT_TRUE(relaxed.has_value());
  ASSERT_TRUE(alone.has_value());
  EXPECT_EQ(std::make_pair(relaxed->first, relaxed->second), std::make_pair(alone->first, alone->second));
  EXPECT_THROW(parse_all_pruned("increase"), std::invalid_argument);
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

namespace {

// Most blocks of launch `l` resident at once on any one SM, over pieces that start before `before`.
int max_per_sm(const RunResult& r, std::int32_t l, TimeNs before) {
  std::map<int, std::vector<std::pair<TimeNs, int>>> edges;
  for (const auto& p : r.schedule.pieces)
    if (p.launch == l && p.start < before) {
      edges[p.sm].emplace_back(p.start, +1);
      edges[p.sm].emplace_back(p.end, -1);
    }
  int best = 0;
  for (auto& [sm, e] : edges) {
    std::sort(e.begin(), e.end());  // an end at the same time as a start comes first (-1 < +1)
    int now = 0;
    for (const auto& [t, d] : e) best = std::max(best, now += d);
  }
  return best;
}

}  // namespace

TEST(KerneletPlan, BothPruningRulesOnFourKernels) {
  // alpha_p = 0.4, alpha_m = 0.1. (PUR, MUR): A (0.10, 0.05), B (0.60, 0.07), C (0.15, 0.30), D (0.30, 0.33).
  //   pair  dPUR  dMUR  close?       or (either close)  and (both close)
  //   A-B   0.50  0.02  MUR          pruned             kept
  //   A-C   0.05  0.25  PUR          pruned             kept
  //   A-D   0.20  0.28  PUR          pruned             kept
  //   B-C   0.45  0.23  neither      kept               kept
  //   B-D   0.30  0.26  PUR          pruned             kept
  //   C-D   0.15  0.03  both         pruned             pruned
  // or: 5 of 6 pruned, B-C the only survivor; and: 1 pruned.
  const std::vector<std::pair<double, double>> ratios{{0.10, 0.05}, {0.60, 0.07}, {0.15, 0.30}, {0.30, 0.33}};
  const GpuSpec gpu = *find_gpu_preset("c2050");
  const SmModel model = sm_model_for(gpu);
  const auto kernels = paper_kernels("c2050");
  std::vector<PlanKernel> pending;
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    auto p = plan_kernel(*kernels[i + 4], gpu, model);  // mm, mriq, bs, tea: distinct model inputs
    p.pur = ratios[i].first;
    p.mur = ratios[i].second;
    pending.push_back(p);
  }
  const PruneOptions by_or{0.4, 0.1, PruneRule::Or}, by_and{0.4, 0.1, PruneRule::And};
  EXPECT_FALSE(survives_pruning(pending[0], pending[1], by_or));
  EXPECT_TRUE(survives_pruning(pending[0], pending[1], by_and));
  EXPECT_TRUE(survives_pruning(pending[1], pending[2], by_or));
  EXPECT_FALSE(survives_pruning(pending[2], pending[3], by_and));
  IpcCache cache;
  FindStats s_or, s_and;
  const auto c_or = find_co_schedule(gpu, model, pending, by_or, cache, &s_or);
  const auto c_and = find_co_schedule(gpu, model, pending, by_and, cache, &s_and);
  EXPECT_EQ(s_or.pruned, 5u);
  EXPECT_EQ(s_and.pruned, 1u);
  ASSERT_TRUE(c_or && c_and);
  EXPECT_EQ(std::make_pair(c_or->first, c_or->second), std::make_pair(std::size_t{1}, std::size_t{2}));
  EXPECT_NE(std::make_pair(c_and->first, c_and->second), std::make_pair(std::size_t{2}, std::size_t{3}));
  EXPECT_EQ(parse_prune_rule("and"), PruneRule::And);
  EXPECT_THROW(parse_prune_rule("xor"), std::invalid_argument);
}

TEST(KerneletPolicies, ACoScheduleHoldsUntilAThirdKernelArrives) {
  // Algorithm 1, lines 7-9. pc (2000 blocks) and tea (16000) arrive at t = 0; mm arrives at 0.5 ms. The model's
  // balanced ratio for pc + tea on the C2050 is 2:6 blocks per SM (`gpusched kernelet-model`: pc+tea 2:6, the only
  // pair of the three that survives pruning at (0.4, 0.1)). Before 0.5 ms the co-schedule is kept slice after
  // slice: never more than 2 pc or 6 tea blocks on an SM, tea running several slices (a slice of tea is
  // 6 x 14 x k blocks: at least 84; a tea block takes about 9 us, so 0.5 ms is dozens of waves), and nothing of
  // mm. tea alone would take 8 per SM, pc 6.
  const auto kernels = paper_kernels("c2050");
  auto pc = std::make_shared<KernelProfile>(*kernels[0]);
  pc->grid = {2000, 1, 1};
  auto tea = std::make_shared<KernelProfile>(*kernels[7]);
  tea->grid = {16000, 1, 1};
  auto mm = std::make_shared<KernelProfile>(*kernels[4]);
  mm->grid = {500, 1, 1};
  const Workload w = make_workload(
      "sticky", {pc, tea, mm}, {test::launch("pc", 0, 0), test::launch("tea", 1, 0), test::launch("mm", 2, 500000)});
  const GpuSpec gpu = *find_gpu_preset("c2050");
  const auto r = test::run(w, gpu, "kernelet", 1);
  EXPECT_EQ(test::check_invariants(w, gpu, r), "");
  constexpr TimeNs kArrival = 500000;
  EXPECT_EQ(max_per_sm(r, 0, kArrival), 2);
  EXPECT_EQ(max_per_sm(r, 1, kArrival), 6);
  std::int64_t pc_before = 0, tea_before = 0;
  for (const auto& p : r.schedule.pieces) {
    if (p.start >= kArrival) continue;
    EXPECT_NE(p.launch, 2) << "mm runs before it arrives";
    pc_before += p.launch == 0;
    tea_before += p.launch == 1;
  }
  EXPECT_GT(pc_before, 0);
  EXPECT_GT(tea_before, 3 * 84) << "several slices of tea";
  EXPECT_LT(tea_before, 16000) << "tea still has blocks when mm arrives";
}

TEST(KerneletPolicies, SoloWithoutGainKeepsAPairWithNegativeProfitApart) {
  // pc + sad on the C2050: the model's best ratio (1:7) has CP -0.086 (`gpusched kernelet-model`), and the pair is
  // pruned at (0.4, 0.1), so the thresholds are halved until it survives. The paper's loop co-schedules it anyway;
  // with solo_without_gain (ours) the oldest kernel (pc) runs alone, and sad starts only once pc has issued its
  // last block (its tail may then share SMs with sad, as back-to-back launches do).
  const auto kernels = paper_kernels("c2050");
  auto pc = std::make_shared<KernelProfile>(*kernels[0]);
  pc->grid = {168, 1, 1};
  auto sad = std::make_shared<KernelProfile>(*kernels[1]);
  sad->grid = {1120, 1, 1};
  const Workload w = make_workload("negative", {pc, sad}, {test::launch("pc", 0, 0), test::launch("sad", 1, 0)});
  const GpuSpec gpu = *find_gpu_preset("c2050");
  const auto sad_starts_before_pc_is_issued = [](const RunResult& r) {
    TimeNs last_pc_start = 0, first_sad_start = std::numeric_limits<TimeNs>::max();
    for (const auto& p : r.schedule.pieces) {
      if (p.launch == 0) last_pc_start = std::max(last_pc_start, p.start);
      if (p.launch == 1) first_sad_start = std::min(first_sad_start, p.start);
    }
    return first_sad_start < last_pc_start;
  };
  EXPECT_TRUE(sad_starts_before_pc_is_issued(test::run(w, gpu, "kernelet", 1)));
  const auto solo = test::run(w, gpu, "kernelet", 1, 1, {{"solo_without_gain", "true"}});
  EXPECT_EQ(test::check_invariants(w, gpu, solo), "");
  EXPECT_FALSE(sad_starts_before_pc_is_issued(solo));
  // all_pruned=alone: the pair is pruned at (0.4, 0.1) and nothing else is pending, so no co-schedule is made and
  // pc runs alone first, as with solo_without_gain (here for the pruning rule's reason, not the model's CP).
  const auto alone = test::run(w, gpu, "kernelet", 1, 1, {{"all_pruned", "alone"}});
  EXPECT_EQ(test::check_invariants(w, gpu, alone), "");
  EXPECT_FALSE(sad_starts_before_pc_is_issued(alone));
}

namespace {
// FindCoSchedule as a pass over every pair of kernels (i < j) in order, keeping the first strictly better CP: the
// definition that the per-type implementation must reproduce, choice and statistics alike (each pair evaluated
// on its own kernels, not on a representative of their type).
std::optional<CoSchedule> find_by_every_pair(const GpuSpec& gpu, const SmModel& model,
                                             const std::vector<PlanKernel>& pending, PruneOptions used, IpcCache& cache,
                                             FindStats* stats) {
  const std::size_t n = pending.size();
  std::vector<std::pair<std::size_t, std::size_t>> survivors;
  for (int attempt = 0;; ++attempt) {
    survivors.clear();
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        if (survives_pruning(pending[i], pending[j], used)) survivors.emplace_back(i, j);
    if (!survivors.empty() || attempt >= 30) break;
    used.alpha_p /= 2;
    used.alpha_m /= 2;
  }
  if (survivors.empty())
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) survivors.emplace_back(i, j);
  std::optional<CoSchedule> best;
  for (const auto& [i, j] : survivors) {
    auto c = balanced_co_schedule(gpu, model, pending[i], pending[j], cache);
    if (!c) continue;
    if (!best || c->cp > best->cp) {
      best = c;
      best->first = i;
      best->second = j;
    }
  }
  stats->pairs = n * (n - 1) / 2;
  stats->pruned = stats->pairs - survivors.size();
  return best;
}
}  // namespace

TEST(KerneletPlan, PerTypeSearchMatchesThePassOverEveryPair) {
  // Queues of 2-40 kernels drawn from the paper's eight (so most kernels repeat), at both pruning rules and a
  // threshold that prunes everything at first: the same pair, ratio, CP and statistics as the pass over every pair.
  for (const char* gpu_name : {"c2050", "gtx680"}) {
    const GpuSpec gpu = *find_gpu_preset(gpu_name);
    const SmModel model = sm_model_for(gpu);
    std::vector<PlanKernel> kinds;
    for (const auto& k : paper_kernels(gpu_name)) kinds.push_back(plan_kernel(*k, gpu, model));
    IpcCache cache;
    std::uint64_t x = 12345;
    for (int trial = 0; trial < 60; ++trial) {
      const std::size_t n = 2 + trial % 39;
      std::vector<PlanKernel> pending;
      for (std::size_t i = 0; i < n; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        pending.push_back(kinds[(x >> 33) % (trial % 3 == 0 ? 2 : kinds.size())]);
      }
      for (const PruneOptions o : {PruneOptions{0.4, 0.1, PruneRule::Or}, PruneOptions{0.4, 0.1, PruneRule::And},
                                   PruneOptions{0.0, 0.0, PruneRule::Or}}) {
        FindStats fast, slow;
        const auto a = find_co_schedule(gpu, model, pending, o, cache, &fast);
        const auto b = find_by_every_pair(gpu, model, pending, o, cache, &slow);
        ASSERT_EQ(a.has_value(), b.has_value()) << gpu_name << " trial " << trial;
        if (a) {
          EXPECT_EQ(a->first, b->first) << gpu_name << " trial " << trial;
          EXPECT_EQ(a->second, b->second);
          EXPECT_EQ(a->blocks_first, b->blocks_first);
          EXPECT_EQ(a->blocks_second, b->blocks_second);
          EXPECT_EQ(a->cp, b->cp);
        }
        EXPECT_EQ(fast.pairs, slow.pairs);
        EXPECT_EQ(fast.pruned, slow.pruned);
      }
    }
  }
}

// OPT is Kernelet's greedy loop with each pair's CP measured rather than predicted by the Markov model (section 5).
// With interference `none` the simulation's blocks do not slow each other, so the model's predicted gains are wrong
// and OPT's measured ones right: on Table 5's four mixes, on both paper GPUs, at 20 and 30 instances (seed 1),
// kernelet-opt is never slower than kernelet (docs/reproductions.md, "OPT behind Kernelet").
TEST(KerneletPolicies, OptIsNeverSlowerThanKerneletWithoutInterference) {
  const auto dir = std::filesystem::temp_directory_path() / "gpusched_kernelet_opt";
  std::filesystem::create_directories(dir);
  for (const char* gpu : {"c2050", "gtx680"})
    for (const char* mix : {"CI", "MI", "MIX", "ALL"})
      for (const int instances : {20, 30}) {
        // Sanitized builds (50-100x slower) take the CI and ALL mixes at 20 instances.
        if (kSanitized && (instances != 20 || (std::string(mix) != "CI" && std::string(mix) != "ALL"))) continue;
        const std::string w = (dir / fmt::format("{}-{}-{}.toml", gpu, mix, instances)).string();
        std::string out;
        ASSERT_EQ(test::run_cli(fmt::format("gen kernelet-mix --mix {} --traces {}/kernelet/{} --instances {} --seed 1 "
                                            "--out {}",
                                            mix, GPUSCHED_TRACES_DIR, gpu, instances, w),
                                out),
                  0)
            << out;
        const auto loaded = sim::load_workload_and_gpu(w, "", nullptr, "--gpu", "");
        const auto kernelet = test::run(loaded.workload, loaded.gpu, "kernelet");  // seed 1, interference none
        const auto opt = test::run(loaded.workload, loaded.gpu, "kernelet-opt");
        EXPECT_LE(opt.metrics.makespan, kernelet.metrics.makespan) << gpu << " " << mix << " x" << instances;
      }
  std::filesystem::remove_all(dir);
}

// kernelet-opt with oracle=rollout (docs/policies/kernelet.md, "OPT"): the faster of Kernelet's whole run and the
// text's OPT's, then whole runs pre-executed with one plan changed and Kernelet's plans after it, the fastest kept.
// Runs are deterministic, so on every mix it is never slower than either, under `markov` as in Figure 13 (where the
// text's OPT is behind Kernelet on some mixes); its nested run of Kernelet is the run `kernelet` makes; and the run
// it carries out ends when the pre-executed one did.
TEST(KerneletPolicies, RolloutOracleIsNeverSlowerThanKerneletOrTheTextsOpt) {
  const auto dir = std::filesystem::temp_directory_path() / "gpusched_kernelet_rollout";
  std::filesystem::create_directories(dir);
  int improved = 0;
  for (const char* gpu : {"c2050", "gtx680"})
    for (const char* mix : {"CI", "MI", "MIX", "ALL"})
      for (const char* solo : {"false", "true"}) {
        // Sanitized builds (50-100x slower) take two cases: the C2050's CI with the paper's loop, where the text's
        // OPT is behind Kernelet and a rollout improves on both, and the GTX680's ALL with solo_without_gain.
        if (kSanitized && !(std::string(gpu) == "c2050" && std::string(mix) == "CI" && std::string(solo) == "false") &&
            !(std::string(gpu) == "gtx680" && std::string(mix) == "ALL" && std::string(solo) == "true"))
          continue;
        const std::string w = (dir / fmt::format("{}-{}.toml", gpu, mix)).string();
        std::string out;
        ASSERT_EQ(test::run_cli(fmt::format("gen kernelet-mix --mix {} --traces {}/kernelet/{} --instances 10 --seed 1 "
                                            "--out {}",
                                            mix, GPUSCHED_TRACES_DIR, gpu, w),
                                out),
                  0)
            << out;
        const auto loaded = sim::load_workload_and_gpu(w, "", nullptr, "--gpu", "");
        const auto run = [&](const std::string& policy, std::map<std::string, std::string> params) {
          sim::AloneTimeCache cache;
          sim::RunOptions o;
          o.policy = policy;
          o.interference = "markov";
          o.policy_params = std::move(params);
          o.policy_params["solo_without_gain"] = solo;
          return sim::run_workload(loaded.workload, loaded.gpu, o, cache);
        };
        const auto kernelet = run("kernelet", {});
        const auto text_opt = run("kernelet-opt", {});
        const auto rollout = run("kernelet-opt", {{"oracle", "rollout"}, {"rollouts", "3"}});
        const std::string where = fmt::format("{} {} solo_without_gain={}", gpu, mix, solo);
        EXPECT_LE(rollout.metrics.makespan, kernelet.metrics.makespan) << where;
        EXPECT_LE(rollout.metrics.makespan, text_opt.metrics.makespan) << where;
        EXPECT_EQ(policy_metric(rollout, "kernelet_makespan_ns"), static_cast<double>(kernelet.metrics.makespan))
            << where;
        EXPECT_EQ(policy_metric(rollout, "greedy_opt_makespan_ns"), static_cast<double>(text_opt.metrics.makespan))
            << where;
        EXPECT_EQ(policy_metric(rollout, "oracle_makespan_ns"), static_cast<double>(rollout.metrics.makespan)) << where;
        EXPECT_LE(policy_metric(rollout, "oracle_runs"), 2 + 3) << where;
        if (rollout.metrics.makespan < std::min(kernelet.metrics.makespan, text_opt.metrics.makespan)) ++improved;
      }
  // The rollouts themselves find faster schedules than both starting points somewhere (not only the minimum of two):
  // on the C2050's CI, which sanitized builds keep too.
  EXPECT_GT(improved, 0);
  std::filesystem::remove_all(dir);
}

TEST(KerneletPolicies, RolloutOracleRefusesBadParameters) {
  const auto w = make_workload("w", {test::kernel("a-s1", 4, 128, {1000})}, {test::launch("a", 0, 0)});
  const GpuSpec gpu = test::gpu_with_sms("c2050", 2);
  EXPECT_THROW(test::run(w, gpu, "kernelet-opt", 1, 1, {{"oracle", "best"}}), std::invalid_argument);
  EXPECT_THROW(test::run(w, gpu, "kernelet-opt", 1, 1, {{"rollouts", "-1"}}), std::invalid_argument);
}

// inputs=calibrated (not the paper's; core/markov_calibration.h): Kernelet plans with each recorded kernel's R_m set to
// reproduce its recording alone. On the shipped 16-instance H100 MIX the calibrated sad-s1 (R_m 0.011 against 0.111
// counted) changes the co-schedules: another schedule, every invariant kept. Counted inputs stay the default.
TEST(KerneletPolicies, CalibratedInputsPlanAnotherScheduleOnRecordedKernels) {
  const auto loaded = sim::load_workload_and_gpu(std::string(GPUSCHED_TRACES_DIR) + "/workloads/kernelet-mix-h100.toml",
                                                 "", nullptr, "--gpu", "");
  const auto counted = test::run(loaded.workload, loaded.gpu, "kernelet");
  const auto calibrated = test::run(loaded.workload, loaded.gpu, "kernelet", 1, 1, {{"inputs", "calibrated"}});
  EXPECT_EQ(test::check_invariants(loaded.workload, loaded.gpu, counted), "");
  EXPECT_EQ(test::check_invariants(loaded.workload, loaded.gpu, calibrated), "");
  EXPECT_NE(counted.metrics.makespan, calibrated.metrics.makespan);
  EXPECT_EQ(counted.metrics.makespan,
            test::run(loaded.workload, loaded.gpu, "kernelet", 1, 1, {{"inputs", "counted"}}).metrics.makespan);
  for (const char* policy : {"kernelet", "kernelet-opt", "kernelet-mc"})
    EXPECT_THROW(test::run(loaded.workload, loaded.gpu, policy, 1, 1, {{"inputs", "profiled"}}), std::invalid_argument)
        << policy;
}
