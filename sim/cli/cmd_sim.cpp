// gpusched sim: simulate a workload under one or more policies and print the comparison.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "core/content_hash.h"
#include "core/gpu_file.h"
#include "core/store/store.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"
#include "sim/run_identity.h"
#include "sim/runner.h"
#include "sim/timeline.h"

namespace gpusched::cli {
namespace {

struct SimArgs {
  std::string workload;
  std::string policies = "all";
  std::string gpu;
  int gpus = 0;
  int max_resident_grids = -1;  // -1: the GPU's own
  std::vector<std::string> sets;
  std::uint64_t seed = 1;
  std::string interference = "auto";
  std::string timeline;
  std::string stream_schedule;
  std::string format = "table";
  std::string db;
  std::string block_time = "slot";
  std::string turnaround_from = "release";
  bool metrics_only = false;
  bool details = false;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

// FILE.ext -> FILE.policy.ext when several policies write timelines.
std::string per_policy_path(const std::string& path, const std::string& policy, bool several) {
  if (!several) return path;
  namespace fs = std::filesystem;
  fs::path p(path);
  return (p.parent_path() / (p.stem().string() + "." + policy + p.extension().string())).string();
}

void print_results(const std::vector<RunResult>& results, const std::string& format) {
  if (format == "csv") {
    fmt::print(
        "policy,stp,antt,strict_f,makespan_ns,bound_ns,makespan_over_bound,sm_utilization,warp_occupancy,"
        "mean_turnaround_ns\n");
    for (const auto& r : results) {
      const auto& m = r.metrics;
      double turnaround = 0;
      for (const auto& l : r.launches) turnaround += static_cast<double>(l.turnaround);
      if (!r.launches.empty()) turnaround /= static_cast<double>(r.launches.size());
      fmt::print("{},{:.6f},{:.6f},{:.6f},{},{},{:.6f},{:.6f},{:.6f},{:.0f}\n", r.policy, m.stp, m.antt, m.strict_f,
                 m.makespan, m.bound, m.makespan_over_bound, m.sm_utilization, m.warp_occupancy, turnaround);
    }
    return;
  }
  const bool md = format == "markdown";
  const char* row = md ? "| {:<14} | {:>6} | {:>7} | {:>7} | {:>13} | {:>8} | {:>7} |\n"
                       : "{:<14} {:>6} {:>7} {:>7} {:>13} {:>8} {:>7}\n";
  fmt::print(fmt::runtime(row), "policy", "STP", "ANTT", "StrictF", "makespan", "mk/bound", "SM util");
  if (md) fmt::print("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& r : results) {
    const auto& m = r.metrics;
    fmt::print(fmt::runtime(row), r.policy, fmt::format("{:.3f}", m.stp), fmt::format("{:.3f}", m.antt),
               fmt::format("{:.3f}", m.strict_f), format_duration(m.makespan),
               fmt::format("{:.3f}", m.makespan_over_bound), fmt::format("{:.1f}%", 100.0 * m.sm_utilization));
  }
}

void run_sim(const SimArgs& a) {
  auto loaded = load_workload_and_gpu(a.workload, a.gpu);
  if (a.max_resident_grids >= 0) loaded.gpu.max_resident_grids = a.max_resident_grids;
  if (a.block_time == "raw") select_block_time(loaded.workload, BlockTime::Raw);
  const Workload& w = loaded.workload;
  const GpuSpec& gpu = loaded.gpu;
  const std::string interference = sim::resolve_interference(a.interference, w);

  std::vector<std::string> policies = a.policies == "all" ? sim::all_policy_names() : split(a.policies, ',');
  const auto params = sim::parse_policy_sets(a.sets, policies, a.policies);
  if (!a.stream_schedule.empty() && policies.size() != 1)
    throw std::invalid_argument("--stream-schedule needs exactly one policy");

  if (!a.db.empty() && a.turnaround_from != "release")
    throw std::invalid_argument("--turnaround-from arrival: a result store's runs count from release; drop --db");
  std::optional<store::Store> db;
  std::string workload_hash;
  if (!a.db.empty()) {
    db.emplace(store::Store::open(a.db));
    workload_hash = workload_content_hash(w);
  }
  std::vector<std::string> stored;  // what --db did, printed after the table

  sim::AloneTimeCache alone;
  std::vector<RunResult> results;
  for (const auto& p : policies) {
    sim::RunOptions o;
    o.policy = p;
    if (const auto it = params.find(p); it != params.end()) o.policy_params = it->second;
    o.interference = interference;
    o.seed = a.seed;
    o.gpu_count = a.gpus;
    o.turnaround_from = a.turnaround_from == "arrival" ? TurnaroundFrom::Arrival : TurnaroundFrom::Release;
    std::unique_ptr<sim::CsvScheduleStream> stream;
    if (!a.stream_schedule.empty()) {
      stream = std::make_unique<sim::CsvScheduleStream>(a.stream_schedule, w);
      o.observers.push_back(stream.get());
      o.keep_schedule = false;
    } else {
      o.keep_schedule = !a.timeline.empty() || (db && !a.metrics_only);
    }
    const auto started = store::utc_now_iso8601();
    results.push_back(sim::run_workload(w, gpu, o, alone));
    if (db) {
      auto info = sim::describe_sim_run(w, workload_hash, gpu, o);
      info.started_at = started;
      info.finished_at = store::utc_now_iso8601();
      const bool keep = o.keep_schedule && !a.metrics_only;
      RunResult copy = results.back();
      if (!keep) info.piece_count = static_cast<std::int64_t>(copy.schedule.pieces.size());
      bool inserted = false;
      const auto id = db->write_run(store::make_run_record(std::move(info), w, std::move(copy), keep), &inserted);
      stored.push_back(inserted ? fmt::format("{}: stored as run {}", p, id)
                                : fmt::format("{}: already stored as run {} (same key)", p, id));
    }
    if (stream) stream->commit();
    if (!a.timeline.empty())
      sim::write_timeline(per_policy_path(a.timeline, p, policies.size() > 1), results.back().schedule, w, gpu);
  }
  if (a.format == "table") {
    // Equal terms: every policy finds a launch's data in device memory when it arrives; only timeshare can be
    // told to copy it in from the host (seed 004's framework), and then the header says so.
    const bool upload = std::find(a.sets.begin(), a.sets.end(), "timeshare.first_restore=upload") != a.sets.end();
    fmt::print(
        "workload {} on {} x{} ({} launches, {} blocks), interference {}{}, seed {}, data on the device at "
        "arrival{}\n",
        w.name, gpu.name, results.empty() ? 1 : results.front().gpu_count, w.launches.size(), w.total_blocks(),
        interference, a.block_time == "raw" ? ", block time raw" : "", a.seed,
        upload ? " (timeshare: uploaded by its first restore)" : "");
    if (a.turnaround_from == "arrival") fmt::print("turnaround from each launch's arrival, not its release\n");
  }
  print_results(results, a.format);
  if (a.details && a.format != "csv")
    for (const auto& r : results) {
      if (r.policy_metrics.empty()) continue;
      std::string line;
      for (const auto& [k, v] : r.policy_metrics) line += fmt::format("{}{}={:g}", line.empty() ? "" : ", ", k, v);
      fmt::print("{}: {}\n", r.policy, line);
    }
  for (const auto& line : stored) fmt::print(stderr, "{} in {}\n", line, a.db);
}

}  // namespace

void add_sim_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sim", "Simulate a workload under policies and compare them");
  auto a = std::make_shared<SimArgs>();
  cmd->add_option("--workload,-w", a->workload, "Workload file")->required();
  cmd->add_option("--policy,-p", a->policies, "Policies, comma-separated, or 'all' (see 'gpusched policies')");
  cmd->add_option("--gpu", a->gpu, "GPU preset or GPU file (default: the workload's)");
  cmd->add_option("--gpus", a->gpus, "GPUs in the node (default: the workload's)")->check(CLI::Range(1, 64));
  cmd->add_option("--max-resident-grids", a->max_resident_grids,
                  "Launches a GPU holds at once (default: the GPU's, e.g. 128 on an H100; 0: no limit)")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--set", a->sets, "Policy parameter POLICY.PARAM=VALUE (repeatable)");
  cmd->add_option("--seed", a->seed, "Seed for random draws");
  cmd->add_option(
      "--interference", a->interference,
      "Interference model (none, residency, age, equivalent, ...; auto: equivalent where the kernels' profiles have "
      "fitted weights, with gpu_wide=on where they also have the GPU-wide fit, else age where they have co-run records "
      "beside them, else none)");
  cmd->add_option("--block-time", a->block_time,
                  "What a recorded block takes in the replay: slot (its slot occupancy, dispatch to end) or raw "
                  "(end - start of its stamps)")
      ->check(CLI::IsMember({"slot", "raw"}));
  cmd->add_option("--turnaround-from", a->turnaround_from,
                  "Where a launch's turnaround starts: release (once its dependencies and stream predecessors are "
                  "done) or arrival (its submission, Eyerman and Eeckhout's; seed 002's ANTT)")
      ->check(CLI::IsMember({"release", "arrival"}));
  cmd->add_option("--timeline", a->timeline,
                  "Write the Schedule: .json for Perfetto, else CSV (FILE.POLICY.ext per policy)");
  cmd->add_option("--stream-schedule", a->stream_schedule, "Stream the Schedule as CSV while simulating (one policy)");
  cmd->add_option("--db", a->db, "Store the runs in this SQLite result store (docs/store.md)");
  cmd->add_flag("--metrics-only", a->metrics_only, "With --db: store metrics and launches, not the Schedule's blocks");
  cmd->add_flag("--details", a->details,
                "Also print each policy's own figures (Chimera's technique mix, timeshare's transfers, ...)");
  cmd->add_option("--format", a->format, "Output: table, markdown or csv")
      ->check(CLI::IsMember({"table", "markdown", "csv"}));
  cmd->callback([a] { run_sim(*a); });
}

}  // namespace gpusched::cli
