// Seed 003's experiments as commands:
//   gpusched gen chimera-rt   writes one benchmark's real-time scenario as a workload (section 4.1);
//   gpusched chimera-rt       runs the scenario for every benchmark under the preemption policies and prints
//                             deadline violations, throughput overhead on effective throughput and the mix
//                             of techniques (Figures 6-9);
//   gpusched chimera-pairs    runs one benchmark beside each other one, both from time 0, and prints ANTT and
//                             STP against non-preemptive FCFS (`serial`) (Figures 10-11).
// Benchmarks are the kernel profiles of a folder grouped by the label before the dot (lud.0, lud.1, lud.2
// form `lud`), their kernels in label order. docs/policies/chimera.md.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/atomic_file.h"
#include "core/gpu_file.h"
#include "core/lud_sequence.h"
#include "core/profile_io.h"
#include "core/realtime_scenario.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"
#include "sim/policy.h"
#include "sim/registry.h"
#include "sim/runner.h"

namespace gpusched::cli {

namespace {

namespace fs = std::filesystem;

struct Benchmark {
  std::string name;
  std::vector<std::string> paths;
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
};

// Kernel profiles of `dir` grouped by the label before the first dot, in file-name order.
std::map<std::string, Benchmark> read_benchmarks(const std::string& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().ends_with(".kernel.toml")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::invalid_argument(fmt::format("{}: no *.kernel.toml files", dir));
  std::map<std::string, Benchmark> out;
  Warnings warnings;
  for (const auto& f : files) {
    const std::string file = f.filename().string();
    const std::string label = file.substr(0, file.find('.'));
    auto& b = out[label];
    b.name = label;
    b.paths.push_back(f.string());
    b.kernels.push_back(std::make_shared<KernelProfile>(read_kernel_profile(f.string(), &warnings)));
  }
  print_warnings(warnings);
  return out;
}

std::vector<std::string> pick(const std::map<std::string, Benchmark>& all, const std::vector<std::string>& wanted,
                              const std::string& dir) {
  std::vector<std::string> out;
  if (wanted.empty())
    for (const auto& [name, _] : all) out.push_back(name);
  for (const auto& w : wanted) {
    if (!all.count(w)) throw std::invalid_argument(fmt::format("--benchmarks: no kernels '{}.*' in {}", w, dir));
    out.push_back(w);
  }
  return out;
}

// One scenario run's figures.
struct RtRow {
  std::string benchmark, policy, idempotence;
  double limit_us = 0;
  int tasks = 0, missed = 0;
  double overhead = 0, raw_overhead = 0;
  double flushed = 0, drained = 0, switched = 0;
  double mean_latency_us = 0;
  double sm_requests = 0, sm_late = 0;  // SM preemption requests, and those that took longer than the limit
};

void add_gen_rt(CLI::App& gen) {
  auto* cmd = gen.add_subcommand("chimera-rt", "Seed 003's real-time scenario for one benchmark as a workload file");
  struct Args {
    std::string traces, benchmark, out;
    RealtimeScenarioSpec spec;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--traces", a->traces, "Folder of the benchmark kernel profiles (traces/chimera)")->required();
  cmd->add_option("--benchmark", a->benchmark, "Benchmark label (bs, lud, ...)")->required();
  cmd->add_option("--latency-limit-us", a->spec.latency_limit_us, "Deadline slack over the task's run time (us)");
  cmd->add_option("--period-us", a->spec.period_us, "Task period (us)")->check(CLI::PositiveNumber);
  cmd->add_option("--task-us", a->spec.task_us, "Task run time (us)")->check(CLI::PositiveNumber);
  cmd->add_option("--task-sms", a->spec.task_sms, "SMs the task needs (default: half)");
  cmd->add_option("--periods", a->spec.min_periods, "At least this many task periods")->check(CLI::Range(1, 1000000));
  cmd->add_option("--out", a->out, "Output workload file; the task kernel (rt.kernel.toml) goes beside it")->required();
  cmd->callback([a] {
    const auto all = read_benchmarks(a->traces);
    const auto names = pick(all, {a->benchmark}, a->traces);
    const auto& b = all.at(names.front());
    if (!b.kernels.front()->gpu.empty()) a->spec.gpu = b.kernels.front()->gpu;
    auto sc = make_realtime_scenario(fmt::format("chimera-rt-{}", b.name), b.kernels, a->spec);
    const fs::path out(a->out);
    const fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
    fs::create_directories(dir);
    write_kernel_profile(dir.string(), sc.task.profile, sc.task.records);
    std::vector<std::string> paths;
    for (const auto& p : b.paths) paths.push_back(fs::relative(fs::absolute(p), fs::absolute(dir)).generic_string());
    paths.push_back("rt.kernel.toml");
    AtomicFile f(a->out);
    f.write(fmt::format(
        "# gpusched gen chimera-rt --traces {} --benchmark {} --latency-limit-us {} --period-us {} "
        "--task-us {} --periods {}\n",
        a->traces, b.name, a->spec.latency_limit_us, a->spec.period_us, a->spec.task_us, a->spec.min_periods));
    f.write(workload_file_text(sc.workload, paths));
    f.commit();
    fmt::print("wrote {} and {}: {} passes of {} ({} kernels), {} task launches\n", a->out,
               (dir / "rt.kernel.toml").string(), sc.benchmark_passes, b.name, b.kernels.size(), sc.task_launches);
  });
}

void add_rt(CLI::App& app) {
  auto* cmd = app.add_subcommand("chimera-rt",
                                 "Seed 003 section 4.1: a periodic real-time task beside each benchmark under the "
                                 "preemption policies (deadline violations, throughput overhead, technique mix)");
  struct Args {
    std::string traces, format = "markdown";
    std::vector<std::string> benchmarks;
    std::vector<std::string> policies{"preempt-switch", "preempt-drain", "preempt-flush", "chimera"};
    std::vector<double> limits{15.0};
    std::vector<std::string> idempotence{"relaxed"};
    int periods = 20, jobs = 0;
    bool per_benchmark = true;
    std::vector<std::string> sets;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--traces", a->traces, "Folder of the benchmark kernel profiles (traces/chimera)")->required();
  cmd->add_option("--benchmarks", a->benchmarks, "Benchmark labels (default: every one in the folder)")->delimiter(',');
  cmd->add_option("--policies", a->policies, "Policies to compare")->delimiter(',');
  cmd->add_option("--latency-limit-us", a->limits, "Latency limits (us); several give Figure 8's sweep")
      ->delimiter(',');
  cmd->add_option("--idempotence", a->idempotence, "relaxed, strict or both (Figure 9)")
      ->delimiter(',')
      ->check(CLI::IsMember({"relaxed", "strict"}));
  cmd->add_option("--periods", a->periods, "At least this many task periods per benchmark")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--jobs", a->jobs, "Threads (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->add_flag("!--no-per-benchmark", a->per_benchmark, "Print only the averages");
  cmd->add_option("--set", a->sets, "PARAM=VALUE for every policy (e.g. drain_cpi=block, headroom_us=2)");
  cmd->callback([a] {
    const auto all = read_benchmarks(a->traces);
    const auto names = pick(all, a->benchmarks, a->traces);
    for (const auto& p : a->policies)
      if (!sim::Registry<sim::Policy>::instance().find(p))
        throw std::invalid_argument("--policies: unknown policy " + p);
    struct Job {
      std::string bench, policy, idem;
      double limit;
    };
    std::vector<Job> jobs;
    for (const auto& b : names)
      for (const double limit : a->limits)
        for (const auto& idem : a->idempotence)
          for (const auto& p : a->policies) jobs.push_back({b, p, idem, limit});
    std::vector<RtRow> rows(jobs.size());
    sim::AloneTimeCache alone;
    std::map<std::pair<std::string, double>, RealtimeScenario> scenarios;  // by benchmark and limit
    std::map<std::string, TimeNs> bench_alone;
    for (const auto& b : names) {
      const auto& bench = all.at(b);
      RealtimeScenarioSpec spec;
      if (!bench.kernels.front()->gpu.empty()) spec.gpu = bench.kernels.front()->gpu;
      spec.min_periods = a->periods;
      for (const double limit : a->limits) {
        spec.latency_limit_us = limit;
        scenarios.emplace(std::make_pair(b, limit), make_realtime_scenario("chimera-rt-" + b, bench.kernels, spec));
      }
    }
    const GpuSpec gpu = resolve_gpu(scenarios.begin()->second.workload.gpu, nullptr);
    // The benchmark alone: the scenario's benchmark launches without the task, under fifo.
    for (const auto& b : names) {
      const auto& w = scenarios.at({b, a->limits.front()}).workload;
      std::vector<Launch> bench_launches;
      for (const auto& l : w.launches)
        if (l.tenant == "bench") bench_launches.push_back(l);
      const auto only = make_workload(w.name + "-alone", w.kernels, bench_launches);
      sim::RunOptions o;
      o.policy = "fifo";
      o.keep_schedule = false;
      bench_alone[b] = sim::run_workload(only, gpu, o, alone).metrics.makespan;
    }
    parallel_for(jobs.size(), a->jobs, [&](std::size_t i) {
      const auto& j = jobs[i];
      const auto& w = scenarios.at({j.bench, j.limit}).workload;
      sim::RunOptions o;
      o.policy = j.policy;
      o.policy_params = parse_sets(a->sets);
      o.policy_params["latency_limit_us"] = fmt::format("{}", j.limit);
      o.policy_params["idempotence"] = j.idem;
      o.keep_schedule = false;
      const auto r = sim::run_workload(w, gpu, o, alone);
      RtRow row{j.bench, j.policy, j.idem, j.limit};
      TimeNs bench_end = 0;
      double work = 0;
      for (std::size_t l = 0; l < w.launches.size(); ++l) {
        if (w.launches[l].tenant == "rt") {
          ++row.tasks;
          row.missed += r.launches[l].deadline_missed;
        } else {
          bench_end = std::max(bench_end, r.launches[l].finish);
          for (const TimeNs d : w.kernel_of(l).primary_records()->duration_by_block) work += static_cast<double>(d);
        }
      }
      const double t_alone = static_cast<double>(bench_alone.at(j.bench));
      const double ignored = policy_metric(r, "ignored_work_ns");
      row.raw_overhead = 1.0 - t_alone / static_cast<double>(bench_end);
      row.overhead = 1.0 - (1.0 - ignored / work) * t_alone / static_cast<double>(bench_end);
      const double f = policy_metric(r, "blocks_flushed"), d = policy_metric(r, "blocks_drained"),
                   s = policy_metric(r, "blocks_switched");
      const double total = std::max(1.0, f + d + s);
      row.flushed = f / total;
      row.drained = d / total;
      row.switched = s / total;
      row.mean_latency_us = policy_metric(r, "sm_preemption_latency_mean_ns") / 1000.0;
      row.sm_requests = policy_metric(r, "sm_preemptions");
      row.sm_late = policy_metric(r, "sm_preemptions_over_limit");
      rows[i] = row;
    });

    fmt::print(
        "Real-time task every 1 ms on half of the SMs for 200 us, deadline = 200 us + latency limit, killed "
        "when missed; {} GPU; at least {} periods per benchmark.\n"
        "violations = task launches that missed their deadline; per SM = SM preemption requests that took "
        "longer than the limit (the paper's count); overhead = 1 - effective throughput / "
        "throughput alone (work on SMs owed to a task that missed its deadline is not counted); raw = 1 - "
        "T_alone / T.\n\n",
        gpu.name, a->periods);
    if (a->per_benchmark) {
      fmt::print(
          "| benchmark | limit (us) | idempotence | policy | tasks | violations | per SM | overhead | raw overhead | "
          "flush / drain / switch | mean SM latency (us) |\n|---|---:|---|---|---:|---:|---:|---:|---:|---|---:|\n");
      for (const auto& r : rows)
        fmt::print(
            "| {} | {} | {} | {} | {} | {:.1f}% | {} | {:.1f}% | {:.1f}% | {:.0f} / {:.0f} / {:.0f}% | {:.1f} |\n",
            r.benchmark, r.limit_us, r.idempotence, r.policy, r.tasks, 100.0 * r.missed / std::max(1, r.tasks),
            r.sm_requests > 0 ? fmt::format("{:.1f}%", 100.0 * r.sm_late / r.sm_requests) : std::string("-"),
            100 * r.overhead, 100 * r.raw_overhead, 100 * r.flushed, 100 * r.drained, 100 * r.switched,
            r.mean_latency_us);
      fmt::print("\n");
    }
    fmt::print(
        "Averages over the benchmarks (violations: mean of the per-benchmark rates, as the paper's figures):\n\n"
        "| limit (us) | idempotence | policy | violations | per SM | overhead | raw overhead | flush / drain / "
        "switch |\n"
        "|---:|---|---|---:|---:|---:|---:|---|\n");
    for (const double limit : a->limits)
      for (const auto& idem : a->idempotence)
        for (const auto& p : a->policies) {
          double v = 0, o = 0, raw = 0, fl = 0, dr = 0, sw = 0, per_sm = 0;
          int n = 0, n_sm = 0;
          for (const auto& r : rows)
            if (r.policy == p && r.limit_us == limit && r.idempotence == idem) {
              v += static_cast<double>(r.missed) / std::max(1, r.tasks);
              if (r.sm_requests > 0) {
                per_sm += r.sm_late / r.sm_requests;
                ++n_sm;
              }
              o += r.overhead;
              raw += r.raw_overhead;
              fl += r.flushed;
              dr += r.drained;
              sw += r.switched;
              ++n;
            }
          n = std::max(n, 1);
          fmt::print("| {} | {} | {} | {:.1f}% | {} | {:.1f}% | {:.1f}% | {:.0f} / {:.0f} / {:.0f}% |\n", limit, idem,
                     p, 100 * v / n, n_sm > 0 ? fmt::format("{:.1f}%", 100 * per_sm / n_sm) : std::string("-"),
                     100 * o / n, 100 * raw / n, 100 * fl / n, 100 * dr / n, 100 * sw / n);
        }
  });
}

void add_pairs(CLI::App& app) {
  auto* cmd = app.add_subcommand("chimera-pairs",
                                 "Seed 003 section 4.3: one benchmark beside each other one, ANTT and STP against "
                                 "non-preemptive FCFS");
  struct Args {
    std::string traces, with = "lud", lud = "sequence", per = "program";
    std::vector<std::string> benchmarks;
    std::vector<std::string> policies{"preempt-switch", "preempt-drain", "preempt-flush", "chimera"};
    std::string baseline = "serial";
    double limit = 30.0;
    int jobs = 0;
    std::vector<std::string> sets;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--traces", a->traces, "Folder of the benchmark kernel profiles (traces/chimera)")->required();
  cmd->add_option("--with", a->with, "The benchmark every pair contains (the paper: lud)");
  cmd->add_option("--benchmarks", a->benchmarks, "Partners (default: every other benchmark)")->delimiter(',');
  cmd->add_option("--lud", a->lud,
                  "LUD as the paper runs it, 94 launches of shrinking grids (sequence: 512 x 512 in 16 x 16 tiles), or "
                  "one launch of each kernel's recorded grid (single)")
      ->check(CLI::IsMember({"sequence", "single"}));
  cmd->add_option("--per", a->per,
                  "ANTT and STP per program (its launches' first release to last finish against the program alone "
                  "under the baseline: the paper's benchmarks) or per kernel launch")
      ->check(CLI::IsMember({"program", "launch"}));
  cmd->add_option("--policies", a->policies, "Policies to compare")->delimiter(',');
  cmd->add_option("--baseline", a->baseline,
                  "The non-preemptive FCFS baseline: serial (the paper's: \"each kernel has to wait until previous "
                  "kernel has finished\") or fifo (plain stream concurrency, no preemption)");
  cmd->add_option("--latency-limit-us", a->limit, "Latency limit (the paper: 30 us, the longest context switch)");
  cmd->add_option("--set", a->sets, "PARAM=VALUE for every compared policy (not the baseline)");
  cmd->add_option("--jobs", a->jobs, "Threads (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->callback([a] {
    const auto all = read_benchmarks(a->traces);
    if (!all.count(a->with))
      throw std::invalid_argument(fmt::format("--with: no kernels '{}.*' in {}", a->with, a->traces));
    auto partners = pick(all, a->benchmarks, a->traces);
    std::erase(partners, a->with);
    const auto& first = all.at(a->with);
    const GpuSpec gpu =
        resolve_gpu(first.kernels.front()->gpu.empty() ? "chimera-fermi" : first.kernels.front()->gpu, nullptr);
    std::vector<Workload> workloads;
    for (const auto& p : partners) {
      std::vector<std::shared_ptr<const KernelProfile>> kernels;
      std::vector<Launch> launches;
      for (const auto* b : {&first, &all.at(p)}) {
        if (b->name == "lud" && a->lud == "sequence") {
          if (b->kernels.size() != 3)
            throw std::invalid_argument(
                fmt::format("--lud sequence: {} has {} lud kernels, expected lud.0 (diagonal), "
                            "lud.1 (perimeter) and lud.2 (internal)",
                            a->traces, b->kernels.size()));
          auto seq = lud_sequence(*b->kernels[0], *b->kernels[1], *b->kernels[2], 512, 16, b->name, b->name);
          for (auto& l : seq.launches) {
            l.kernel += kernels.size();
            launches.push_back(std::move(l));
          }
          kernels.insert(kernels.end(), seq.kernels.begin(), seq.kernels.end());
          continue;
        }
        for (const auto& k : b->kernels) {
          Launch l;
          l.id = k->name;
          l.kernel = kernels.size();
          l.tenant = b->name;
          l.stream = b->name;
          kernels.push_back(k);
          launches.push_back(std::move(l));
        }
      }
      workloads.push_back(make_workload(a->with + "+" + p, kernels, launches));
    }
    std::vector<std::string> policies{a->baseline};
    policies.insert(policies.end(), a->policies.begin(), a->policies.end());
    std::vector<RunResult> results(workloads.size() * policies.size());
    sim::AloneTimeCache alone;
    parallel_for(results.size(), a->jobs, [&](std::size_t i) {
      sim::RunOptions o;
      o.policy = policies[i % policies.size()];
      if (i % policies.size() != 0) {
        o.policy_params = parse_sets(a->sets);
        o.policy_params["latency_limit_us"] = fmt::format("{}", a->limit);
      }
      o.keep_schedule = false;
      results[i] = sim::run_workload(workloads[i / policies.size()], gpu, o, alone);
    });
    // Per program: each tenant's turnaround (first release to last finish of its launches) against the same
    // launches alone under the baseline.
    struct Pair {
      double antt = 0, stp = 0;
    };
    std::vector<std::map<std::string, double>> program_alone(workloads.size());
    if (a->per == "program")
      parallel_for(workloads.size(), a->jobs, [&](std::size_t wi) {
        const auto& w = workloads[wi];
        std::set<std::string> tenants;
        for (const auto& l : w.launches) tenants.insert(l.tenant);
        for (const auto& t : tenants) {
          std::vector<Launch> mine;
          for (const auto& l : w.launches)
            if (l.tenant == t) mine.push_back(l);
          sim::RunOptions o;
          o.policy = a->baseline;
          o.keep_schedule = false;
          sim::AloneTimeCache cache;
          program_alone[wi][t] = static_cast<double>(
              sim::run_workload(make_workload(w.name + "-" + t, w.kernels, mine), gpu, o, cache).metrics.makespan);
        }
      });
    auto metrics_of = [&](std::size_t wi, const RunResult& r) {
      if (a->per == "launch") return Pair{r.metrics.antt, r.metrics.stp};
      const auto span = span_by_tenant(workloads[wi], r);
      Pair m;
      for (const auto& [t, se] : span) {
        const double slowdown = static_cast<double>(se.second - se.first) / program_alone[wi].at(t);
        m.antt += slowdown / static_cast<double>(span.size());
        m.stp += 1.0 / slowdown;
      }
      return m;
    };
    fmt::print(
        "{} beside each benchmark, both submitted at 0 (each benchmark's kernels in order on its own stream), "
        "{} GPU, latency limit {} us. ANTT improvement = ANTT({}) / ANTT(policy); STP improvement = "
        "STP(policy) / STP({}) - 1. {}; LUD {}.\n\n",
        a->with, gpu.name, a->limit, a->baseline, a->baseline,
        a->per == "program" ? "Per program (each benchmark's launches from first release to last finish)"
                            : "Per kernel launch",
        a->lud == "sequence" ? "as 94 launches of shrinking grids (512 x 512, 16 x 16 tiles)"
                             : "as one launch of each kernel");
    fmt::print("| pair | {} ANTT | {} STP |", a->baseline, a->baseline);
    for (const auto& p : a->policies) fmt::print(" {} ANTT x | {} STP |", p, p);
    fmt::print("\n|---|---:|---:|");
    for (std::size_t i = 0; i < a->policies.size(); ++i) fmt::print("---:|---:|");
    fmt::print("\n");
    std::vector<double> antt_gain(a->policies.size(), 0.0), stp_gain(a->policies.size(), 0.0);
    for (std::size_t w = 0; w < workloads.size(); ++w) {
      const auto base = metrics_of(w, results[w * policies.size()]);
      fmt::print("| {} | {:.2f} | {:.3f} |", workloads[w].name, base.antt, base.stp);
      for (std::size_t p = 0; p < a->policies.size(); ++p) {
        const auto m = metrics_of(w, results[w * policies.size() + 1 + p]);
        const double ag = base.antt / m.antt, sg = m.stp / base.stp - 1.0;
        antt_gain[p] += ag;
        stp_gain[p] += sg;
        fmt::print(" {:.2f} | {:+.1f}% |", ag, 100 * sg);
      }
      fmt::print("\n");
    }
    fmt::print("| mean | | |");
    for (std::size_t p = 0; p < a->policies.size(); ++p)
      fmt::print(" {:.2f} | {:+.1f}% |", antt_gain[p] / static_cast<double>(workloads.size()),
                 100 * stp_gain[p] / static_cast<double>(workloads.size()));
    fmt::print("\n");
  });
}

}  // namespace

void add_gen_chimera_command(CLI::App& gen) {
  add_gen_rt(gen);
}

void add_chimera_commands(CLI::App& app) {
  add_rt(app);
  add_pairs(app);
}

}  // namespace gpusched::cli
