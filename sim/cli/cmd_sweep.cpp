// gpusched sweep: run a sweep file's expansion into a result store on N threads, resumably; or one shard of
// it (--shard I/N); or write a Slurm job array that runs its shards (--emit-slurm DIR).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "core/store/store.h"
#include "sim/cli/commands.h"
#include "sim/sweep/expansion.h"
#include "sim/sweep/slurm.h"
#include "sim/sweep/sweep_runner.h"

namespace gpusched::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int sig) {
  g_stop.store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C kills at once (the store stays whole: one transaction per run)
}

struct SweepArgs {
  std::string file;
  std::string db;
  int jobs = 0;  // 0: all cores
  std::string shard;
  std::string emit_slurm;
  int shards = 0;
  int cpus_per_task = 1;
  std::vector<std::string> sbatch;
  bool list = false;
  double interval_s = 10.0;
};

void run_sweep_command(const SweepArgs& a) {
  Warnings warnings;
  const auto spec = sim::read_sweep_file(a.file, &warnings);
  const sim::Shard shard = a.shard.empty() ? sim::Shard{} : sim::parse_shard(a.shard);
  auto plan = sim::expand_sweep(spec, &warnings, shard);
  print_warnings(warnings);

  if (!a.emit_slurm.empty()) {
    sim::SlurmOptions o;
    o.dir = a.emit_slurm;
    o.sweep_file = a.file;
    o.gpusched_binary = std::filesystem::read_symlink("/proc/self/exe").string();
    o.name = spec.name;
    o.shards = a.shards > 0 ? a.shards : static_cast<int>(std::clamp<std::size_t>(plan.jobs.size() / 64, 1, 32));
    o.cpus_per_task = a.cpus_per_task;
    o.sbatch_options = a.sbatch;
    const auto files = sim::emit_slurm(o);
    fmt::print("sweep {}: {} runs in {} shards\nwrote {}\nwrote {}\nsubmit: sbatch {}\nthen:   bash {}\n", spec.name,
               plan.jobs.size(), o.shards, files.sbatch, files.merge, files.sbatch, files.merge);
    return;
  }
  if (a.list) {
    for (const auto& job : plan.jobs)
      fmt::print("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", job.index, plan.workloads[job.workload].workload.name,
                 plan.gpus[job.gpu].name, job.info.policy, job.info.policy_params, job.info.interference,
                 job.info.seed);
    return;
  }
  if (a.db.empty()) throw std::invalid_argument("sweep: --db is required (or --emit-slurm / --list)");

  auto store = store::Store::open(a.db);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const bool tty = isatty(fileno(stderr));
  auto last = std::chrono::steady_clock::now() - std::chrono::hours(1);
  sim::SweepOptions options;
  options.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.stop = &g_stop;
  options.progress = [&](const sim::SweepProgress& p, bool final) {
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - last).count();
    if (!final && since < (tty ? 0.1 : a.interval_s)) return;
    last = now;
    if (tty)
      fmt::print(stderr, "\r\033[Ksweep {}: {}{}", spec.name, sim::format_progress(p, true), final ? "\n" : "");
    else
      fmt::print(stderr, "sweep {}: {}\n", spec.name, sim::format_progress(p, false));
    std::fflush(stderr);
  };
  fmt::print(stderr, "sweep {}: {} runs{} on {} thread(s) into {}\n", spec.name, plan.jobs.size(),
             shard.count > 1 ? fmt::format(" (shard {}/{})", shard.index, shard.count) : "", options.jobs, a.db);
  const auto outcome = sim::run_sweep(plan, store, options);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  for (const auto& e : outcome.errors) fmt::print(stderr, "gpusched: error: {}\n", e);
  const auto& p = outcome.progress;
  fmt::print("sweep {}: {} run, {} already stored, {} failed, {} not run; {:.2f} s\n", spec.name, p.done, p.skipped,
             p.failed, p.total - p.done - p.skipped - p.failed, p.elapsed_s);
  if (outcome.stopped && g_stop.load()) {
    fmt::print(stderr, "sweep {}: stopped; run the same command again to resume\n", spec.name);
    throw ExitCode{130};
  }
  if (p.failed) throw ExitCode{1};
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sweep", "Run a sweep file into a result store (resumable), or emit a Slurm array");
  auto a = std::make_shared<SweepArgs>();
  cmd->add_option("file", a->file, "Sweep file (docs/sweeps.md)")->required();
  cmd->add_option("--db", a->db, "Result store to write (created if missing; runs already in it are skipped)");
  cmd->add_option("--jobs,-j", a->jobs, "Simulations in parallel (default: all cores)")->check(CLI::Range(0, 1024));
  cmd->add_option("--shard", a->shard, "Run only jobs I, I+N, I+2N, ... of the expansion (I/N, 0-based)");
  cmd->add_option("--emit-slurm", a->emit_slurm, "Write a Slurm job array (sbatch script + merge.sh) into DIR");
  cmd->add_option("--shards", a->shards, "With --emit-slurm: array tasks (default: runs/64, 1..32)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--cpus-per-task", a->cpus_per_task, "With --emit-slurm: CPUs (and --jobs) per task")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--sbatch", a->sbatch, "With --emit-slurm: an extra #SBATCH option (repeatable)");
  cmd->add_flag("--list", a->list, "Print the expansion (index, workload, GPU, policy, parameters, model, seed)");
  cmd->add_option("--progress-interval", a->interval_s, "Seconds between progress lines when not on a terminal")
      ->check(CLI::PositiveNumber);
  cmd->callback([a] { run_sweep_command(*a); });
}

}  // namespace gpusched::cli
