// gpusched-live validate: predict a workload under each policy and interference model, carry the prediction out
// on the GPU with the executor, store both (the live run linked to its prediction) and report how far apart they
// are (docs/validation.md).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/atomic_file.h"
#include "core/content_hash.h"
#include "core/dependency_order.h"
#include "core/duration_format.h"
#include "core/name_list.h"
#include "core/prediction_errors.h"
#include "core/store/run_comparison.h"
#include "core/store/store.h"
#include "live/commands.h"
#include "live/cuda_check.h"
#include "live/device_spec.h"
#include "live/executor/executor.h"
#include "live/executor/fused_executor.h"
#include "live/executor/fused_plan.h"
#include "live/executor/green_contexts.h"
#include "live/executor/green_cover.h"
#include "live/executor/measured_run.h"
#include "live/executor/piece_parts.h"
#include "live/executor/plan.h"
#include "live/executor/plan_adherence.h"
#include "live/executor/timeshare_executor.h"
#include "live/suite_binding.h"
#include "live/timing/native_run.h"
#include "live/workload_loading.h"
#include "sim/duration_model.h"
#include "sim/launch_priorities.h"
#include "sim/part_contexts.h"
#include "sim/part_starts.h"
#include "sim/parts_replay.h"
#include "sim/piece_parts_replay.h"
#include "sim/planned_parts.h"
#include "sim/registry.h"
#include "sim/run_identity.h"
#include "sim/runner.h"
#include "sim/sm_pairs.h"

namespace gpusched::live {

namespace {

// --executor auto launches a plan's parts ahead behind gates (--gate-parts) when it has more than this many parts a
// millisecond of the plan, on average: more than the host issues in time with a launch call each (5-8 us on an H100;
// docs/validation.md, "Partitions on green contexts").
constexpr double kAutoPartsPerMs = 50;
// --executor auto carries out a plan that stops and resumes blocks in parts (as --green-parts does) up to this many
// parts a millisecond, and with the fused worker beyond. Until session 37 it was 150: chimera's bursts-h100 plan
// (206 parts a millisecond) ran 79 % off in parts against the fused worker's 59 %, because an event recorded behind
// every part held up the parts queued after it; without those events (run_native's counted parts) the same plan runs
// 31-37 % off in gated parts (docs/validation.md, "Events behind parts"). Beyond twice that plan's rate, where no plan
// has been measured, the fused worker stays.
constexpr double kAutoPiecePartsPerMs = 400;

struct ValidateArgs {
  std::string workload, gpu, db, policies = "all";
  std::vector<std::string> sets;  // --set POLICY.PARAM=VALUE
  // none by default: carried-out plans of policies that co-run launches for long (mpmax) are predicted worse with
  // age (docs/validation.md, "Fused workers"); auto picks age as sim and native do.
  std::vector<std::string> models{"none"};
  std::uint64_t seed = 1;
  double timeout_s = 60;
  int alone_repeats = 11;
  int entries_per_worker = ExecutorOptions{}.entries_per_worker;
  bool per_launch = false, any_gpu = false, no_green_contexts = false, plan_placement = false, no_lanes = false,
       in_order_starts = false, green_samples = false, green_parts = false, gate_parts = false, capped_parts = false,
       part_priorities = false, cut_at_residency = false;
  std::string part_stops = "planned-end";  // parts of pieces: a stopped piece stops at its planned end, or budget
  std::string held_cut = "merged";  // parts held to the plan's blocks an SM: cut as every way (merged) or at residency
  int shared_carveout = -1;         // every kernel's preferred shared-memory carveout (percent; -1: the driver's)
  int part_context_groups = 1;      // parts' green contexts: whole aligned runs of this many SM groups
  // Parts' green contexts: every group of their SMs (cover), one part a group (claimed), or by the replays (auto;
  // the default since session 59: docs/validation.md, "Green contexts in the parts replay").
  std::string part_context = "auto";
  bool ways_in_contexts = false;      // auto's way chosen on replays in the parts' green contexts, not their SMs
  double part_merge_us = 10;          // parts of pieces: a part within this of its launch's part before joins it
  std::string sm_numbers = "paired";  // paired: plan SMs renumbered onto the green-context groups; plan: as planned
  std::string sample_gate = "all";  // --green-samples: the rest of a launch waits for all its sample blocks or block 0
  std::string sample_parts = "greatest";        // parts of pieces holding only a planned sample: greatest or launch
  std::string parts_after_hand_over = "apart";  // parts of pieces after their SMs went to another launch: apart, merged
  std::string inject_fault;
  std::string csv;                 // executor.csv rows go here
  std::string entries_csv;         // plans in parts of pieces: every worker's stamps (entry_rows.h)
  int repeat = 1;                  // the rows' repeat column
  double max_hand_off_p99_us = 0;  // > 0: fail when an execution's hand-off delay p99 exceeds it
  double max_start_delay_us = 0;   // > 0: fail when a launch's first block starts later than planned by more
  double regrid_wait_us = static_cast<double>(ExecutorOptions{}.regrid_wait_ns) / 1e3;
  int streams_per_launch = ExecutorOptions{}.streams_per_launch;
  std::string executor = "auto";        // auto, blocks, native, fused
  std::string parts_choice = "starts";  // auto's choice of a way to carry out parts: sim::PartsChoice
  // auto, a plan in parts: a way's replay makespan within this % of the plan's (sim::choose_parts_way)
  double parts_makespan_bound = sim::kPartsMakespanBoundPct;
};

// "[key=value,...]" for a policy run with --set parameters (the CSV's policy column tells them apart), else "".
std::string params_label(const std::map<std::string, std::string>& params) {
  if (params.empty()) return "";
  std::string s = "[";
  for (const auto& [k, v] : params) s += (s.size() > 1 ? "," : "") + k + "=" + v;
  return s + "]";
}

// --part-context auto: the plan's parts replayed (`replay`) in cover and in claimed contexts, and claimed taken only
// where its p90 turnaround error is a point or more lower, since it narrows parts and the replay of the narrowing is
// not yet checked on many plans. Sets `context` and the report's line (`what`: the parts, as the line names them;
// `manner`: how they were replayed, after "in their green contexts").
template <class Replay>
void choose_part_context(const Replay& replay, const std::string& what, const std::string& manner,
                         sim::PartContext& context, std::string& line) {
  std::array<double, 2> p90{}, median{};
  for (const auto how : {sim::PartContext::Cover, sim::PartContext::Claimed}) {
    const sim::PriorityReplay r = replay(how);
    const auto k = static_cast<std::size_t>(how == sim::PartContext::Claimed);
    median[k] = sim::nearest_rank_pct(r.turnaround_err_pct, 0.5);
    p90[k] = sim::nearest_rank_pct(r.turnaround_err_pct, 0.9);
  }
  context = p90[1] <= p90[0] - 1.0 ? sim::PartContext::Claimed : sim::PartContext::Cover;
  line = fmt::format(
      "{} replayed in their green contexts{} (median / p90 of the turnarounds): cover {:.1f} / {:.1f} %, "
      "claimed {:.1f} / {:.1f} %: {}",
      what, manner, median[0], p90[0], median[1], p90[1], sim::part_context_name(context));
}

// How a plan that stops and resumes blocks is cut in parts (--part-merge-us, --parts-after-hand-over).
sim::PieceCut piece_cut_how(const ValidateArgs& a) {
  return {.merge_within = static_cast<TimeNs>(std::llround(a.part_merge_us * 1e3)),
          .apart_after_hand_over = a.parts_after_hand_over == "apart"};
}

// Plans that only order whole launches (a freed slot goes to some launch's next block; no running block is stopped,
// no SM is kept from a launch): the hardware's own dispatch carries them out, fifo in launch order, the others
// through stream priorities (launch_priorities.h).
bool orders_whole_launches(const std::string& policy) {
  return policy == "fifo" || policy == "sjf" || policy == "knapsack";
}

std::vector<std::string> model_names(const std::vector<std::string>& asked, const Workload& w) {
  std::vector<std::string> out;
  for (const auto& m : asked) {
    if (m == "all") {
      for (const auto* info : sim::Registry<sim::DurationModel>::instance().all()) out.push_back(info->name);
    } else {
      out.push_back(sim::resolve_interference(m, w));  // auto: equivalent[:gpu_wide=on], age or none (sim/runner.h)
    }
  }
  return out;
}

std::string pct(double x) {
  return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "inf";
}

// Time a schedule's launches spent in each time-sharing state (summed over launches).
struct PhaseTime {
  TimeNs restore = 0, running = 0, save = 0;
};
PhaseTime phase_time(const Schedule& s) {
  PhaseTime t;
  for (const auto& p : s.phases) {
    const TimeNs d = p.end - p.start;
    if (p.state == PhaseState::RestoreState) t.restore += d;
    if (p.state == PhaseState::Running) t.running += d;
    if (p.state == PhaseState::SaveState) t.save += d;
  }
  return t;
}

constexpr const char* kExecutorCsvColumns = ",start_delay_median_us,start_delay_p99_us";

// The plan's adherence: hand-off delays, and each launch's turnaround error split into the executor's part, the
// model's, the releases' and the plan's order (medians over launches, in % of the predicted turnaround).
void print_adherence(const PlanAdherence& x, const store::RunRecord& predicted,
                     const std::vector<std::int32_t>& worker_of_plan_piece,
                     const std::vector<std::int64_t>& ready_latency_of_plan_piece) {
  std::vector<double> executor, body, model, release, order;
  for (std::size_t l = 0; l < x.launches.size(); ++l) {
    const double t = static_cast<double>(std::max<TimeNs>(1, predicted.launches[l].outcome.turnaround)) / 100.0;
    executor.push_back(static_cast<double>(x.launches[l].executor) / t);
    body.push_back(static_cast<double>(x.launches[l].body) / t);
    model.push_back(static_cast<double>(x.launches[l].model) / t);
    release.push_back(static_cast<double>(x.launches[l].release) / t);
    order.push_back(static_cast<double>(x.launches[l].order) / t);
  }
  // Hand-offs within a launch (its own worker takes the next entry) against hand-offs between launches (another
  // launch's worker, maybe a new grid, takes the slot).
  std::vector<double> same, other;
  for (const auto& p : x.pieces) {
    if (p.moved || p.hand_off < 0) continue;
    const bool within = predicted.schedule.pieces[static_cast<std::size_t>(p.hand_off)].launch ==
                        predicted.schedule.pieces[p.plan_piece].launch;
    (within ? same : other).push_back(static_cast<double>(p.hand_off_delay) / 1e3);
  }
  fmt::print(
      "  hand-offs within a launch: {} (median {:.1f} us, p99 {:.1f} us); between launches: {} (median {:.1f} "
      "us, p99 {:.1f} us)\n",
      same.size(), nearest_rank(same, 0.5), nearest_rank(same, 0.99), other.size(), nearest_rank(other, 0.5),
      nearest_rank(other, 0.99));
  if (!worker_of_plan_piece.empty()) {
    // The fused worker: who took the slot, and whether its entry was ready when taken.
    const HandOffSplit h = split_hand_offs(x, worker_of_plan_piece);
    const auto part = [](const char* what, const std::vector<double>& d) {
      return fmt::format("{} {} (median {:.1f} us, p99 {:.1f} us)", what, d.size(), nearest_rank(d, 0.5),
                         nearest_rank(d, 0.99));
    };
    fmt::print("  hand-offs by worker: {}; {}; {}; {}\n", part("same worker, entry ready when taken", h.same_ready_us),
               part("same worker, waited", h.same_waited_us), part("another worker", h.other_us),
               part("a fresh worker's first piece", h.other_fresh_us));
    // The executor's reaction time: start after the entry's own conditions held (whichever pieces ended first).
    std::vector<double> ready, waited, all;
    for (std::size_t p = 0; p < ready_latency_of_plan_piece.size() && p < worker_of_plan_piece.size(); ++p) {
      if (ready_latency_of_plan_piece[p] == kNoLatency) continue;
      const double us = static_cast<double>(ready_latency_of_plan_piece[p]) / 1e3;
      all.push_back(us);
      (decode_entry_worker(worker_of_plan_piece[p]).waited ? waited : ready).push_back(us);
    }
    fmt::print("  start after the entry's conditions held: {}; {}; {}\n", part("every piece", all),
               part("ready when taken", ready), part("waited for", waited));
  }
  fmt::print(
      "  plan adherence: hand-off delay median {:.1f} us, p99 {:.1f} us over {} pieces on their planned SM ({} "
      "placed elsewhere; start - planned start median {:.1f} us); turnaround error, median over launches: executor "
      "{:+.1f}%, body {:+.1f}%, model {:+.1f}%, release {:+.1f}%, order {:+.1f}%\n",
      x.hand_off_delay_median_us, x.hand_off_delay_p99_us, x.pieces.size() - x.moved, x.moved, x.start_offset_median_us,
      nearest_rank(executor, 0.5), nearest_rank(body, 0.5), nearest_rank(model, 0.5), nearest_rank(release, 0.5),
      nearest_rank(order, 0.5));
}

// The launches' ids by finish, earliest first (ties by index).
std::string finish_order(const std::vector<LaunchOutcome>& launches, const Workload& w) {
  std::vector<std::size_t> order(launches.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return launches[x].finish < launches[y].finish; });
  std::string out;
  for (const std::size_t i : order) {
    if (!out.empty()) out += ", ";
    out += w.launches[i].id;
  }
  return out;
}

int validate_command(const ValidateArgs& a) {
  const auto loaded = load_one_gpu_workload(a.workload, a.gpu, "the executor drives");
  const Workload& w = loaded.workload;
  const GpuSpec& gpu = loaded.gpu;
  const auto policies = a.policies == "all" ? sim::all_policy_names() : split_name_list(a.policies);
  const auto models = model_names(a.models, w);
  // Bad names fail before the GPU is touched.
  for (const auto& p : policies)
    if (!sim::Registry<sim::Policy>::instance().find(p))
      throw std::invalid_argument(fmt::format("--policy: unknown policy '{}' (policies: {})", p,
                                              sim::Registry<sim::Policy>::instance().names()));
  const auto policy_params = sim::parse_policy_sets(a.sets, policies, a.policies);
  for (const auto& m : models)
    if (!sim::Registry<sim::DurationModel>::instance().find(m.substr(0, m.find(':'))))  // "name:key=value,..."
      throw std::invalid_argument(fmt::format("--interference: unknown model '{}' (models: {})", m,
                                              sim::Registry<sim::DurationModel>::instance().names()));
  // --executor native runs a plan through the hardware's own dispatch: fifo, sjf and knapsack exactly, any other plan
  // whose blocks each run in one piece as the dispatcher replays it (sim/launch_priorities.h). Plans that stop and
  // resume blocks are refused before the GPU is touched (predicting is cheap).
  if (a.green_samples && a.executor != "native")
    throw std::invalid_argument(
        "--green-samples: only with --executor native (samples in a plan carried out by "
        "the hardware's dispatch)");
  if (a.sample_gate != "all" && !a.green_samples)
    throw std::invalid_argument("--sample-gate: only with --green-samples");
  if (a.green_samples && a.no_green_contexts)
    throw std::invalid_argument("--green-samples needs green contexts; it cannot go with --no-green-contexts");
  if (a.green_parts && a.executor != "native")
    throw std::invalid_argument(
        "--green-parts: only with --executor native (a plan's partitions carried out by the hardware's dispatch in "
        "green contexts)");
  if (a.gate_parts && a.executor != "native" && a.executor != "auto")
    throw std::invalid_argument("--gate-parts: only with --executor native or auto (plans carried out in parts)");
  if ((a.capped_parts || a.part_priorities) && a.executor != "native" && a.executor != "auto")
    throw std::invalid_argument(fmt::format("{}: only with --executor native or auto (plans carried out in parts)",
                                            a.capped_parts ? "--capped-parts" : "--part-priorities"));
  if (a.green_parts && a.green_samples)
    throw std::invalid_argument("--green-parts and --green-samples cannot go together");
  if (a.green_parts && a.no_green_contexts)
    throw std::invalid_argument("--green-parts needs green contexts; it cannot go with --no-green-contexts");
  // The plans predicted here are kept for the executions below (same options, so the same plans).
  std::map<std::pair<std::string, std::string>, RunResult> prechecked;  // (model, policy)
  sim::AloneTimeCache alone_cache;
  if (a.executor == "native")
    for (const auto& m : models)
      for (const auto& p : policies) {
        if (orders_whole_launches(p)) continue;
        sim::RunOptions o;
        o.policy = p;
        if (const auto it = policy_params.find(p); it != policy_params.end()) o.policy_params = it->second;
        o.interference = m;
        o.seed = a.seed;
        RunResult plan = sim::run_workload(w, gpu, o, alone_cache);
        // Blocks stopped and resumed: only in parts (--green-parts), each part a grid of one worker per piece.
        if (is_time_shared(plan.schedule) || (!sim::runs_blocks_whole(plan) && !a.green_parts))
          throw std::invalid_argument(fmt::format(
              "--executor native: {}'s plan (interference {}) {}, which the hardware's dispatch cannot do", p, m,
              is_time_shared(plan.schedule) ? "swaps launches in and out" : "stops and resumes blocks"));
        prechecked.emplace(std::make_pair(m, p), std::move(plan));
      }
  const auto devices = list_devices();
  const auto& dev = devices.front();
  if (dev.spec.sm_count != gpu.sm_count || (!a.any_gpu && (!dev.preset || dev.preset->name != gpu.name)))
    throw std::invalid_argument(fmt::format(
        "the workload is for {} ({} SMs), but the GPU is {} ({} SMs, preset {}); record the workload's kernels on "
        "this GPU (gpusched-live record) or pass --any-gpu when the SM counts agree",
        gpu.name, gpu.sm_count, dev.name, dev.spec.sm_count, dev.preset ? dev.preset->name : "none"));
  // Opened once a GPU that can run the workload is there: a run that cannot start leaves no empty store behind.
  auto db = store::Store::open(a.db);

  auto suite = bind_suite(w, a.seed);
  // One carveout for every kernel (--shared-carveout), before anything runs, the times alone too.
  if (a.shared_carveout >= 0)
    for (auto& k : suite.kernels) k->prefer_shared_carveout(a.shared_carveout);
  // Each kernel's time alone on this GPU: the live runs' STP and ANTT are computed from these.
  std::vector<TimeNs> alone_of_kernel;
  for (std::size_t k = 0; k < w.kernels.size(); ++k) {
    auto& sk = *suite.kernels[k];
    alone_of_kernel.push_back(time_alone(sk, sk.shape(suite.sizes[k]), a.alone_repeats, a.timeout_s));
    fmt::print("alone: {:<16} {} (median of {} launches)\n", w.kernels[k]->name,
               format_duration(alone_of_kernel.back()), a.alone_repeats);
  }
  std::vector<TimeNs> alone(w.launches.size());
  std::vector<ExecLaunch> exec(w.launches.size());
  std::vector<NativeLaunch> native_launches(w.launches.size());
  for (std::size_t i = 0; i < w.launches.size(); ++i) {
    const auto& l = w.launches[i];
    alone[i] = alone_of_kernel[l.kernel];
    native_launches[i].kernel = suite.kernels[l.kernel].get();
    native_launches[i].shape = suite.kernels[l.kernel]->shape(suite.sizes[l.kernel]);
    exec[i].kernel = suite.kernels[l.kernel].get();
    exec[i].threads = w.kernels[l.kernel]->threads_per_block();
    exec[i].blocks = w.kernels[l.kernel]->block_count();
    exec[i].arrival = l.arrival;
    exec[i].predecessors = w.dag.predecessors(i);
    exec[i].id = l.id;
  }

  // The fused worker carries out every plan but time-sharing's by default (auto), where it can run every kernel.
  const std::string fused_refused = fused_refusal(exec);
  if (a.executor == "fused" && !fused_refused.empty())
    throw std::invalid_argument("--executor fused: the fused worker cannot run this workload: " + fused_refused);

  // Time-sharing plans swap each launch's state: every launch gets its own instance of its kernel (its own
  // buffers), set up the first time a time-sharing plan is executed.
  std::vector<std::unique_ptr<SuiteKernel>> own_kernels;
  auto own_launches = [&] {
    if (own_kernels.empty())
      for (const auto& l : w.launches) {
        own_kernels.push_back(make_suite_kernel(suite.kernels[l.kernel]->name()));
        own_kernels.back()->setup(suite.sizes[l.kernel], a.seed);
      }
    auto out = exec;
    for (std::size_t i = 0; i < out.size(); ++i) out[i].kernel = own_kernels[i].get();
    return out;
  };

  // Green contexts for the launches a plan keeps to part of the GPU; without them (disabled, or a driver that has
  // none) the partitions are kept by the queues and quotas alone.
  std::unique_ptr<GreenPartitions> green;
  if (!a.no_green_contexts) {
    try {
      green = std::make_unique<GreenPartitions>(0);
      fmt::print(
          "green contexts: {} groups of SMs ({} SMs the smallest)\n", green->group_sms().size(),
          std::min_element(green->group_sms().begin(), green->group_sms().end(), [](const auto& x, const auto& y) {
            return x.size() < y.size();
          })->size());
      fmt::print("green contexts' layout: {}\n", describe_groups(green->group_sms()));
    } catch (const LiveError& e) {
      fmt::print("green contexts not used ({}): partitions are kept by the executor's queues alone\n", e.what());
    }
  }

  const std::string workload_hash = workload_content_hash(w);
  ExecutorOptions eo;
  eo.timeout_s = a.timeout_s;
  eo.green = green.get();
  eo.entries_per_worker = a.entries_per_worker;
  eo.regrid_wait_ns = static_cast<TimeNs>(std::llround(a.regrid_wait_us * 1e3));
  eo.streams_per_launch = a.streams_per_launch;
  eo.hardware_placement = !a.plan_placement;
  eo.lanes = !a.no_lanes;
  eo.in_order_starts = a.in_order_starts;
  fmt::print("\n{:<16} {:<14} {:>5} {:>5} {:>11} {:>11} {:>9} {:>8} {:>8} {:>9} {:>7} {:>6}\n", "policy",
             "interference", "pred", "live", "makespan", "measured", "mk err", "STP err", "ANTT err", "|turn err|",
             "blk KS", "grids");
  int executions = 0;
  std::set<std::string> notes;
  std::vector<std::string> csv_rows;
  std::vector<std::string> entry_rows;  // --entries-csv
  std::size_t entries_executions = 0;   // executions in parts of pieces that wrote them
  bool exceeded = false;
  // The plan's wait before each piece's first stamp (slot occupancy - the block's raw time, as the recording had it).
  // The fused worker's body speed per kernel, alone: each kernel's launch run alone (arrival 0, fifo, interference
  // none) and carried out by the fused worker, executed / planned piece time (body_speed_factor). Measured once, at
  // the first fused execution; the decomposition takes it out of the model's share.
  std::optional<std::vector<double>> fused_body_of_kernel;
  const auto fused_body_factors = [&]() -> const std::vector<double>& {
    if (fused_body_of_kernel) return *fused_body_of_kernel;
    fused_body_of_kernel.emplace(w.kernels.size(), 1.0);
    ExecutorOptions alone_eo = eo;
    alone_eo.inject_fault.clear();  // --inject-fault is for the plans' executions
    std::string line;
    for (std::size_t k = 0; k < w.kernels.size(); ++k) {
      const auto it =
          std::find_if(w.launches.begin(), w.launches.end(), [&](const Launch& l) { return l.kernel == k; });
      if (it == w.launches.end()) continue;
      Launch one = *it;
      one.arrival = 0;
      one.after.clear();
      one.stream.clear();
      const Workload alone_w = make_workload(w.name + "-" + w.kernels[k]->name + "-alone", w.kernels, {one});
      sim::RunOptions ao;
      ao.policy = "fifo";
      ao.interference = "none";
      ao.seed = a.seed;
      const RunResult planned = sim::run_workload(alone_w, gpu, ao, alone_cache);
      ExecLaunch el = exec[static_cast<std::size_t>(it - w.launches.begin())];
      el.arrival = 0;
      el.predecessors.clear();
      const ExecutionResult run =
          execute_fused_plan(build_fused_plan(planned.schedule, 1, gpu.sm_count), {el}, alone_eo);
      RunResult executed;
      executed.schedule = run.schedule;
      (*fused_body_of_kernel)[k] =
          body_speed_factor(planned, executed, run.plan_piece, planned_waits(alone_w, planned));
      line += fmt::format("{}{} {:.3f}", line.empty() ? "" : ", ", w.kernels[k]->name, (*fused_body_of_kernel)[k]);
    }
    fmt::print("fused worker's body speed, each kernel alone (executed / planned piece time): {}\n", line);
    return *fused_body_of_kernel;
  };

  for (const auto& model : models) {
    for (const auto& policy : policies) {
      sim::RunOptions o;
      o.policy = policy;
      if (const auto it = policy_params.find(policy); it != policy_params.end()) o.policy_params = it->second;
      o.interference = model;
      o.seed = a.seed;
      auto info = sim::describe_sim_run(w, workload_hash, gpu, o);
      info.workload_file = a.workload;
      info.started_at = store::utc_now_iso8601();
      const auto kept = prechecked.find({model, policy});
      RunResult predicted =
          kept != prechecked.end() ? std::move(kept->second) : sim::run_workload(w, gpu, o, alone_cache);
      info.finished_at = store::utc_now_iso8601();
      const bool time_shared = is_time_shared(predicted.schedule);
      // The plan's SMs are interchangeable: numbered onto the GPU's so that the SMs sharing a green-context group are
      // those that let confined work spill least (docs/validation.md, "SMs paired for green contexts"). Everything
      // after this, the plan stored included, is in the GPU's numbers.
      std::optional<sim::SmPairing> sm_pairing;
      if (green && a.sm_numbers == "paired" && !time_shared)
        sm_pairing = sim::pair_sms_onto_groups(predicted, green->group_sms(), gpu.sm_count, piece_cut_how(a));
      const auto plan =
          time_shared ? ExecutionPlan{} : build_execution_plan(predicted.schedule, w.launches.size(), gpu.sm_count);
      const auto steps =
          time_shared ? build_timeshare_steps(predicted.schedule, w.launches.size()) : std::vector<TimeshareStep>{};

      auto live_info = info;
      live_info.mode = "live";
      live_info.started_at = store::utc_now_iso8601();
      // Beyond fifo, sjf and knapsack, auto lets the hardware carry out a plan whose every block runs in one piece
      // when the dispatcher, given the plan's stream priorities, replays it within the issue's bound in simulation
      // (`gpusched as-priorities` prints the same); --executor native does so whatever the replay.
      // A plan in which one launch has the GPU to itself stays with the blocks executor, which leaves its placement to
      // the hardware (plan.h, hardware_placed): nothing for workers to hand off, nothing to order.
      const bool one_launch = !time_shared && std::count_if(plan.launches.begin(), plan.launches.end(),
                                                            [](const auto& q) { return !q.entries.empty(); }) <= 1;
      std::optional<sim::PriorityReplay> replay;
      const bool blocks_whole = !time_shared && sim::runs_blocks_whole(predicted);
      int prio_least = 0, prio_greatest = 0;  // CUDA's: lower numbers first
      GPUSCHED_CUDA(cudaDeviceGetStreamPriorityRange(&prio_least, &prio_greatest));
      if (!time_shared && !one_launch && !orders_whole_launches(policy) &&
          (a.executor == "native" || a.executor == "auto") && blocks_whole)
        replay = sim::replay_as_priorities(w, gpu, predicted, o, prio_least - prio_greatest + 1, alone_cache);
      const bool replayed = replay && sim::replay_within(*replay);
      // Beyond those, auto cuts a plan whose blocks each run in one piece where its SM partition changes and lets the
      // hardware carry the parts out in green contexts of their planned SMs (as --green-parts does); beyond
      // kAutoPartsPerMs parts a millisecond of the plan, more than the host issues in time, they are launched ahead
      // behind gates the host raises (as --gate-parts does; docs/validation.md, "Partitions on green contexts").
      std::vector<std::vector<sim::PlannedPart>> cut;
      std::optional<sim::PriorityReplay> parts_replay;  // the parts replayed as they are carried out
      sim::PartsReplayOptions parts_variant;            // how: held to the plan's blocks an SM, priorities per part
      std::string parts_variants;                       // auto's comparison of the ways, for the report
      std::vector<double> parts_start_delays_foreseen;  // the replay's part start delays (us), of the way carried out
      bool in_parts = false, gate_parts = false;
      bool residency_cut = a.cut_at_residency;  // the cut carried out keeps parts apart where the residency changes
      std::string parts_fused;  // auto: why a plan cut in parts went to the fused worker instead, for the report
      // The parts' green contexts: --part-context, or under its auto the one whose replay comes closer to the plan
      // (the report says both replays).
      sim::PartContext part_context = a.part_context == "claimed" ? sim::PartContext::Claimed : sim::PartContext::Cover;
      std::string context_choice;  // --part-context auto: the replays in either context and the choice, for the report
      if (green && !time_shared && !one_launch && !orders_whole_launches(policy) && blocks_whole &&
          (a.green_parts || (a.executor == "auto" && !replayed))) {
        cut = sim::planned_parts(predicted, a.cut_at_residency);
        std::size_t parts = 0;
        for (const auto& c : cut) parts += c.size();
        const bool every_launch = sim::every_launch_has_parts(cut);
        const double plan_ms = static_cast<double>(std::max<TimeNs>(1, predicted.metrics.makespan)) / 1e6;
        in_parts = a.green_parts || (every_launch && parts > 0);
        // What the hardware makes of the parts, in simulation: where it differs from the plan (a plan that holds a
        // launch below what its SM has room for beside other launches' blocks), the execution will too
        // (docs/validation.md, "What the hardware makes of a plan in parts").
        // The way asked for: --capped-parts and --part-priorities hold for every plan carried out in parts; auto
        // below replaces it only where neither was asked for (31d52b0 had dropped this, and the two flags did nothing
        // for plans of whole blocks from session 46 to 54: docs/validation.md, "Held parts that were not held").
        parts_variant = sim::PartsReplayOptions{.capped = a.capped_parts, .part_priorities = a.part_priorities};
        // --ways-in-contexts: every replay below confines each part to the SMs of its green context (cover, or
        // claimed under --part-context claimed), not its planned SMs (docs/validation.md, "Green contexts in the parts
        // replay"); empty, the planned SMs.
        const auto ways_context_sms = [&](const std::vector<std::vector<sim::PlannedPart>>& parts_cut) {
          if (!a.ways_in_contexts) return std::vector<std::vector<int>>{};
          return sim::part_context_sms(
              green->group_sms(), sim::part_spans(predicted, parts_cut),
              a.part_context == "claimed" ? sim::PartContext::Claimed : sim::PartContext::Cover);
        };
        if (in_parts && every_launch) {
          const int levels = prio_least - prio_greatest + 1;
          // auto carries the parts out at their launches' priorities where the replay of that is within the bound;
          // elsewhere the first of the other ways whose replay is: held to the plan's blocks an SM, each part at a
          // priority of its own, both (docs/validation.md, "Parts at priorities of their own"). Not the lowest p90:
          // live-h100's mpmax plan replays closer held but runs further from its plan on the GPU, and validate-h100's
          // replays closest with both but runs 40 % long so (the parts short of priority levels). Under
          // --parts-choice starts, a later way within the bound whose replay foresees start delays of less than half
          // the p99 of that one's (sim::choose_parts_way; docs/validation.md, "Start delays the parts replay
          // foresees"). A way counts as within the bound only with its replay's makespan within
          // --parts-makespan-bound of the plan's; where none is and the plain parts are beyond it, the hardware does
          // not keep the plan's mix on an SM, and the fused worker carries the plan out instead (docs/validation.md,
          // "Plans the hardware does not keep in parts").
          if (a.executor == "auto" && !a.capped_parts && !a.part_priorities) {
            auto ways = sim::replay_parts_ways(w, gpu, predicted, cut, o, levels, alone_cache, ways_context_sms(cut));
            const auto pct = [](const std::vector<double>& v, double q) { return sim::nearest_rank_pct(v, q); };
            const auto by_part = sim::part_priorities(w, gpu, predicted, cut, prio_least, prio_greatest);
            for (const auto& way : ways) {
              const auto v = way.options;
              parts_variants += fmt::format(
                  "{}{} {:.1f} / {:.1f} %, makespan {:+.1f} %, start delays p99 {:.0f} us{}",
                  parts_variants.empty() ? "" : "; ", sim::parts_way_name(v), pct(way.replay.turnaround_err_pct, 0.5),
                  pct(way.replay.turnaround_err_pct, 0.9), way.makespan_err_pct, pct(way.start_delays_us, 0.99),
                  v.part_priorities && !v.capped
                      ? fmt::format(" ({} levels needed, {} parts short)", by_part.levels_needed, by_part.clamped)
                      : "");
            }
            const auto decision = sim::choose_parts_way(
                ways, a.parts_choice == "first" ? sim::PartsChoice::First : sim::PartsChoice::Starts,
                a.parts_makespan_bound);
            const std::size_t k = decision.way;
            if (decision.fused && fused_refused.empty()) {
              in_parts = false;
              parts_fused = sim::fused_choice_reason(ways, decision, a.parts_makespan_bound);
            } else if (decision.fused) {
              notes.insert(
                  fmt::format("{}: the parts lose the plan's mix, but the fused worker cannot run this "
                              "workload ({}): carried out in parts at their launches' priorities",
                              policy, fused_refused));
            }
            parts_variant = ways[k].options;
            parts_replay = std::move(ways[k].replay);
            parts_start_delays_foreseen = std::move(ways[k].start_delays_us);
          } else {
            parts_replay = sim::replay_in_parts(w, gpu, predicted, cut, o, levels, alone_cache, parts_variant,
                                                ways_context_sms(cut));
            parts_start_delays_foreseen = sim::replay_start_delays_us(w, predicted, cut, *parts_replay);
          }
          // --held-cut residency: the way is chosen on the cut every way shares; where it holds the parts, they are
          // cut again at the plan's residency changes so that each is held to its own phase's blocks an SM, and the
          // replay of that cut is what the execution is held to (docs/validation.md, "Parts held by the phase of the
          // plan").
          if (in_parts && parts_variant.capped && !residency_cut && a.held_cut == "residency") {
            cut = sim::planned_parts(predicted, true);
            residency_cut = true;
            parts = 0;
            for (const auto& c : cut) parts += c.size();
            parts_replay = sim::replay_in_parts(w, gpu, predicted, cut, o, levels, alone_cache, parts_variant,
                                                ways_context_sms(cut));
            parts_start_delays_foreseen = sim::replay_start_delays_us(w, predicted, cut, *parts_replay);
          }
        }
        // --part-context auto: the way carried out replayed with each part's grid in the SMs of its green context,
        // cover and claimed, and the context taken whose replay's p90 turnaround error is lower by a point or more
        // (docs/validation.md, "Green contexts in the parts replay"); the replay confined to the planned SMs sees
        // neither the spill onto a group's other SM nor the narrowing.
        if (in_parts && every_launch && a.part_context == "auto") {
          const int levels = prio_least - prio_greatest + 1;
          const auto spans = sim::part_spans(predicted, cut);
          choose_part_context(
              [&](sim::PartContext how) {
                // Under --ways-in-contexts the way's replay above already ran in cover contexts (part_context is
                // auto, so not claimed): the same replay, not run again.
                if (how == sim::PartContext::Cover && a.ways_in_contexts && parts_replay) return *parts_replay;
                return sim::replay_in_parts(w, gpu, predicted, cut, o, levels, alone_cache, parts_variant,
                                            sim::part_context_sms(green->group_sms(), spans, how));
              },
              "the parts", "", part_context, context_choice);
        }
        gate_parts = a.gate_parts ||
                     (a.executor == "auto" && every_launch && static_cast<double>(parts) / plan_ms > kAutoPartsPerMs);
      }
      // A plan that stops and resumes blocks (chimera, srtf-chimera, preempt-*), with --green-parts or under auto up
      // to kAutoPiecePartsPerMs: cut the same way, with the ends of stopped pieces as further instants, each part a
      // grid of one worker per planned piece (docs/validation.md, "Preempting plans in parts"); gated as above.
      std::vector<std::vector<sim::PlannedPieces>> piece_cut;
      std::string piece_front_end;  // parts of pieces: how many were joined, and when the front end starts them
      if (green && !time_shared && !one_launch && !orders_whole_launches(policy) && !blocks_whole &&
          (a.green_parts || a.executor == "auto")) {
        const auto cut_how = piece_cut_how(a);
        std::size_t uncut = 0;  // the parts before joining, for the report
        piece_cut = sim::planned_piece_parts(predicted, cut_how, &uncut);
        std::size_t parts = 0;
        std::vector<TimeNs> release;  // each part's issue time, as the parts are issued below
        for (std::size_t i = 0; i < piece_cut.size(); ++i)
          for (const auto& part : piece_cut[i]) {
            ++parts;
            release.push_back(std::max<TimeNs>(0, part.start - gpu.launch_latency_ns));
          }
        if (parts > 0) {
          if (cut_how.merge_within > 0) {
            piece_front_end = fmt::format(
                "the plan's {} parts, each joined by those of its launch starting within "
                "{:g} us after it: {}",
                uncut, a.part_merge_us, parts);
          }
          if (gpu.grid_start_interval_ns > 0) {
            std::vector<double> late_us;
            const auto starts = sim::front_end_starts(release, gpu.grid_start_interval_ns);
            for (std::size_t k = 0; k < starts.size(); ++k)
              late_us.push_back(static_cast<double>(starts[k] - release[k]) / 1e3);
            piece_front_end += fmt::format(
                "{}the GPU starts grids released together {} ns apart: these parts leave its front end {:.1f} us "
                "median, {:.1f} us p99 after their issue",
                piece_front_end.empty() ? "" : "; ", gpu.grid_start_interval_ns, nearest_rank(late_us, 0.5),
                nearest_rank(late_us, 0.99));
          }
        }
        const double per_ms =
            static_cast<double>(parts) / (static_cast<double>(std::max<TimeNs>(1, predicted.metrics.makespan)) / 1e6);
        if (std::any_of(piece_cut.begin(), piece_cut.end(), [](const auto& c) { return c.empty(); }) ||
            (!a.green_parts && per_ms > kAutoPiecePartsPerMs))
          piece_cut.clear();
        in_parts = !piece_cut.empty();
        gate_parts = in_parts && (a.gate_parts || (a.executor == "auto" && per_ms > kAutoPartsPerMs));
        // --part-context auto for parts of pieces: each piece at its planned time, the parts replayed in cover and in
        // claimed contexts (sim/piece_parts_replay.h), and claimed taken where its p90 is a point or more lower, as
        // for parts of whole blocks (docs/validation.md, "Green contexts in the parts replay").
        if (in_parts && a.part_context == "auto") {
          const auto spans = sim::part_spans(predicted, piece_cut);
          choose_part_context(
              [&](sim::PartContext how) {
                return sim::replay_piece_parts(w, gpu, predicted, piece_cut, o, prio_least - prio_greatest + 1,
                                               alone_cache, a.sample_parts == "greatest",
                                               sim::part_context_sms(green->group_sms(), spans, how));
              },
              "the parts of pieces", ", each piece at its planned time", part_context, context_choice);
        }
      }
      const bool native =
          !time_shared &&
          (a.executor == "native" || (a.executor == "auto" && (orders_whole_launches(policy) || replayed || in_parts)));
      // Tests of the error paths: the second execution fails (the first is stored whole, the second not at all).
      eo.inject_fault = ++executions == 2 ? a.inject_fault : "";
      const bool fused = !time_shared && !native &&
                         (a.executor == "fused" || (a.executor == "auto" && fused_refused.empty() && !one_launch));
      if (!time_shared && !native && !one_launch && a.executor == "auto" && !fused_refused.empty())
        notes.insert("the per-SM queues of --executor blocks carried out the plans the hardware could not: " +
                     fused_refused);
      ExecutionResult ex;
      std::vector<std::vector<int>> sampled_on;  // natively: each planned sample's green context's SMs
      int cut_launches = 0, parts_issued = 0, confined_parts = 0, capped_parts = 0;  // natively in parts
      int narrowed_parts = 0;         // --part-context claimed: parts whose context lost a group another part claimed
      int sample_parts_issued = 0;    // parts of pieces holding a planned sample, at the greatest priority
      std::string piece_part_levels;  // parts of pieces at priorities of their own: the levels they took
      std::string host_calls;         // the host's side of a run with parts
      if (fused) {
        fused_body_factors();  // before this execution (its fault injection is this execution's)
        ex = execute_fused_plan(build_fused_plan(predicted.schedule, w.launches.size(), gpu.sm_count), exec, eo);
      } else if (native) {
        std::vector<int> priorities;
        if (policy != "fifo") {
          const sim::LaunchPriorities lp = sim::launch_priorities(predicted, prio_least, prio_greatest);
          priorities = lp.priority;
          if (lp.clamped)
            notes.insert(
                fmt::format("{}: {} launches needed more stream priority levels than the GPU's {} ({} "
                            "needed): their order among themselves is the hardware's",
                            policy, lp.clamped, lp.levels_given, lp.levels_needed));
        }
        // A plan that samples launches on one SM (srtf) gets each sample as a grid of its own in a green context of
        // the sample SM's group at the greatest priority, the rest of the launch behind it (docs/validation.md,
        // "Samples on a green context"). Only on request (--green-samples): it brought validate-h100 within the bound
        // but took live-h100's and bursts-h100's medians further away, and the replay does not model it.
        NativeRunOptions no;
        no.timeout_s = a.timeout_s;
        no.priorities = priorities;
        no.inject_fault = eo.inject_fault;
        std::vector<cudaStream_t> extra_streams;  // the samples' and parts' streams, destroyed after the run
        if (green && a.green_samples && !orders_whole_launches(policy)) {
          const auto samples = sim::planned_samples(predicted);
          for (std::size_t i = 0; i < samples.size(); ++i) {
            if (!samples[i]) continue;
            const auto groups = covering_groups_of_sms(green->group_sms(), {samples[i]->sm});  // its group
            const GreenContext& ctx = green->context({groups.empty() ? 0 : groups.front()});
            if (no.samples.empty()) no.samples.resize(samples.size());
            extra_streams.push_back(green->create_stream(ctx, prio_greatest));
            no.samples[i] = {extra_streams.back(), samples[i]->blocks, nullptr};
            if (a.sample_gate == "first" && samples[i]->blocks > 1) {
              extra_streams.push_back(green->create_stream(ctx, prio_greatest));
              no.samples[i].others = extra_streams.back();
            }
            sampled_on.push_back(ctx.sms);
          }
        }
        // A plan in parts (--green-parts, or auto's choice above): each part a grid of its own in a green context of
        // the SMs the plan runs it on, issued when the plan starts it less the GPU's launch latency
        // (docs/validation.md, "Partitions on green contexts").
        // A part's stream: in a green context of the groups covering its SMs, or a plain one where they are all.
        // --part-context claimed: each part's groups from claimed_groups_of_parts over every part, flattened launch
        // by launch as below (docs/validation.md, "Groups claimed by one part").
        std::vector<std::vector<int>> claimed;
        if (part_context == sim::PartContext::Claimed && in_parts)
          claimed =
              claimed_groups_of_parts(green->group_sms(), piece_cut.empty() ? sim::part_spans(predicted, cut)
                                                                            : sim::part_spans(predicted, piece_cut));
        // `flat`: the part's index, launch by launch (--part-context claimed).
        auto part_stream = [&](const std::vector<int>& sms, int prio, std::size_t flat) {
          auto groups = claimed.empty() ? covering_groups_of_sms(green->group_sms(), sms) : claimed.at(flat);
          if (!claimed.empty() && groups != covering_groups_of_sms(green->group_sms(), sms)) ++narrowed_parts;
          if (a.part_context_groups > 1 && !groups.empty()) {  // widened to whole aligned runs: fewer contexts
            const int run = a.part_context_groups, all = static_cast<int>(green->group_sms().size());
            std::vector<int> wide;
            for (const int g : groups)
              for (int h = g / run * run; h < std::min(all, g / run * run + run); ++h) wide.push_back(h);
            std::sort(wide.begin(), wide.end());
            wide.erase(std::unique(wide.begin(), wide.end()), wide.end());
            groups = static_cast<int>(wide.size()) == all ? std::vector<int>{} : wide;
          }
          cudaStream_t s = nullptr;
          if (groups.empty()) {
            GPUSCHED_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, prio));
          } else {
            s = green->create_stream(green->context(groups), prio);
            ++confined_parts;
          }
          extra_streams.push_back(s);
          return s;
        };
        std::optional<PieceParts> piece_parts;
        if (in_parts && !piece_cut.empty()) {
          std::vector<std::int64_t> blocks;
          std::vector<int> threads, values;
          for (const auto& nl : native_launches) {
            blocks.push_back(nl.shape.blocks);
            threads.push_back(nl.shape.threads);
            values.push_back(std::max(0, nl.kernel->switch_values_per_thread()));
          }
          piece_parts.emplace(predicted.schedule, piece_cut, blocks, threads, values, a.part_stops == "planned-end",
                              !a.entries_csv.empty());
          no.origin_device = piece_parts->origin();
          no.parts.resize(piece_cut.size());
          // --part-priorities: each part at a priority of its own, as for the parts of whole blocks (not in auto: on
          // validate-, live- and bursts-h100 chimera's and srtf-chimera's plans ran no closer so; docs/validation.md,
          // "Parts at priorities of their own").
          std::vector<int> by_part;
          if (a.part_priorities) {
            const auto pp = sim::part_priorities(w, gpu, predicted, piece_cut, prio_least, prio_greatest);
            by_part = pp.priority;
            piece_part_levels = fmt::format("{} levels needed, {} parts short", pp.levels_needed, pp.clamped);
          }
          // A part that holds only a launch's planned sample runs ahead of everything on its SM in the plan; at its
          // launch's priority it waited for the grids beside it to run out of blocks (sim::sample_parts).
          const auto samples =
              a.sample_parts == "greatest" ? sim::sample_parts(predicted, piece_cut) : std::vector<std::vector<char>>{};
          std::size_t flat = 0;
          for (std::size_t i = 0; i < piece_cut.size(); ++i) {
            const int prio = priorities.empty() ? 0 : priorities[i];
            for (std::size_t j = 0; j < piece_cut[i].size(); ++j, ++flat) {
              const auto& part = piece_cut[i][j];
              const bool sample = !samples.empty() && samples[i][j];
              sample_parts_issued += sample ? 1 : 0;
              const cudaStream_t s = part_stream(part.sms,
                                                 sample            ? prio_greatest
                                                 : by_part.empty() ? prio
                                                                   : by_part.at(flat),
                                                 flat);
              const TimeNs issue = std::max<TimeNs>(0, part.start - gpu.launch_latency_ns);
              no.parts[i].push_back({s, piece_parts->first_entry(i, j), static_cast<int>(part.pieces.size()), issue,
                                     piece_parts->view(i, j)});
              ++parts_issued;
            }
            ++cut_launches;
          }
          no.gate_parts = gate_parts;
        } else if (in_parts) {
          no.parts.resize(cut.size());
          // --capped-parts: a part the plan runs at fewer blocks an SM than the kernel holds runs as workers held to
          // that many an SM (docs/validation.md, "What the hardware makes of a plan in parts"), as many workers as it
          // has blocks: the hardware keeps placing them as room frees, so an SM that frees room late still gets its
          // workers (with twice as many as its SMs admit, the surplus was spent on the first SMs with room).
          const auto caps =
              parts_variant.capped ? sim::binding_part_caps(w, gpu, predicted, cut) : std::vector<std::vector<int>>{};
          // --part-priorities: each part at a priority of its own (sim::part_priorities), flattened launch by launch.
          const auto by_part = parts_variant.part_priorities
                                   ? sim::part_priorities(w, gpu, predicted, cut, prio_least, prio_greatest).priority
                                   : std::vector<int>{};
          std::size_t flat = 0;
          for (std::size_t i = 0; i < cut.size(); ++i) {
            if (cut[i].empty()) continue;  // not cut (blocks out of order): the launch as it is
            const int prio = priorities.empty() ? 0 : priorities[i];
            for (std::size_t j = 0; j < cut[i].size(); ++j, ++flat) {
              const auto& part = cut[i][j];
              const cudaStream_t s = part_stream(part.sms, by_part.empty() ? prio : by_part.at(flat), flat);
              const TimeNs issue = std::max<TimeNs>(0, part.start - gpu.launch_latency_ns);
              NativeRunOptions::Part p{s, part.first, part.blocks, issue};
              if (parts_variant.capped && caps[i][j] > 0) {
                p.cap = caps[i][j];
                p.workers = part.blocks;
                ++capped_parts;
              }
              no.parts[i].push_back(p);
              ++parts_issued;
            }
            ++cut_launches;
          }
          no.gate_parts = gate_parts;
        }
        try {
          NativeExecution nx = run_native(w, native_launches, no);
          ex.schedule = std::move(nx.schedule);
          if (piece_parts) {  // every launch ran in pieces: their records are ours
            std::vector<std::string> ids;
            for (const auto& l : w.launches) ids.push_back(l.id);
            set_executed_pieces(ex, piece_parts->executed(static_cast<std::uint64_t>(nx.origin_ns), ids, ex.skipped));
            if (!a.entries_csv.empty()) {
              const auto rows = entry_csv_rows(
                  fmt::format("{}{}/{} repeat {}", policy, params_label(o.policy_params), model, a.repeat), ids,
                  predicted.schedule, piece_parts->entries(static_cast<std::uint64_t>(nx.origin_ns)), nx.part_called);
              entry_rows.insert(entry_rows.end(), rows.begin(), rows.end());
              ++entries_executions;
            }
          }
          gate_parts = nx.gated;  // run_native gates only when every launch is in parts
          if (!no.parts.empty() && !nx.call_ns.empty()) {
            std::vector<double> calls;
            for (const TimeNs c : nx.call_ns) calls.push_back(static_cast<double>(c) / 1e3);
            host_calls =
                fmt::format("launch calls{} median {:.1f} us, longest {:.1f} us; latest {} {:.1f} us after its time",
                            nx.gated ? " (before the run)" : "", nearest_rank(calls, 0.5),
                            *std::max_element(calls.begin(), calls.end()), nx.gated ? "gate raised" : "call",
                            static_cast<double>(nx.max_issue_lag) / 1e3);
          }
        } catch (...) {
          for (auto s : extra_streams) cudaStreamDestroy(s);
          throw;
        }
        for (auto s : extra_streams) GPUSCHED_CUDA(cudaStreamDestroy(s));
      } else {
        ex = time_shared ? execute_timeshare(steps, own_launches(), eo) : execute_plan(plan, exec, eo);
      }
      live_info.finished_at = store::utc_now_iso8601();
      const Schedule executed_schedule = time_shared ? Schedule{} : ex.schedule;
      const std::vector<std::int32_t> worker_of_plan_piece = std::move(ex.worker_of_plan_piece);
      const std::vector<std::int64_t> ready_latency_of_plan_piece = std::move(ex.ready_latency_of_plan_piece);
      RunResult measured = measured_run(w, gpu, std::move(ex.schedule), alone, predicted);
      std::optional<PlanAdherence> adherence;  // of the executor's pieces (the hardware's own have no plan piece)
      if (!time_shared && (!native || !ex.plan_piece.empty())) {
        RunResult executed;
        executed.schedule = executed_schedule;
        executed.launches = measured.launches;
        std::vector<double> body;  // the fused worker's body speed alone, per launch (its kernel's)
        if (fused)
          for (const auto& l : w.launches) body.push_back(fused_body_of_kernel->at(l.kernel));
        adherence = plan_adherence(predicted, executed, ex.plan_piece, planned_waits(w, predicted), body);
      }
      // Each planned part's first block, executed against planned (sim/part_starts.h): for every execution but a
      // time-shared one, whichever executor carried it out.
      // The plan's side of the part starts, once for the three uses below.
      std::optional<sim::PlanPartIndex> plan_parts;
      // With --cut-at-residency (or --held-cut residency's held parts), against the cut carried out where the plan was
      // carried out in parts.
      if (!time_shared) plan_parts.emplace(predicted, residency_cut && in_parts);
      const auto part_starts =
          time_shared ? std::vector<sim::PartStart>{} : sim::part_starts(*plan_parts, executed_schedule);
      const std::vector<double> part_offsets_us = sim::part_start_delays_us(part_starts);
      // Where the hardware placed the blocks, each part's start delay is its first piece's against when the
      // execution let it start (plan_adherence's ready time: its launch's release, the end of the block the plan
      // handed its slot over from), wherever it ran; the model's block times stay out of it.
      // Also after its launch's earlier parts' blocks on its SMs (the hardware issues them first), which is what the
      // CSV's start delay is; the delays without that are printed beside it (sim/part_starts.h, launch_issue_ready).
      std::vector<double> part_delays_us, part_delays_slot_only_us;
      if (!time_shared && !adherence) {
        RunResult executed;
        executed.schedule = executed_schedule;
        executed.launches = measured.launches;
        const auto waits = planned_waits(w, predicted);
        auto both = sim::part_start_delays_both_us(*plan_parts, executed, part_starts, waits);
        part_delays_us = std::move(both.after_ready_us);
        part_delays_slot_only_us = std::move(both.slot_only_us);
      }
      if (!a.csv.empty()) {
        auto row =
            native_csv_row(w.name, gpu.name, fmt::format("{}{}/{}", policy, params_label(o.policy_params), model),
                           a.repeat, prediction_errors(w, measured, predicted));
        // The start delay: the hand-offs' where the executor carried out the plan's pieces, else (the hardware
        // placed the blocks) each planned part's first block against when the execution let it start.
        if (adherence)
          row += fmt::format(",{:.2f},{:.2f}", adherence->hand_off_delay_median_us, adherence->hand_off_delay_p99_us);
        else if (!part_delays_us.empty())
          row += fmt::format(",{:.2f},{:.2f}", nearest_rank(part_delays_us, 0.5), nearest_rank(part_delays_us, 0.99));
        else
          row += ",,";
        csv_rows.push_back(std::move(row));
      }
      live_info.host = store::host_name();
      live_info.events = 0;
      if (native) live_info.policy += " (native)";  // as `native` labels its runs: apart from the executor's
      if (fused) live_info.policy += " (fused)";
      live_info.key = store::make_run_key(live_info, live_info.host + " " + live_info.started_at);

      // Stored after the execution succeeded: the prediction (unless stored before), then the live run and its
      // link in one transaction.
      const double planned_microkernels = policy_metric(predicted, "microkernels"),
                   planned_to_device = policy_metric(predicted, "bytes_to_device"),
                   planned_to_host = policy_metric(predicted, "bytes_to_host");
      auto predicted_record = store::make_run_record(info, w, std::move(predicted), true);
      const auto predicted_id = db.write_run(predicted_record);
      auto live_record = store::make_run_record(live_info, w, std::move(measured), true);
      const auto live_id = db.write_run(live_record, nullptr, {}, predicted_id);
      const auto c = store::compare_runs(live_record, predicted_record);
      int grids = 0;
      for (int g : ex.grids) grids += g;
      fmt::print("{:<16} {:<14} {:>5} {:>5} {:>11} {:>11} {:>9} {:>8} {:>8} {:>9} {:>7} {:>6}\n", policy, model,
                 predicted_id, live_id, format_duration(predicted_record.metrics.makespan),
                 format_duration(live_record.metrics.makespan), pct(c.makespan_error), pct(c.stp_error),
                 pct(c.antt_error), fmt::format("{:.1f}%", 100 * c.mean_abs_turnaround_error),
                 c.block_time_ks ? fmt::format("{:.3f}", *c.block_time_ks) : "-", grids);
      if (a.per_launch)
        fmt::print("{}\n", store::format_comparison(live_record, predicted_record, c));
      else if (c.mean_abs_start_share)  // where the turnaround errors come from (--per-launch: launch by launch)
        fmt::print(
            "  turnaround error from: first slot {:.1f}%, block time {:.1f}%, slots held {:.1f}% (mean |share|)\n",
            100 * *c.mean_abs_start_share, 100 * *c.mean_abs_duration_share, 100 * *c.mean_abs_width_share);
      int confined = 0, least = 0, most = 0;
      for (const int sms : ex.green_sms)
        if (sms > 0) {
          least = confined++ ? std::min(least, sms) : sms;
          most = std::max(most, sms);
        }
      if (confined)
        fmt::print("  green contexts: {} of {} launches confined to {}-{} SMs\n", confined, ex.green_sms.size(), least,
                   most);
      notes.insert(ex.notes.begin(), ex.notes.end());
      if (time_shared) {
        int kernels = 0;
        for (int g : ex.grids) kernels += g;
        fmt::print(
            "  time-shared: {} micro-kernels (planned {:.0f}); {:.1f} MB restored to the GPU (planned {:.1f}), "
            "{:.1f} MB saved to host memory (planned {:.1f})\n",
            kernels, planned_microkernels, static_cast<double>(ex.bytes_to_device) / 1e6, planned_to_device / 1e6,
            static_cast<double>(ex.bytes_to_host) / 1e6, planned_to_host / 1e6);
        const auto live_time = phase_time(live_record.schedule), planned_time = phase_time(predicted_record.schedule);
        auto gbps = [](std::int64_t bytes, TimeNs t) {
          return t ? static_cast<double>(bytes) / static_cast<double>(t) : 0.0;
        };
        fmt::print(
            "  time in restores {} (planned {}), micro-kernels {} (planned {}), saves {} (planned {}); copies: "
            "restores at {:.1f} GB/s, saves at {:.1f} GB/s\n",
            format_duration(live_time.restore), format_duration(planned_time.restore),
            format_duration(live_time.running), format_duration(planned_time.running), format_duration(live_time.save),
            format_duration(planned_time.save), gbps(ex.bytes_to_device, ex.restore_copy_ns),
            gbps(ex.bytes_to_host, ex.save_copy_ns));
      }
      if (sm_pairing)
        fmt::print(
            "  SMs paired for green contexts: confined work could spill {:.2f} ms of SM time onto the other SM of a "
            "group ({:.2f} ms with the plan's SM numbers)\n",
            sm_pairing->spill_us / 1e3, sm_pairing->start_spill_us / 1e3);
      if (ex.skipped)
        fmt::print("  {} planned pieces found their block already done (an earlier piece was not stopped in time)\n",
                   ex.skipped);
      if (fused)
        fmt::print("  carried out by fused workers: one resident grid, {} per SM, leaving after {} entries{}\n",
                   ex.workers_per_sm.empty() ? 0 : ex.workers_per_sm.front(), eo.entries_per_worker,
                   ex.lanes ? ", two lanes per worker for the 128-thread kernels" : "");
      if (native)
        fmt::print("  carried out by the hardware's own dispatch ({})\n",
                   policy == "fifo" ? "launched in arrival order" : "stream priorities from the plan");
      if (!sampled_on.empty())
        fmt::print(
            "  {} planned samples: each launch's sample blocks alone in a green context of {} SMs ({}-{} for the "
            "first) at the greatest priority, its other blocks behind them\n",
            sampled_on.size(), sampled_on.front().size(), sampled_on.front().front(), sampled_on.front().back());
      if (cut_launches)
        fmt::print(
            "  {} launches cut where the plan's partition changes: {} parts{}, each a grid of its own {} at its "
            "planned start, {} of them in a green context of their planned SMs\n",
            cut_launches, parts_issued, piece_cut.empty() ? "" : " of pieces (one worker per planned piece)",
            gate_parts ? "launched ahead behind a gate the host raises" : "issued", confined_parts);
      if (!context_choice.empty() && cut_launches) fmt::print("  {}\n", context_choice);
      if (cut_launches && part_context == sim::PartContext::Claimed)
        fmt::print(
            "  green contexts claimed: {} parts lost a group of their SMs to another launch's part beside them in "
            "time (one part a group)\n",
            narrowed_parts);
      if (!piece_front_end.empty() && in_parts) fmt::print("  {}\n", piece_front_end);
      if (sample_parts_issued)
        fmt::print("  {} parts holding only a launch's planned sample, at the greatest priority\n",
                   sample_parts_issued);
      if (!parts_variants.empty() && (native || !parts_fused.empty()))
        fmt::print(
            "  the parts replayed in simulation{} (median / p90 of the turnarounds): {}\n",
            a.ways_in_contexts ? fmt::format(" in {} contexts", a.part_context == "claimed" ? "claimed" : "cover") : "",
            parts_variants);
      if (!parts_fused.empty() && fused) fmt::print("  {}\n", parts_fused);
      if (!piece_part_levels.empty())
        fmt::print("  carried out each part at a priority of its own ({})\n", piece_part_levels);
      if (cut_launches && piece_cut.empty() && (parts_variant.capped || parts_variant.part_priorities))
        fmt::print(
            "  carried out{}{}\n", parts_variant.part_priorities ? " each part at a priority of its own" : "",
            parts_variant.capped
                ? fmt::format("{}held to the plan's blocks an SM: {} parts so held (workers that admit themselves "
                              "up to it){}",
                              parts_variant.part_priorities ? ", " : " ", capped_parts,
                              residency_cut ? ", cut where the plan's residency changes" : "")
                : std::string());
      if (!host_calls.empty()) fmt::print("  host: {}\n", host_calls);
      if (replay)
        fmt::print(
            "  the dispatcher with the plan's stream priorities replays it within {:.1f} % median / {:.1f} % p90 "
            "of its turnarounds in simulation{}{}{}\n",
            sim::nearest_rank_pct(replay->turnaround_err_pct, 0.5),
            sim::nearest_rank_pct(replay->turnaround_err_pct, 0.9),
            replay->priorities.clamped
                ? fmt::format(", {} launches short of priority levels", replay->priorities.clamped)
                : "",
            replay->same_finish_order ? "" : ", finishing in another order",
            native ? "" : ": outside the bound, so not natively");
      if (parts_replay && native)
        fmt::print(
            "  the hardware given these parts replays the plan within {:.1f} % median / {:.1f} % p90 of its "
            "turnarounds in simulation (makespan {:.3f} ms against the plan's {:.3f} ms){}\n",
            sim::nearest_rank_pct(parts_replay->turnaround_err_pct, 0.5),
            sim::nearest_rank_pct(parts_replay->turnaround_err_pct, 0.9),
            static_cast<double>(parts_replay->replay.metrics.makespan) / 1e6,
            static_cast<double>(predicted.metrics.makespan) / 1e6,
            parts_replay->same_finish_order ? "" : ", finishing in another order");
      if (!part_offsets_us.empty())
        fmt::print(
            "  part starts (each planned part's first block) against the plan's times: median {:+.1f} us, p99 "
            "{:+.1f} us over {} parts\n",
            nearest_rank(part_offsets_us, 0.5), nearest_rank(part_offsets_us, 0.99), part_offsets_us.size());
      if (!part_delays_us.empty())
        fmt::print(
            "  part start delays (after their release, the block they take over from and their launch's earlier parts' "
            "blocks on their SMs, in the execution): median {:+.1f} us, p99 {:+.1f} us (after the block they take "
            "over from alone: {:+.1f} / {:+.1f} us)\n",
            nearest_rank(part_delays_us, 0.5), nearest_rank(part_delays_us, 0.99),
            nearest_rank(part_delays_slot_only_us, 0.5), nearest_rank(part_delays_slot_only_us, 0.99));
      if (!parts_start_delays_foreseen.empty() && native)
        fmt::print(
            "  part start delays the parts replay foresees (the hardware's placement of the parts, the model exact): "
            "median {:+.1f} us, p99 {:+.1f} us\n",
            nearest_rank(parts_start_delays_foreseen, 0.5), nearest_rank(parts_start_delays_foreseen, 0.99));
      if (!time_shared) {
        // Each launch's first block against the plan's: how late (or early) the execution started it.
        std::vector<double> delays;
        for (std::size_t i = 0; i < live_record.launches.size() && i < predicted_record.launches.size(); ++i) {
          const auto& m = live_record.launches[i].outcome;
          const auto& p = predicted_record.launches[i].outcome;
          if (m.first_dispatch >= 0 && p.first_dispatch >= 0)
            delays.push_back(static_cast<double>(m.first_dispatch - p.first_dispatch) / 1e3);
        }
        if (!delays.empty()) {
          const double latest = *std::max_element(delays.begin(), delays.end());
          fmt::print("  launch start (first block) against the plan: median {:+.1f} us, latest {:+.1f} us\n",
                     nearest_rank(delays, 0.5), latest);
          if (a.max_start_delay_us > 0 && latest > a.max_start_delay_us) {
            fmt::print(stderr,
                       "validate: {}: a launch started {:.1f} us later than planned, over --max-start-delay-us "
                       "{:.1f}\n",
                       policy, latest, a.max_start_delay_us);
            exceeded = true;
          }
        }
      }
      // An execution that started a launch before one it waits for had ended does not measure the plan (a launch in
      // parts is waited for through its blocks' count: docs/validation.md, "Events behind parts").
      std::vector<LaunchOutcome> executed;
      for (const auto& l : live_record.launches) executed.push_back(l.outcome);
      if (const auto breaches = dependency_breaches(w, executed); !breaches.empty()) {
        for (const auto& b : breaches)
          fmt::print(stderr,
                     "validate: {}: launch '{}' started {:.1f} us before launch '{}', which it waits for, ended\n",
                     policy, w.launches[static_cast<std::size_t>(b.launch)].id, static_cast<double>(b.early) / 1e3,
                     w.launches[static_cast<std::size_t>(b.predecessor)].id);
        exceeded = true;
      }
      if (!time_shared) {
        std::vector<LaunchOutcome> planned_outcomes, executed_outcomes;
        for (const auto& l : predicted_record.launches) planned_outcomes.push_back(l.outcome);
        for (const auto& l : live_record.launches) executed_outcomes.push_back(l.outcome);
        const auto planned_order = finish_order(planned_outcomes, w),
                   executed_order = finish_order(executed_outcomes, w);
        if (planned_order == executed_order)
          fmt::print("  launch order by finish: as planned\n");
        else
          fmt::print("  launch order by finish: differs (planned {}; executed {})\n", planned_order, executed_order);
      }
      if (adherence) {
        print_adherence(*adherence, predicted_record, worker_of_plan_piece, ready_latency_of_plan_piece);
        if (a.max_hand_off_p99_us > 0 && adherence->hand_off_delay_p99_us > a.max_hand_off_p99_us) {
          fmt::print(stderr, "validate: {}: hand-off delay p99 {:.1f} us exceeds --max-hand-off-p99-us {:.1f}\n",
                     policy, adherence->hand_off_delay_p99_us, a.max_hand_off_p99_us);
          exceeded = true;
        }
      }
    }
  }
  for (const auto& n : notes) fmt::print("note: {}\n", n);
  if (!a.csv.empty()) append_csv_rows(a.csv, std::string(kNativeCsvHeader) + kExecutorCsvColumns, csv_rows);
  if (!a.entries_csv.empty()) {
    if (entries_executions == 0)
      fmt::print("note: --entries-csv {}: no execution ran in parts of pieces; nothing written\n", a.entries_csv);
    else {
      AtomicFile f(a.entries_csv);
      f.write(std::string(kEntriesCsvHeader) + "\n");
      for (const auto& r : entry_rows) f.write(r + "\n");
      f.commit();
      fmt::print("entries of {} execution(s) in parts of pieces: {} rows in {}\n", entries_executions,
                 entry_rows.size(), a.entries_csv);
    }
  }
  fmt::print(
      "\nerrors are (live - predicted) / predicted; |turn err|: mean over launches of the turnaround's; blk KS: "
      "Kolmogorov-Smirnov statistic of the block-time distributions; stored in {} (gpusched compare DB LIVE "
      "PREDICTED for one pair in full)\n",
      a.db);
  return exceeded ? 3 : 0;
}

}  // namespace

void add_validate_command(CLI::App& app, int& result) {
  auto a = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand(
      "validate", "Predict a workload, execute the prediction on the GPU, store both and report the errors");
  cmd->add_option("--workload,-w", a->workload, "Workload file (its kernels recorded by gpusched-live record)")
      ->required();
  cmd->add_option("--policy,-p", a->policies, "Policies, comma-separated, or 'all'");
  cmd->add_option("--set", a->sets, "Policy parameter POLICY.PARAM=VALUE of the predictions (repeatable)");
  cmd->add_option("--interference", a->models,
                  "Interference models of the predictions, or 'all' (default none; auto: equivalent where the kernels' "
                  "profiles have fitted weights, gpu_wide=on where they also have the GPU-wide fit, else age where "
                  "they have co-run records beside them, else none)")
      ->expected(1, -1);
  cmd->add_option("--db", a->db, "Result store the predicted and live runs go to")->required();
  cmd->add_option("--gpu", a->gpu, "GPU preset or file instead of the workload's");
  cmd->add_option("--seed", a->seed, "Seed of the simulation and of the kernels' inputs");
  cmd->add_option("--timeout", a->timeout_s, "Watchdog: seconds an execution may take before the run is abandoned");
  cmd->add_option("--alone-repeats", a->alone_repeats, "Launches timed for each kernel's time alone (median)");
  cmd->add_flag("--per-launch", a->per_launch, "Print every launch's turnaround against its prediction");
  cmd->add_flag("--any-gpu", a->any_gpu, "Run on a GPU other than the workload's when the SM counts agree");
  cmd->add_option("--entries-per-worker", a->entries_per_worker,
                  "Workers leave after this many entries and fresh ones take their place (0: persistent workers)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-green-contexts", a->no_green_contexts,
                "Keep a plan's SM partitions with the executor's queues alone, without green contexts");
  cmd->add_flag(
      "--green-samples", a->green_samples,
      "With --executor native: run each planned sample (srtf: a launch's first blocks on one SM before it runs "
      "anywhere else) as a grid of its own in a 2-SM green context at the greatest priority, the rest of the "
      "launch behind it");
  cmd->add_flag("--green-parts", a->green_parts,
                "With --executor native: cut each launch where the plan's SM partition changes (spatial) and run every "
                "part as a grid of its own in a green context of its planned SMs, issued at its planned start");
  cmd->add_flag(
      "--capped-parts", a->capped_parts,
      "With parts (--green-parts, or auto's): a part the plan runs at fewer blocks an SM than its kernel holds "
      "runs as workers that admit themselves on an SM up to that many and run the part's blocks in turn (auto does so "
      "where the parts replay outside the bound in simulation and so held within it: docs/validation.md, \"Parts "
      "held to the plan's blocks an SM\")");
  cmd->add_flag(
      "--cut-at-residency", a->cut_at_residency,
      "With parts of whole blocks: also cut a launch where the plan changes how many of its blocks it runs at once on "
      "one SM, so that a part held to the plan's blocks an SM (--capped-parts, or auto's) is held to its own phase's "
      "(docs/validation.md, \"Parts held by the phase of the plan\")");
  cmd->add_option("--held-cut", a->held_cut,
                  "Parts of whole blocks carried out held to the plan's blocks an SM (auto's choice, or "
                  "--capped-parts): merged, cut as the other ways are; residency, cut again where the plan changes "
                  "how many of the launch's blocks it runs at once on one SM, each part held to its own phase's "
                  "(the way is chosen on the shared cut either way; docs/validation.md, \"Parts held by the phase of "
                  "the plan\")")
      ->check(CLI::IsMember({"merged", "residency"}))
      ->capture_default_str();
  cmd->add_flag(
      "--part-priorities", a->part_priorities,
      "With parts (--green-parts, or auto's): each part at a stream priority of its own, from the plan's order of "
      "issue among the parts that share SMs, instead of its launch's (auto does so where the replay says it "
      "comes closer to the plan: docs/validation.md, \"Parts at priorities of their own\")");
  cmd->add_option("--parts-choice", a->parts_choice,
                  "auto, a plan in parts: carry it out the first way whose replay is within the turnaround bound "
                  "(first: at the launches' priorities, held to the plan's blocks an SM, each part at its own "
                  "priority, both), or that way unless a later one within the bound foresees start delays of less "
                  "than half its p99 (starts; docs/validation.md, \"Start delays the parts replay foresees\")")
      ->check(CLI::IsMember({"first", "starts"}))
      ->capture_default_str();
  cmd->add_option("--parts-makespan-bound", a->parts_makespan_bound,
                  "auto, a plan in parts: a way counts as within the bound only where its replay's makespan is within "
                  "this many percent of the plan's; where the plan holds parts beside other launches and the parts "
                  "at their launches' priorities are beyond it, a held way only within half of it, no way short of "
                  "priority levels, and with none left the fused worker carries the plan out (docs/validation.md, "
                  "\"Plans the hardware does not keep in parts\"); 0: no such bound")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--gate-parts", a->gate_parts,
                "With parts (--green-parts, or auto's): launch every part before the run, each behind a stream wait "
                "on a counter in host memory that the host raises at the part's time, instead of a launch call then");
  cmd->add_option(
         "--part-context-groups", a->part_context_groups,
         "Parts on green contexts: widen each part's context to whole aligned runs of this many SM groups (1: "
         "the groups covering its SMs), so a plan of many parts uses fewer contexts (docs/validation.md, "
         "\"Preempting plans in parts\"); a run as long as the GPU's groups or longer puts every part on a plain "
         "stream, its blocks placed anywhere (a diagnostic: the plan's partitions are not kept)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--part-context", a->part_context,
                  "Parts on green contexts: cover, every group holding one of the part's planned SMs (a group's two "
                  "SMs may then take two launches' blocks at once); claimed, a group another launch's part also "
                  "holds at the same time goes to the part with its lower SM alone (docs/validation.md, \"Groups "
                  "claimed by one part\"); auto, claimed where the plan's parts replay in those contexts a point or "
                  "more closer to the plan at the p90 of the turnarounds, else cover (parts of pieces replayed with "
                  "each piece at its planned time; \"Green contexts in the parts replay\")")
      ->check(CLI::IsMember({"cover", "claimed", "auto"}))
      ->capture_default_str();
  cmd->add_flag("--ways-in-contexts", a->ways_in_contexts,
                "auto, a plan of whole blocks in parts: replay every way with each part's grid in the SMs of its green "
                "context (--part-context's; cover under auto) instead of its planned SMs, so that the way is chosen "
                "on what the contexts let the hardware do (docs/validation.md, \"Green contexts in the parts "
                "replay\")");
  cmd->add_option("--part-merge-us", a->part_merge_us,
                  "Parts of pieces: a part that starts less than this many microseconds after its launch's part "
                  "before joins it, fewer grids for the GPU's front end to start (one about every 2 us); 0: the "
                  "plan's cut as it is (sim::planned_piece_parts; docs/validation.md, \"Grids the GPU starts a "
                  "second\")")
      ->check(CLI::Range(0.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--sm-numbers", a->sm_numbers,
                  "How the plan's SMs map to the GPU's: paired (with green contexts of two-SM groups, the plan's SMs "
                  "that share a group are chosen so that work confined to some SMs spills least onto the other SM of "
                  "a group; sim/sm_pairs.h) or plan (the plan's SM s is the GPU's %smid s; docs/validation.md, \"SMs "
                  "paired for green contexts\")")
      ->check(CLI::IsMember({"paired", "plan"}))
      ->capture_default_str();
  cmd->add_option("--shared-carveout", a->shared_carveout,
                  "Every kernel's preferred shared-memory carveout, in percent of the largest (-1: the driver's "
                  "choice per kernel), the times alone included: an experiment's knob (docs/validation.md, \"One "
                  "carveout for every kernel\": 100 costs gather, spmv and stencil their L1 and did not bring "
                  "chimera's bursts plan closer)")
      ->check(CLI::Range(-1, 100))
      ->capture_default_str();
  cmd->add_option("--part-stops", a->part_stops,
                  "A plan that stops and resumes blocks, in parts: a stopped piece stops at its planned end from the "
                  "execution's origin (planned-end: where the plan preempts it, however late it started) or after "
                  "its planned duration from its own start (budget, as the fused worker does)")
      ->check(CLI::IsMember({"planned-end", "budget"}))
      ->capture_default_str();
  cmd->add_option("--sample-parts", a->sample_parts,
                  "A plan that stops and resumes blocks, in parts: a part holding only a launch's planned sample "
                  "(srtf-chimera's) runs at the greatest stream priority, as the plan runs it ahead of everything on "
                  "its SM (greatest), or at its launch's priority (launch; docs/validation.md, \"Safe points, samples "
                  "and what a piece costs\")")
      ->check(CLI::IsMember({"greatest", "launch"}))
      ->capture_default_str();
  cmd->add_option("--parts-after-hand-over", a->parts_after_hand_over,
                  "A plan that stops and resumes blocks, in parts: a launch's part on the same SMs as its part before, "
                  "where another launch starts pieces on those SMs between the two, is a grid of its own issued at its "
                  "planned start (apart), or joins that part's grid (merged: its workers may take the slots freed for "
                  "the other launch; sim::PieceCut; docs/validation.md, \"Safe points off the sample loop\")")
      ->check(CLI::IsMember({"apart", "merged"}))
      ->capture_default_str();
  cmd->add_option("--sample-gate", a->sample_gate,
                  "With --green-samples: the rest of a sampled launch waits for all its sample blocks (all) or for "
                  "block 0 alone (first: the plan's prediction point), the others running beside it")
      ->check(CLI::IsMember({"all", "first"}))
      ->capture_default_str();
  cmd->add_flag("--no-lanes", a->no_lanes,
                "Fused worker: one block per worker whatever its width, instead of two 128-thread blocks per worker "
                "(one per half)");
  cmd->add_flag("--in-order-starts", a->in_order_starts,
                "Fused worker: an entry starts only after the SM's earlier entries (in the plan's start order) have "
                "started, not as soon as its own conditions hold");
  cmd->add_flag("--plan-placement", a->plan_placement,
                "Keep a launch that has the GPU to itself on the plan's SMs too (per-SM queues) instead of letting the "
                "hardware place its blocks");
  cmd->add_option("--inject-fault", a->inject_fault,
                  "Test the error paths: the second execution's first worker hangs or faults (hang, error)");
  cmd->add_option("--csv", a->csv,
                  "Append one row per execution to this CSV (docs/validation/executor.csv: native.csv's columns plus "
                  "the hand-off delay's median and p99)");
  cmd->add_option("--repeat", a->repeat, "The CSV rows' repeat number");
  cmd->add_option("--entries-csv", a->entries_csv,
                  "Plans carried out in parts of pieces: write every worker's stamps here, one row per entry (when it "
                  "began, before its claim; when its piece began and ended; its part's call; the planned piece; "
                  "docs/validation.md, \"Entries stamped before their claims\")");
  cmd->add_option("--regrid-wait-us", a->regrid_wait_us, "Least time between two worker grids of one launch (us)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--streams-per-launch", a->streams_per_launch, "Worker grids of one launch in flight at once")
      ->check(CLI::PositiveNumber);
  cmd->add_option(
         "--executor", a->executor,
         "How a plan is carried out: blocks (the executor's per-SM queues), native (plain launches, the "
         "hardware's dispatch ordered by stream priorities: plans whose blocks each run in one piece), auto "
         "(native for fifo, sjf and knapsack and for plans the dispatcher replays within 10 % median / 25 % p90 "
         "in simulation, see gpusched as-priorities; natively in parts on green contexts, as --green-parts, for other "
         "plans whose blocks each run in one piece, gated as with --gate-parts beyond 50 parts a millisecond and held "
         "to the plan's blocks an SM as with --capped-parts where only so the parts replay within the bound; fused "
         "otherwise), fused (one resident grid of workers that run any launch's blocks from one queue per SM; "
         "time-sharing plans keep their own executor)")
      ->check(CLI::IsMember({"auto", "blocks", "native", "fused"}));
  cmd->add_option("--max-start-delay-us", a->max_start_delay_us,
                  "Exit 3 when a launch's first block starts later than planned by more than this (us; 0: never; GPU "
                  "tests)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-hand-off-p99-us", a->max_hand_off_p99_us,
                  "Exit 3 when an execution's hand-off delay p99 (us) exceeds this (0: never; GPU tests)");
  cmd->callback([a, &result] { result = validate_command(*a); });
}

}  // namespace gpusched::live
