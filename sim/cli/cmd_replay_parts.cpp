// gpusched replay-parts --db STORE: a stored validation of a plan that stops and resumes blocks (chimera,
// srtf-chimera), its plan replayed in parts of pieces as validate carries it out (sim/piece_parts_replay.h), in the
// green contexts asked for, with each piece at its planned time, carried out as the executor carries it out
// (sim/carried_pieces.h) or at its executed piece's measured time, beside the execution's turnarounds. What the
// measured times leave between the replay and the execution is the placement's; what they close is the block
// times' (docs/validation.md, "Pieces at their measured times").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

#include "core/atomic_file.h"
#include "core/duration_format.h"
#include "core/green_groups.h"
#include "core/plan_adherence.h"
#include "core/store/store.h"
#include "sim/cli/commands.h"
#include "sim/launch_priorities.h"
#include "sim/part_contexts.h"
#include "sim/piece_parts_replay.h"
#include "sim/planned_parts.h"

namespace gpusched::cli {
namespace {

struct ReplayPartsArgs {
  std::string db;
  std::int64_t live_run = 0;  // 0: the store's only validation
  std::string workload;       // "": the path the predicted run was read from
  std::vector<std::string> pieces{"planned", "carried"};
  std::vector<std::string> contexts{"cover", "claimed"};
  int levels = 6;
  int group_size = 2;
  double part_merge_us = 10;
  std::string pieces_csv;
  bool predecessors = false;
};

// The plan with each piece at its executed piece's time (a block's pieces matched by their ordinal in start order,
// plan_piece_by_ordinal); blocks whose executed pieces are not as many as the planned keep the plan's times, counted
// in `unmatched`.
RunResult with_measured_times(const RunResult& plan, const Schedule& executed, std::size_t& unmatched) {
  const auto plan_piece = plan_piece_by_ordinal(plan.schedule, executed);
  if (!plan_piece) throw std::invalid_argument("the live run ran blocks its plan does not have");
  std::vector<int> executions(plan.schedule.pieces.size(), 0);  // per planned piece: the executed pieces mapped to it
  for (const std::size_t p : *plan_piece) ++executions[p];
  std::set<std::pair<std::int32_t, std::int32_t>> unmatched_blocks;  // a planned piece run twice or not at all
  for (std::size_t p = 0; p < executions.size(); ++p)
    if (executions[p] != 1) unmatched_blocks.insert({plan.schedule.pieces[p].launch, plan.schedule.pieces[p].block});
  unmatched = unmatched_blocks.size();
  RunResult timed = plan;
  for (std::size_t x = 0; x < executed.pieces.size(); ++x) {
    BlockPiece& piece = timed.schedule.pieces[(*plan_piece)[x]];
    if (unmatched_blocks.count({piece.launch, piece.block})) continue;
    piece.end = piece.start + std::max<TimeNs>(1, executed.pieces[x].end - executed.pieces[x].start);
  }
  return timed;
}

std::int64_t the_live_run(const store::Store& s, const std::string& db, std::int64_t asked, std::int64_t& predicted) {
  const auto pairs = s.validations();
  for (const auto& v : pairs)
    if (v.live_run == asked || (asked == 0 && pairs.size() == 1)) {
      predicted = v.predicted_run;
      return v.live_run;
    }
  if (pairs.empty()) throw std::invalid_argument(fmt::format("{}: the store holds no validation", db));
  std::string runs;
  for (const auto& v : pairs) runs += fmt::format("{}{}", runs.empty() ? "" : ", ", v.live_run);
  throw std::invalid_argument(
      asked == 0 ? fmt::format("{}: the store holds {} validations; choose one with --live "
                               "(live runs: {})",
                               db, pairs.size(), runs)
                 : fmt::format("--live {}: not a validation's live run in {} (live runs: {})", asked, db, runs));
}

double error_pct(TimeNs x, TimeNs planned) {
  return planned > 0 ? (static_cast<double>(x) - static_cast<double>(planned)) / static_cast<double>(planned) * 100.0
                     : 0.0;
}

int run_replay_parts(const ReplayPartsArgs& a) {
  if (!std::filesystem::exists(a.db)) throw std::invalid_argument(fmt::format("--db {}: no such file", a.db));
  const auto s = store::Store::open(a.db, store::Store::Mode::ReadOnly);
  std::int64_t predicted_run = 0;
  const std::int64_t live_run = the_live_run(s, a.db, a.live_run, predicted_run);
  store::RunRecord predicted = s.load_run(predicted_run);
  store::RunRecord live = s.load_run(live_run);
  if (predicted.schedule.pieces.empty() || live.schedule.pieces.empty())
    throw std::invalid_argument(
        fmt::format("{}: runs {} and {} keep no blocks (validate --db keeps them)", a.db, predicted_run, live_run));
  const std::string workload = a.workload.empty() ? predicted.info.workload_file : a.workload;
  if (workload.empty())
    throw std::invalid_argument(
        fmt::format("{}: run {} names no workload file; give one with --workload", a.db, predicted_run));
  const auto loaded = load_workload_and_gpu(workload, "");
  const Workload& w = loaded.workload;
  const GpuSpec& gpu = loaded.gpu;
  if (w.launches.size() != predicted.launches.size() || w.launches.size() != live.launches.size())
    throw std::invalid_argument(fmt::format("--workload {}: {} launches, where the store's runs have {}", workload,
                                            w.launches.size(), predicted.launches.size()));
  const store::RunInfo live_info = live.info;
  const std::string plan_policy = predicted.info.policy;
  const RunResult plan = store::run_result_of(std::move(predicted));
  if (sim::runs_blocks_whole(plan))
    throw std::invalid_argument(
        fmt::format("{}: run {}'s plan ({}) runs every block in one piece; replay-parts replays the plans validate "
                    "carries out in parts of pieces (some block stopped, drained or in several pieces) "
                    "(gpusched as-priorities --green-groups replays the others)",
                    a.db, predicted_run, plan_policy));
  const RunResult executed = store::run_result_of(std::move(live));
  const auto cut = sim::planned_piece_parts(
      plan, sim::PieceCut{.merge_within = static_cast<TimeNs>(std::llround(a.part_merge_us * 1e3)),
                          .apart_after_hand_over = true});
  std::size_t unmatched = 0;
  const RunResult measured = with_measured_times(plan, executed.schedule, unmatched);
  const auto groups = consecutive_groups(gpu.sm_count, a.group_size);
  const auto spans = sim::part_spans(plan, cut);

  struct Column {
    std::string name;
    sim::PriorityReplay replay;
  };
  std::vector<Column> columns;
  sim::AloneTimeCache alone;
  for (const auto& how : a.pieces)
    for (const auto& where : a.contexts) {
      std::vector<std::vector<int>> context_sms;
      if (where != "planned")
        context_sms = sim::part_context_sms(groups, spans,
                                            where == "cover" ? sim::PartContext::Cover : sim::PartContext::Claimed);
      std::optional<sim::PieceStops> carried;
      if (how == "carried") carried = sim::PieceStops::PlannedEnd;
      if (how == "carried-budget") carried = sim::PieceStops::Budget;
      if (how == "carried-measured") carried = sim::PieceStops::PlannedEnd;
      columns.push_back(
          {how + " " + where,
           sim::replay_piece_parts(w, gpu, how == "measured" ? measured : plan, cut, sim::RunOptions{}, a.levels, alone,
                                   true, context_sms, carried, how == "carried-measured" ? &measured : nullptr)});
    }

  fmt::print("{}: live run {} ({}, {}) against its plan, run {}; {} parts of pieces\n", a.db, live_run,
             live_info.policy, live_info.workload, predicted_run, spans.size());
  if (std::any_of(a.pieces.begin(), a.pieces.end(),
                  [](const auto& p) { return p.find("measured") != std::string::npos; }))
    fmt::print(
        "measured: each piece at its executed piece's time; {} blocks ran in more or fewer pieces than planned "
        "and keep the plan's\n",
        unmatched);
  fmt::print("turnaround error against the plan, %: (x - planned) / planned\n");
  fmt::print("{:<20} {:>12} {:>9}", "launch", "planned", "executed");
  for (const auto& c : columns) fmt::print(" {:>18}", c.name);
  fmt::print("\n");
  std::vector<std::vector<double>> abs_errors(columns.size() + 1);
  for (std::size_t i = 0; i < w.launches.size(); ++i) {
    const TimeNs planned = plan.launches[i].turnaround;
    const double executed_err = error_pct(executed.launches[i].turnaround, planned);
    abs_errors[0].push_back(std::fabs(executed_err));
    fmt::print("{:<20} {:>12} {:>+8.1f}%", w.launches[i].id, format_duration(planned), executed_err);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const auto& r = columns[c].replay;
      const double e = error_pct(r.launch_finish[i] - plan.launches[i].release, planned);
      abs_errors[c + 1].push_back(std::fabs(e));
      fmt::print(" {:>+17.1f}%", e);
    }
    fmt::print("\n");
  }
  fmt::print("{:<20} {:>12}", "|error| median / p90", "");
  for (const auto& v : abs_errors)
    fmt::print(" {:>8.1f} / {:<7.1f}", sim::nearest_rank_pct(v, 0.5), sim::nearest_rank_pct(v, 0.9));
  fmt::print("\n");

  if (!a.pieces_csv.empty())
    for (const auto& c : columns) {
      std::string name = c.name;
      std::replace(name.begin(), name.end(), ' ', '-');
      std::string text = "launch,block,sm,start_ns,end_ns\n";
      for (const auto& p : c.replay.in_workload.schedule.pieces)
        text += fmt::format("{},{},{},{},{}\n", p.launch, p.block, p.sm, p.start, p.end);
      AtomicFile out(a.pieces_csv + "." + name + ".csv");
      out.write(text);
      out.commit();
    }
  return 0;
}

}  // namespace

void add_replay_parts_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "replay-parts",
      "Replay a stored validation's plan of pieces (chimera, srtf-chimera) in parts, beside its execution");
  auto a = std::make_shared<ReplayPartsArgs>();
  cmd->add_option("--db", a->db, "Store written by gpusched-live validate --db")->required();
  cmd->add_option("--live", a->live_run, "The validation's live run id (default: the store's only validation)");
  cmd->add_option("--workload,-w", a->workload, "Workload file (default: the one the plan was read from)");
  cmd->add_option("--pieces", a->pieces,
                  "Piece times, comma-separated: planned (each piece its planned time), carried (as the executor "
                  "carries it out, stops at the plan's instants), carried-budget (stops after the planned duration), "
                  "measured (each piece its executed piece's time), carried-measured (carried out, each block's work "
                  "its executed pieces' time)")
      ->delimiter(',')
      ->check(CLI::IsMember({"planned", "carried", "carried-budget", "measured", "carried-measured"}))
      ->capture_default_str();
  cmd->add_option("--context", a->contexts,
                  "Where each part's grid may run, comma-separated: planned (its planned SMs), cover, claimed (its "
                  "green context's SMs, as validate --part-context)")
      ->delimiter(',')
      ->check(CLI::IsMember({"planned", "cover", "claimed"}))
      ->capture_default_str();
  cmd->add_option("--levels", a->levels, "Stream priority levels of the device (the H100 and H200 have 6)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--group-size", a->group_size,
                  "SMs in a green-context group, groups of consecutive SMs (the H200's; the H100's last groups differ)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--part-merge-us", a->part_merge_us, "As validate's --part-merge-us")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag(
      "--predecessors", a->predecessors,
      "Each part waits for its launch's predecessors (stream order, after) to end, as the executor's parts do");
  cmd->add_option("--pieces-csv", a->pieces_csv,
                  "Write each replay's pieces to PREFIX.PIECES-CONTEXT.csv (launch, block, sm, start_ns, end_ns)");
  cmd->callback([a] {
    if (const int rc = run_replay_parts(*a); rc != 0) throw ExitCode{rc};
  });
}

}  // namespace gpusched::cli
