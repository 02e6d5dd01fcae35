// gpusched kernelet-model: what Kernelet's Markov-chain model says about a set of kernels on a GPU: each
// kernel's model inputs and predicted IPC alone (Table 4 / Figure 7), each pair's balanced slice ratio and
// co-scheduling profit, and how many pairs the PUR/MUR rule prunes over a grid of thresholds (Table 6), under
// both readings of the rule (`or`: section 4.3's text; `and`: what Table 6's counts follow), each compared with
// the paper's Table 6 when the kernels are the paper's eight on the C2050.
#include <fmt/format.h>

#include <cstdlib>

#include "core/gpu_file.h"
#include "core/kernelet_plan.h"
#include "core/markov_calibration.h"
#include "core/profile_io.h"
#include "sim/cli/commands.h"

namespace gpusched::cli {
namespace {

// Seed 000, Table 6: pairs pruned on the C2050, alpha_m = 0.015 x row (1..10) down, alpha_p = 0.1 x column across.
constexpr int kPaperTable6[10][10] = {
    {0, 0, 2, 2, 3, 4, 4, 4, 4, 4},         {0, 2, 5, 6, 7, 8, 9, 9, 9, 9},
    {0, 3, 7, 8, 9, 10, 11, 11, 11, 11},    {1, 4, 8, 9, 12, 13, 15, 15, 15, 15},
    {1, 4, 8, 9, 12, 13, 15, 15, 15, 15},   {1, 4, 8, 9, 12, 13, 15, 15, 16, 16},
    {1, 4, 9, 10, 14, 15, 18, 18, 20, 20},  {2, 6, 11, 12, 17, 18, 21, 22, 24, 24},
    {2, 6, 11, 12, 17, 19, 22, 23, 25, 26}, {2, 6, 11, 13, 18, 20, 23, 24, 27, 28},
};

}  // namespace

void add_kernelet_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("kernelet-model",
                                 "Kernelet's Markov model on kernel profiles: IPC alone, pair CPs, "
                                 "pruning counts (seed 000 Tables 4 and 6)");
  auto kernels = std::make_shared<std::vector<std::string>>();
  auto gpu_name = std::make_shared<std::string>();
  auto granularity = std::make_shared<std::string>("block");
  cmd->add_option("kernels", *kernels, "Kernel profiles")->required()->expected(1, 1 << 16);
  cmd->add_option("--gpu", *gpu_name, "GPU preset or file (default: the first profile's)");
  cmd->add_option("--granularity", *granularity, "Chain unit: block or warp")->check(CLI::IsMember({"block", "warp"}));
  auto prune = std::make_shared<std::string>("or");
  cmd->add_option("--prune", *prune, "Pruning rule of the pair table: or (section 4.3's text) or and (Table 6)")
      ->check(CLI::IsMember({"or", "and"}));
  auto inputs = std::make_shared<std::string>("counted");
  cmd->add_option(
         "--inputs", *inputs,
         "R_m: counted (the paper's) or calibrated (each recorded kernel's R_m reproduces its recording alone; "
         "docs/interference.md)")
      ->check(CLI::IsMember({"counted", "calibrated"}));
  auto split = std::make_shared<std::string>("blocks");
  cmd->add_option("--split", *split,
                  "Blocks over the warp schedulers: blocks (the paper's text: blocks / schedulers per virtual SM) or "
                  "warps (each block's warps over every scheduler, as the hardware places them)")
      ->check(CLI::IsMember({"blocks", "warps"}));
  cmd->callback([=] {
    Warnings warnings;
    std::vector<KernelProfile> profiles;
    for (const auto& path : *kernels) profiles.push_back(read_kernel_profile(path, &warnings));
    print_warnings(warnings);
    const std::string g = gpu_name->empty() ? profiles.front().gpu : *gpu_name;
    if (g.empty()) throw std::invalid_argument("--gpu: the profiles name no GPU");
    const GpuSpec gpu = resolve_gpu(g, &warnings, {}, "--gpu");
    auto model = kernelet::sm_model_for(gpu);
    model.granularity = *granularity == "warp" ? kernelet::Granularity::Warp : kernelet::Granularity::Block;
    model.split = kernelet::parse_scheduler_split(*split, "--split");
    std::vector<kernelet::PlanKernel> plan;
    for (const auto& k : profiles) plan.push_back(kernelet::plan_kernel(k, gpu, model, *inputs == "calibrated"));
    kernelet::IpcCache cache;
    fmt::print(
        "Kernelet model on {} ({} SMs, {} schedulers, peak IPC {}, B = {:.4f} requests/cycle/SM, L0 = {} "
        "cycles), {} granularity, {} inputs, {} over the schedulers\n\n",
        gpu.name, gpu.sm_count, model.schedulers, model.peak_ipc, model.memory.bandwidth, model.memory.base_latency,
        *granularity, *inputs, *split);
    fmt::print("| kernel | PUR | MUR | R_m | uncoalesced | blocks/SM | predicted IPC | PUR x peak IPC |\n");
    fmt::print("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const auto& p = plan[i];
      const double ipc = cache.get(model, {p.model}, {p.max_blocks_per_sm})[0];
      fmt::print("| {} | {} | {} | {:.4f} | {:.0f}% | {} | {:.3f} | {} |\n", profiles[i].name,
                 p.pur ? fmt::format("{:.4f}", *p.pur) : "-", p.mur ? fmt::format("{:.4f}", *p.mur) : "-",
                 p.model.memory_ratio, 100 * p.model.uncoalesced, p.max_blocks_per_sm, ipc,
                 p.pur ? fmt::format("{:.3f}", *p.pur * model.peak_ipc) : "-");
    }
    const auto rule = kernelet::parse_prune_rule(*prune);
    fmt::print("\n| pair | ratio (blocks/SM) | cIPC | CP | pruned at (0.4, 0.1), {} rule |\n|---|---:|---:|---:|---|\n",
               *prune);
    for (std::size_t i = 0; i < plan.size(); ++i)
      for (std::size_t j = i + 1; j < plan.size(); ++j) {
        const auto c = kernelet::balanced_co_schedule(gpu, model, plan[i], plan[j], cache);
        const bool pruned = !kernelet::survives_pruning(plan[i], plan[j], {0.4, 0.1, rule});
        if (!c) {
          fmt::print("| {}+{} | cannot share an SM | | | {} |\n", profiles[i].name, profiles[j].name,
                     pruned ? "yes" : "no");
          continue;
        }
        fmt::print("| {}+{} | {}:{} | {:.3f} + {:.3f} | {:.3f} | {} |\n", profiles[i].name, profiles[j].name,
                   c->blocks_first, c->blocks_second, c->ipc_first, c->ipc_second, c->cp, pruned ? "yes" : "no");
      }
    const bool papers = gpu.name == "c2050" && plan.size() == 8;
    for (const auto r : {kernelet::PruneRule::Or, kernelet::PruneRule::And}) {
      const char* name = r == kernelet::PruneRule::Or ? "or (section 4.3's text)" : "and";
      fmt::print("\nPairs pruned (of {}) under the {} rule, alpha_m down, alpha_p across{}:\n\n| alpha_m |",
                 plan.size() * (plan.size() - 1) / 2, name, papers ? "; (the paper's Table 6 in brackets)" : "");
      const std::vector<double> ap{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
      for (double p : ap) fmt::print(" {:.1f} |", p);
      fmt::print("\n|---|");
      for (std::size_t i = 0; i < ap.size(); ++i) fmt::print("---:|");
      fmt::print("\n");
      int equal = 0, distance = 0;
      for (int m = 1; m <= 10; ++m) {
        const double am = 0.015 * m;
        fmt::print("| {:.3f} |", am);
        for (std::size_t c = 0; c < ap.size(); ++c) {
          int pruned = 0;
          for (std::size_t i = 0; i < plan.size(); ++i)
            for (std::size_t j = i + 1; j < plan.size(); ++j)
              pruned += !kernelet::survives_pruning(plan[i], plan[j], {ap[c], am, r});
          if (papers) {
            const int paper = kPaperTable6[m - 1][c];
            equal += pruned == paper;
            distance += std::abs(pruned - paper);
            fmt::print(" {} ({}) |", pruned, paper);
          } else {
            fmt::print(" {} |", pruned);
          }
        }
        fmt::print("\n");
      }
      if (papers)
        fmt::print("\n{} rule: {} of 100 cells equal to the paper's Table 6; summed |difference| {}\n", name, equal,
                   distance);
    }
  });
}

}  // namespace gpusched::cli
