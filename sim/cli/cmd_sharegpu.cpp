// gpusched sharegpu: seed 004's experiments on its Table I programs (core/sharegpu_programs) on the K40
// preset under `timeshare`, against the programs run natively (`fifo`, no micro-kernels):
//   Figure 5   each program alone at slices of 10, 100 and 1000 ms: time / native, overhead per micro-kernel;
//   Figure 6   pairs (memory-memory, compute-compute, memory-compute) at 1000 and 500 ms: each one's share of
//              the slices while both run, beside Eq. 1's bound;
//   Figure 7   all seven together on one GPU at 1000 ms: each one's turnaround / native;
//   Figure 9   each alone on two GPUs (micro-kernels on both) at 500 ms: speed-up over native on one;
//   Figure 10  all seven on two GPUs against one, at 1000 ms: speed-up per program.
// docs/policies/timeshare.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/atomic_file.h"
#include "core/gpu_file.h"
#include "core/profile_io.h"
#include "core/sharegpu_programs.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"
#include "sim/runner.h"

namespace gpusched::cli {

namespace {

struct Programs {
  std::vector<const SharegpuProgram*> all;
  std::vector<std::shared_ptr<const KernelProfile>> kernels;  // same order
  std::shared_ptr<const KernelProfile> kernel_of(const SharegpuProgram* p) const {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] == p) return kernels[i];
    return nullptr;
  }
};

// --dirty, shared by `sharegpu` and `gen sharegpu` (core/sharegpu_programs.h, SharegpuDirty).
void add_dirty_option(CLI::App& cmd, std::string& dirty) {
  cmd.add_option("--dirty", dirty,
                 "What a program saves: data (the variables its kernel writes) or half (half of its footprint)")
      ->check(CLI::IsMember({"data", "half"}));
}

Programs make_programs(const std::string& gpu, SharegpuDirty dirty) {
  Programs out;
  for (const auto& p : sharegpu_programs()) {
    out.all.push_back(&p);
    out.kernels.push_back(std::make_shared<KernelProfile>(sharegpu_kernel(p, gpu, 0, dirty).profile));
  }
  return out;
}

Workload workload_of(const Programs& ps, const std::vector<const SharegpuProgram*>& which, bool coalesced,
                     const std::vector<int>& repeats = {}) {
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  std::string name;
  for (const auto* p : which) {
    kernels.push_back(ps.kernel_of(p));
    name += (name.empty() ? "" : "+") + p->name;
  }
  return sharegpu_workload(name, which, kernels, coalesced, repeats);
}

// Finish of each tenant's last launch.
std::map<std::string, TimeNs> finish_by_tenant(const Workload& w, const RunResult& r) {
  std::map<std::string, TimeNs> out;
  for (const auto& [tenant, span] : span_by_tenant(w, r)) out[tenant] = span.second;
  return out;
}

struct Job {
  Workload w;
  std::string policy;
  std::map<std::string, std::string> params;
  int gpus = 1;
  RunResult result;
};

}  // namespace

void add_sharegpu_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sharegpu",
                                 "Seed 004's experiments on its Table I programs: time-sharing overheads, slice "
                                 "shares, all seven together, two GPUs (Figures 5-7, 9-10)");
  struct Args {
    std::string gpu = "k40";
    std::vector<std::string> set;
    std::string dirty = "data";
    int jobs = 0;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--gpu", a->gpu, "GPU preset (the paper: K40c)");
  add_dirty_option(*cmd, a->dirty);
  cmd->add_option("--set", a->set, "PARAM=VALUE for timeshare (e.g. registration_us=0)");
  cmd->add_option("--jobs", a->jobs, "Threads (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->callback([a] {
    Warnings warnings;
    const GpuSpec gpu = resolve_gpu(a->gpu, &warnings);
    print_warnings(warnings);
    const SharegpuDirty dirty = parse_sharegpu_dirty(a->dirty);
    const Programs ps = make_programs(gpu.name, dirty);
    auto base = parse_sets(a->set);
    // Seed 004's framework copies each program's data in from host memory (its first restore), and the native
    // baselines below add the same upload: charged on both sides.
    base.emplace("first_restore", "upload");
    auto ts = [&](double slice_ms) {
      auto p = base;
      p["slice_ms"] = fmt::format("{}", slice_ms);
      return p;
    };
    std::vector<Job> jobs;
    auto add = [&](Workload w, const std::string& policy, std::map<std::string, std::string> params, int gpus) {
      jobs.push_back(Job{std::move(w), policy, std::move(params), gpus, {}});
      return jobs.size() - 1;
    };
    // Figure 5 (and the native baselines for everything).
    std::map<std::string, std::size_t> native;
    std::map<std::pair<std::string, double>, std::size_t> alone;
    const double slices[] = {10, 100, 1000};
    for (const auto* p : ps.all) {
      native[p->name] = add(workload_of(ps, {p}, false), "fifo", {}, 1);
      for (const double s : slices) alone[{p->name, s}] = add(workload_of(ps, {p}, false), "timeshare", ts(s), 1);
    }
    // Figure 6: pairs of long-running programs (each one kernel call of 20 s of its blocks, so that
    // slices, not kernel calls, decide who runs), at 1000 and 500 ms. The paper names only dxtc + matTrans. Its
    // compute pair cannot hold matMul: restoring matMul's 5.4 GB alone takes 569 ms at 10 GB/s, so any pair
    // with it would skew at 500 ms, which the paper's does not; of the three compute programs that leaves
    // gaussian + dxtc. matmul + dxtc (this command's pair before session 21) is the fourth row.
    const std::vector<std::pair<std::string, std::string>> pairs{
        {"mattrans", "stringsort"}, {"gaussian", "dxtc"}, {"dxtc", "mattrans"}, {"matmul", "dxtc"}};
    const std::vector<std::string> pair_kinds{"memory + memory", "compute + compute", "compute + memory",
                                              "compute + compute (not the paper's)"};
    std::vector<SharegpuProgram> long_programs;
    for (const auto& p : sharegpu_programs()) {
      long_programs.push_back(p);
      long_programs.back().native_s = 20.0;
      long_programs.back().calls = 1;
    }
    auto long_of = [&](const std::string& name) {
      for (const auto& p : long_programs)
        if (p.name == name) return &p;
      throw std::logic_error("no program " + name);
    };
    std::map<std::pair<std::size_t, double>, std::size_t> pair_runs;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const auto* x = long_of(pairs[i].first);
      const auto* y = long_of(pairs[i].second);
      const std::vector<std::shared_ptr<const KernelProfile>> kernels{
          std::make_shared<KernelProfile>(sharegpu_kernel(*x, gpu.name, 601, dirty).profile),
          std::make_shared<KernelProfile>(sharegpu_kernel(*y, gpu.name, 602, dirty).profile)};
      for (const double s : {1000.0, 500.0})
        pair_runs[{i, s}] =
            add(sharegpu_workload(x->name + "+" + y->name, {x, y}, kernels, false), "timeshare", ts(s), 1);
    }
    // Figures 7, 9, 10.
    const std::size_t all1 = add(workload_of(ps, ps.all, true), "timeshare", ts(1000), 1);
    const std::size_t all2 = add(workload_of(ps, ps.all, true), "timeshare", ts(1000), 2);
    // Figure 10 under the other readings of the text: one GPU moving whole states (section II's framework,
    // Eq. 1); two GPUs giving a coalesced launch a second GPU only when no other launch waits (section IV-A's
    // "M < N"), or never (inter-kernel parallelism only).
    auto idle_intra = ts(1000);
    idle_intra["intra_kernel"] = "idle";
    const std::size_t all1_whole = add(workload_of(ps, ps.all, false), "timeshare", ts(1000), 1);
    const std::size_t all2_idle = add(workload_of(ps, ps.all, true), "timeshare", idle_intra, 2);
    const std::size_t all2_whole = add(workload_of(ps, ps.all, false), "timeshare", ts(1000), 2);
    std::map<std::string, std::size_t> two_gpus;
    for (const auto* p : ps.all) two_gpus[p->name] = add(workload_of(ps, {p}, true), "timeshare", ts(500), 2);

    parallel_for(jobs.size(), a->jobs, [&](std::size_t i) {
      auto& j = jobs[i];
      sim::AloneTimeCache cache;
      sim::RunOptions o;
      o.policy = j.policy;
      o.policy_params = j.params;
      o.gpu_count = j.gpus;
      o.keep_schedule = j.policy == "timeshare";  // the phases give the slices
      j.result = sim::run_workload(j.w, gpu, o, cache);
      j.result.schedule.pieces.clear();
      j.result.schedule.pieces.shrink_to_fit();
    });
    auto makespan = [&](std::size_t i) { return static_cast<double>(jobs[i].result.metrics.makespan); };
    // Native: the program's kernels alone plus one upload of its data, which the native program does with
    // its own cudaMemcpy and the framework does as its first RestoreState.
    const double pcie = [&] {
      const auto it = base.find("pcie_gbps");
      return it != base.end() && std::stod(it->second) > 0 ? std::stod(it->second) : gpu.pcie_bandwidth_gbps;
    }();
    auto native_time = [&](const SharegpuProgram* p) {
      return makespan(native[p->name]) + static_cast<double>(p->footprint_mib << 20) / pcie;
    };

    std::string params = jobs[alone.begin()->second].result.policy_params;  // without the slice, which varies
    if (const auto comma = params.find(','); params.rfind("slice_ms=", 0) == 0 && comma != std::string::npos)
      params = params.substr(comma + 1);
    fmt::print("Seed 004 on {} ({} SMs, {} GiB, PCIe {} GB/s); timeshare parameters: {}\n\n", gpu.name, gpu.sm_count,
               gpu.memory_bytes >> 30, gpu.pcie_bandwidth_gbps, params);
    fmt::print("Native = the program's kernels run plainly (fifo) + one upload of its footprint over PCIe.\n");
    fmt::print("Saved at each yield: {}.\n\n", dirty == SharegpuDirty::Data
                                                   ? "the variables each program's kernel writes (--dirty data)"
                                                   : "half of each footprint (--dirty half)");
    fmt::print(
        "## Figure 5: each program alone, time under timeshare / native (overhead per micro-kernel x "
        "micro-kernels)\n\n");
    fmt::print(
        "| program | kind | footprint | calls | native | 10 ms | 100 ms | 1000 ms "
        "|\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    double sum5[3] = {0, 0, 0};
    for (const auto* p : ps.all) {
      fmt::print("| {} | {} | {} MiB | {} | {} |", p->name, p->memory_bound ? "memory" : "compute", p->footprint_mib,
                 p->calls, format_duration(static_cast<TimeNs>(native_time(p))));
      for (int k = 0; k < 3; ++k) {
        const auto i = alone[{p->name, slices[k]}];
        const double mk = policy_metric(jobs[i].result, "microkernels");
        sum5[k] += makespan(i) / native_time(p);
        fmt::print(" {:.3f} ({:.2f} ms x {:.0f}) |", makespan(i) / native_time(p),
                   (makespan(i) - native_time(p)) / std::max(1.0, mk) / 1e6, mk);
      }
      fmt::print("\n");
    }
    fmt::print("| mean | | | | | {:.3f} | {:.3f} | {:.3f} |\n", sum5[0] / 7, sum5[1] / 7, sum5[2] / 7);
    fmt::print(
        "\n## Figure 6: pairs (each program one 20 s kernel call), each one's share of the slices (and of the GPU's "
        "running time) while both run\n\n");
    fmt::print("| pair | kind | Eq. 1 bound | share at 1000 ms | share at 500 ms |\n|---|---|---:|---:|---:|\n");
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      fmt::print("| {} + {} | {} |", pairs[i].first, pairs[i].second, pair_kinds[i]);
      const auto& r0 = jobs[pair_runs[{i, 1000.0}]];
      fmt::print(" {:.0f} ms |", policy_metric(r0.result, "slice_lower_bound_ns") / 1e6);
      for (const double s : {1000.0, 500.0}) {
        const auto& j = jobs[pair_runs[{i, s}]];
        const auto fin = finish_by_tenant(j.w, j.result);
        TimeNs both = INT64_MAX;
        for (const auto& [_, t] : fin) both = std::min(both, t);
        std::map<std::string, int> count;
        std::map<std::string, double> time;
        for (const auto& ph : j.result.schedule.phases)
          if (ph.state == PhaseState::Running && ph.end <= both) {
            const auto& t = j.w.launches[static_cast<std::size_t>(ph.launch)].tenant;
            ++count[t];
            time[t] += static_cast<double>(ph.end - ph.start);
          }
        const double total = std::max(1, count[pairs[i].first] + count[pairs[i].second]);
        const double total_time = std::max(1.0, time[pairs[i].first] + time[pairs[i].second]);
        fmt::print(" {:.0f}% / {:.0f}% ({:.0f}% / {:.0f}%) |", 100 * count[pairs[i].first] / total,
                   100 * count[pairs[i].second] / total, 100 * time[pairs[i].first] / total_time,
                   100 * time[pairs[i].second] / total_time);
      }
      fmt::print("\n");
    }
    fmt::print(
        "\n## Figure 7: all seven on one GPU (1000 ms), turnaround / native; Figure 10: speed-up with two GPUs\n\n");
    fmt::print(
        "| program | native | one GPU | / native | two GPUs | speed-up (Fig. 10) | alone on two GPUs, 500 ms: speed-up "
        "over native (Fig. 9) |\n|---|---:|---:|---:|---:|---:|---:|\n");
    const auto f1 = finish_by_tenant(jobs[all1].w, jobs[all1].result);
    const auto f2 = finish_by_tenant(jobs[all2].w, jobs[all2].result);
    double sum7 = 0, sum10 = 0, sum9 = 0;
    for (const auto* p : ps.all) {
      const double nat = native_time(p);
      const double one = static_cast<double>(f1.at(p->name)), two = static_cast<double>(f2.at(p->name));
      const double s9 = nat / makespan(two_gpus[p->name]);
      sum7 += one / nat;
      sum10 += one / two;
      sum9 += s9;
      fmt::print("| {} | {} | {} | {:.2f} | {} | {:.2f} | {:.2f} |\n", p->name,
                 format_duration(static_cast<TimeNs>(nat)), format_duration(static_cast<TimeNs>(one)), one / nat,
                 format_duration(static_cast<TimeNs>(two)), one / two, s9);
    }
    const double n = static_cast<double>(ps.all.size());
    fmt::print("| mean | | | {:.2f} | | {:.2f} | {:.2f} |\n", sum7 / n, sum10 / n, sum9 / n);
    fmt::print(
        "\n## Figure 10 under other readings of the text: speed-up with two GPUs, mean over the seven (lowest - "
        "highest)\n\n| one GPU | two GPUs | mean | range |\n|---|---|---:|---:|\n");
    const std::pair<std::size_t, const char*> ones[] = {{all1, "block-coalesced shares (the table above)"},
                                                        {all1_whole, "whole states (section II, Eq. 1)"}};
    const std::pair<std::size_t, const char*> twos[] = {
        {all2, "shares, a second GPU on request (intra_kernel=always)"},
        {all2_idle, "shares, a second GPU only if idle (intra_kernel=idle)"},
        {all2_whole, "whole states, one GPU per launch (inter-kernel only)"}};
    for (const auto& [i1, name1] : ones) {
      const auto g1 = finish_by_tenant(jobs[i1].w, jobs[i1].result);
      for (const auto& [i2, name2] : twos) {
        const auto g2 = finish_by_tenant(jobs[i2].w, jobs[i2].result);
        double sum = 0, lo = INFINITY, hi = 0;
        for (const auto* p : ps.all) {
          const double x = static_cast<double>(g1.at(p->name)) / static_cast<double>(g2.at(p->name));
          sum += x;
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
        fmt::print("| {} | {} | {:.2f} | {:.2f} - {:.2f} |\n", name1, name2, sum / n, lo, hi);
      }
    }
  });
}

}  // namespace gpusched::cli

namespace gpusched::cli {

void add_gen_sharegpu_command(CLI::App& gen) {
  auto* cmd = gen.add_subcommand("sharegpu", "Seed 004's Table I programs as kernel profiles and workloads");
  struct Args {
    std::string out, gpu = "k40";
    std::vector<std::string> programs;
    std::string dirty = "data";
    bool coalesced = false;
    int gpus = 1;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--out", a->out, "Output folder (profiles, and one workload per run below)")->required();
  add_dirty_option(*cmd, a->dirty);
  cmd->add_option("--programs", a->programs, "Programs of the workload (default: all seven)")->delimiter(',');
  cmd->add_option("--gpu", a->gpu, "GPU preset");
  cmd->add_option("--gpus", a->gpus, "GPUs in the node")->check(CLI::Range(1, 64));
  cmd->add_flag("--block-coalesced", a->coalesced, "Mark every launch block_coalesced");
  cmd->callback([a] {
    namespace fs = std::filesystem;
    std::vector<const SharegpuProgram*> which;
    if (a->programs.empty())
      for (const auto& p : sharegpu_programs()) which.push_back(&p);
    for (const auto& name : a->programs) {
      const auto* p = find_sharegpu_program(name);
      if (!p)
        throw std::invalid_argument("--programs: unknown program " + name +
                                    " (bfs, gaussian, kmeans, matmul, mattrans, dxtc, stringsort)");
      which.push_back(p);
    }
    fs::create_directories(a->out);
    std::vector<std::shared_ptr<const KernelProfile>> kernels;
    std::vector<std::string> paths;
    for (const auto* p : which) {
      const auto g = sharegpu_kernel(*p, a->gpu, 0, parse_sharegpu_dirty(a->dirty));
      write_kernel_profile(a->out, g.profile, g.records);
      kernels.push_back(std::make_shared<KernelProfile>(g.profile));
      paths.push_back(p->name + ".kernel.toml");
    }
    std::string name;
    for (const auto* p : which) name += (name.empty() ? "" : "+") + p->name;
    auto w = sharegpu_workload(name, which, kernels, a->coalesced);
    w.gpu_count = a->gpus;
    const std::string file = (fs::path(a->out) / (name + ".toml")).string();
    AtomicFile f(file);
    f.write(fmt::format("# gpusched gen sharegpu --out {} --gpu {} --dirty {}{}\n", a->out, a->gpu, a->dirty,
                        a->coalesced ? " --block-coalesced" : ""));
    f.write(workload_file_text(w, paths));
    f.commit();
    fmt::print("wrote {}: {} launches of {}\n", file, w.launches.size(), name);
  });
}

}  // namespace gpusched::cli
