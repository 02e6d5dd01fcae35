// gpusched-live native: a workload's launches as plain CUDA launches at their arrival times (no executor), every
// block stamped; the measured run against the simulator's prediction (fifo, or sjf or knapsack carried out through
// stream priorities), repeated, with the errors that docs/validation.md reports ("Native hardware vs prediction") and
// one row per repeat in a CSV.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "core/content_hash.h"
#include "core/duration_format.h"
#include "core/gpu_file.h"
#include "core/prediction_errors.h"
#include "core/store/store.h"
#include "live/commands.h"
#include "live/cuda_check.h"
#include "live/device_spec.h"
#include "live/executor/measured_run.h"
#include "live/suite_binding.h"
#include "live/timing/native_run.h"
#include "live/workload_loading.h"
#include "sim/launch_priorities.h"
#include "sim/run_identity.h"
#include "sim/runner.h"
#include "sim/timeline.h"

namespace gpusched::live {
namespace {

struct NativeArgs {
  std::string workload, gpu, db, csv, timeline, interference = "auto", policy = "fifo";
  int repeats = 3;
  int alone_repeats = 11;
  std::uint64_t seed = 1;
  double timeout_s = 60;
  double lead_in_us = 300;
  bool per_launch = false;
};

void print_errors(const char* what, int repeat, const PredictionErrors& e, TimeNs measured, TimeNs predicted) {
  fmt::print("{:<22} {:>6} {:>9.1f}% {:>8.1f}% {:>8.1f}% {:>12} {:>12} {:>8.1f}% {:>7.3f}\n", what, repeat,
             e.turnaround_median_pct, e.turnaround_p90_pct, e.turnaround_max_pct, format_duration(measured),
             format_duration(predicted), e.makespan_pct, e.block_ks);
}

int native_command(const NativeArgs& a) {
  const auto loaded = load_one_gpu_workload(a.workload, a.gpu, "native runs use");
  const Workload& w = loaded.workload;
  const GpuSpec& gpu = loaded.gpu;
  const auto devices = list_devices();
  const auto& dev = devices.front();
  if (dev.spec.sm_count != gpu.sm_count)
    throw std::invalid_argument(fmt::format("the workload is for {} ({} SMs), but the GPU is {} ({} SMs)", gpu.name,
                                            gpu.sm_count, dev.name, dev.spec.sm_count));

  // The prediction (slot occupancy, the GPU's calibrated timing) and, beside it, the model before issue
  // "Fidelity 1" (raw end - start, no front-end timing), both under the policy.
  sim::AloneTimeCache alone_cache;
  sim::RunOptions o;
  o.policy = a.policy;
  o.interference = sim::resolve_interference(a.interference, w);
  o.seed = a.seed;
  const RunResult predicted = sim::run_workload(w, gpu, o, alone_cache);
  Workload before_w = w;
  select_block_time(before_w, BlockTime::Raw);
  const GpuSpec before_gpu = without_front_end_timing(gpu);
  sim::AloneTimeCache before_cache;
  const RunResult before = sim::run_workload(before_w, before_gpu, o, before_cache);
  fmt::print(
      "workload {} on {} ({} launches); timing: launch latency {} ns, gap {} ns, completion {} ns, dispatch "
      "{} ns a block ({})\n",
      w.name, dev.name, w.launches.size(), gpu.launch_latency_ns, gpu.launch_gap_ns, gpu.completion_latency_ns,
      gpu.block_dispatch_ns, gpu.timing_source.empty() ? "none" : gpu.timing_source);

  // A plan that orders whole launches is carried out by the hardware's own dispatch: fifo as launched, sjf and
  // knapsack through stream priorities (launch_priorities.h).
  std::vector<int> priorities;
  if (a.policy != "fifo") {
    int least = 0, greatest = 0;
    GPUSCHED_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    const sim::LaunchPriorities lp = sim::launch_priorities(predicted, least, greatest);
    priorities = lp.priority;
    fmt::print("stream priorities for {}: {} levels needed, {} on this GPU ({} to {}){}\n", a.policy, lp.levels_needed,
               lp.levels_given, least, greatest,
               lp.clamped ? fmt::format("; {} launches clamped at {}", lp.clamped, greatest) : std::string());
  }

  auto suite = bind_suite(w, a.seed);
  std::vector<TimeNs> alone_of_kernel;
  for (std::size_t k = 0; k < w.kernels.size(); ++k) {
    auto& sk = *suite.kernels[k];
    alone_of_kernel.push_back(time_alone(sk, sk.shape(suite.sizes[k]), a.alone_repeats, a.timeout_s));
    // The trace was recorded on some GPU on some day: its span against this GPU's time now tells how much of the
    // error below is the recording's age or machine rather than the model.
    const RecordSet* set = w.kernels[k]->primary_records();
    const TimeNs span = set ? set->span : 0;
    fmt::print("alone: {:<18} now {:>12} (plain launch, CUDA events, median of {}), recorded span {:>12} ({:+.1f}%)\n",
               w.kernels[k]->name, format_duration(alone_of_kernel.back()), a.alone_repeats, format_duration(span),
               span > 0 ? 100.0 * static_cast<double>(alone_of_kernel.back() - span) / static_cast<double>(span) : 0.0);
  }
  std::vector<TimeNs> alone(w.launches.size());
  std::vector<NativeLaunch> launches(w.launches.size());
  for (std::size_t i = 0; i < w.launches.size(); ++i) {
    const auto k = w.launches[i].kernel;
    alone[i] = alone_of_kernel[k];
    launches[i].kernel = suite.kernels[k].get();
    launches[i].shape = suite.kernels[k]->shape(suite.sizes[k]);
  }

  std::optional<store::Store> db;
  if (!a.db.empty()) db.emplace(store::Store::open(a.db));
  const std::string workload_hash = workload_content_hash(w);
  std::vector<std::string> rows;
  fmt::print("\n{:<22} {:>6} {:>10} {:>9} {:>9} {:>12} {:>12} {:>9} {:>7}\n", "prediction", "repeat", "|turn| med",
             "p90", "max", "measured", "predicted", "mk err", "blk KS");
  for (int r = 1; r <= a.repeats; ++r) {
    auto info = sim::describe_sim_run(w, workload_hash, gpu, o);
    info.workload_file = a.workload;
    info.started_at = store::utc_now_iso8601();
    NativeRunOptions no;
    no.timeout_s = a.timeout_s;
    no.priorities = priorities;
    no.lead_in_ns = static_cast<TimeNs>(a.lead_in_us * 1000.0);
    NativeExecution ex = run_native(w, launches, no);
    RunResult measured = measured_run(w, gpu, std::move(ex.schedule), alone, predicted);
    measured.policy = "native";
    if (r == 1 && !a.timeline.empty()) {
      sim::write_timeline(a.timeline, measured.schedule, w, gpu);
      const auto dot = a.timeline.rfind('.');
      sim::write_timeline(a.timeline.substr(0, dot) + ".predicted" + a.timeline.substr(dot), predicted.schedule, w,
                          gpu);
    }
    const auto e = prediction_errors(w, measured, predicted);
    const auto eb = prediction_errors(w, measured, before);
    print_errors("slot + timing (now)", r, e, measured.metrics.makespan, predicted.metrics.makespan);
    print_errors("raw, untimed (before)", r, eb, measured.metrics.makespan, before.metrics.makespan);
    fmt::print("  host issue lag at most {}, clocks lined up within {}\n", format_duration(ex.max_issue_lag),
               format_duration(ex.clock_uncertainty));
    if (!ex.call_ns.empty()) {
      std::vector<TimeNs> calls = ex.call_ns;
      std::sort(calls.begin(), calls.end());
      fmt::print("  launch calls on the host took {} (the first), {} (median), {} (longest)\n",
                 format_duration(ex.call_ns.front()), format_duration(calls[calls.size() / 2]),
                 format_duration(calls.back()));
    }
    // Per launch, beside the turnarounds: when its first block started after the host's call (measured) and after
    // its arrival (predicted), which shows the front end's latency where the GPU was idle at the call.
    if (a.per_launch)
      for (std::size_t i = 0; i < w.launches.size(); ++i)
        fmt::print(
            "  {:<20} measured {:>12} predicted {:>12} before {:>12}  first block {:>10} after the call, "
            "{:>10} after arrival (predicted {:>10})\n",
            w.launches[i].id, format_duration(measured.launches[i].turnaround),
            format_duration(predicted.launches[i].turnaround), format_duration(before.launches[i].turnaround),
            format_duration(measured.launches[i].first_dispatch - ex.called[i]),
            format_duration(measured.launches[i].first_dispatch - w.launches[i].arrival),
            format_duration(predicted.launches[i].first_dispatch - w.launches[i].arrival));
    rows.push_back(native_csv_row(w.name, gpu.name, a.policy, r, e));
    if (db) {
      info.finished_at = store::utc_now_iso8601();
      auto predicted_record = store::make_run_record(info, w, RunResult(predicted), true);
      const auto predicted_id = db->write_run(predicted_record);
      auto live_info = info;
      live_info.mode = "live";
      // Labelled apart from an execution of the same prediction through the executor (validate).
      live_info.policy = info.policy + " (native)";
      live_info.host = store::host_name();
      live_info.events = 0;
      live_info.key = store::make_run_key(live_info, live_info.host + " native " + info.started_at);
      auto live_record = store::make_run_record(live_info, w, std::move(measured), true);
      db->write_run(live_record, nullptr, {}, predicted_id);
    }
  }
  if (!a.csv.empty()) {
    append_csv_rows(a.csv, kNativeCsvHeader, rows);
    fmt::print("{} rows appended to {}\n", rows.size(), a.csv);
  }
  fmt::print(
      "errors: |measured - predicted| / measured, per launch (turnaround) and for the makespan; blk KS: "
      "Kolmogorov-Smirnov statistic of block times (stamps' end - start on both sides)\n");
  return 0;
}

}  // namespace

void add_native_command(CLI::App& app, int& result) {
  auto a = std::make_shared<NativeArgs>();
  auto* cmd = app.add_subcommand("native",
                                 "Run a workload as plain CUDA launches at their arrival times (the hardware's own "
                                 "schedule), stamped, against the fifo prediction (or sjf's or knapsack's, through "
                                 "stream priorities)");
  cmd->add_option("--workload,-w", a->workload, "Workload file (its kernels recorded by gpusched-live record)")
      ->required();
  cmd->add_option("--gpu", a->gpu,
                  "GPU preset or file for the prediction (e.g. a calibration) instead of the workload's");
  cmd->add_option(
      "--interference", a->interference,
      "Interference model of the prediction (auto: equivalent where the kernels' profiles have fitted weights, "
      "with gpu_wide=on where they also have the GPU-wide fit, else age where they have co-run records, else none)");
  cmd->add_option("--policy,-p", a->policy,
                  "Policy of the prediction: fifo (launched in arrival order), or sjf or knapsack (plans that only "
                  "order whole launches, carried out through CUDA stream priorities)")
      ->check(CLI::IsMember({"fifo", "sjf", "knapsack"}));
  cmd->add_option("--repeats", a->repeats, "Native runs (each compared)")->check(CLI::Range(1, 100));
  cmd->add_option("--alone-repeats", a->alone_repeats, "Launches timed for each kernel's time alone (median)");
  cmd->add_option("--db", a->db, "Result store the predicted and measured runs go to");
  cmd->add_option("--csv", a->csv, "Append one row per repeat (docs/validation/native.csv's columns)");
  cmd->add_option("--seed", a->seed, "Seed of the simulation and of the kernels' inputs");
  cmd->add_option("--timeout", a->timeout_s, "Watchdog: seconds a run may take");
  cmd->add_option("--timeline", a->timeline,
                  "Write the first repeat's measured Schedule here (.json for Perfetto, else CSV) and the prediction's "
                  "beside it (FILE.predicted.ext)");
  cmd->add_flag("--per-launch", a->per_launch,
                "Print every launch's measured and predicted turnaround, and when its first block started");
  cmd->add_option("--lead-in", a->lead_in_us,
                  "Microseconds the host waits between lining up the clocks and the run's t = 0")
      ->check(CLI::Range(0.0, 1e6));
  cmd->callback([a, &result] { result = native_command(*a); });
}

}  // namespace gpusched::live
