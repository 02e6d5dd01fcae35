// gpusched as-priorities: how far each policy's plan is from what the GPU's own block dispatcher makes of it when
// every launch runs on a stream at the priority the plan implies (sim/launch_priorities.h). fifo, sjf and knapsack
// come out exactly; the gap for the others is what `gpusched-live validate --executor native` could not carry out
// even with a perfect model (docs/validation.md, "Which plans stream priorities can carry out").
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/atomic_file.h"
#include "core/green_groups.h"
#include "core/name_list.h"
#include "core/plan_adherence.h"
#include "sim/cli/commands.h"
#include "sim/launch_priorities.h"
#include "sim/part_contexts.h"
#include "sim/part_starts.h"
#include "sim/parts_replay.h"
#include "sim/piece_parts_replay.h"
#include "sim/planned_parts.h"
#include "sim/runner.h"
#include "sim/sm_pairs.h"

namespace gpusched::cli {
namespace {

// --per-launch under --green-groups: each launch's turnaround error in a replay, on one line.
void print_launch_errors(const Workload& w, const sim::PriorityReplay& r) {
  std::string line;
  for (std::size_t i = 0; i < w.launches.size(); ++i)
    line += fmt::format("{}{} {:.1f}", i ? ", " : "", w.launches[i].id, r.turnaround_err_pct[i]);
  fmt::print("    per launch (turnaround error %): {}\n", line);
}

// A replayed way's part starts (sim/part_starts.h), median / p99 in us: against the plan's times, and after their
// release and the block the plan hands their slot over from in the replay (the start delay validate measures of an
// execution in parts, PartsWay::start_delays_us). With the model exact, what the hardware's placement of the parts
// does to them.
std::string part_starts_text(const sim::PlanPartIndex& plan, const sim::PartsWay& way) {
  const std::vector<double> offsets =
      sim::part_start_delays_us(sim::part_starts(plan, way.replay.in_workload.schedule));
  if (offsets.empty()) return "";
  return fmt::format("part starts {:+.1f} / {:+.1f} us, start delays {:+.1f} / {:+.1f} us",
                     sim::nearest_rank_pct(offsets, 0.5), sim::nearest_rank_pct(offsets, 0.99),
                     sim::nearest_rank_pct(way.start_delays_us, 0.5), sim::nearest_rank_pct(way.start_delays_us, 0.99));
}

// Each part of a replayed way, the latest start delay first: which parts the hardware's placement holds up, with the
// model exact (as-priorities --per-part).
void print_part_delays(const Workload& w, const GpuSpec& gpu, const std::vector<std::vector<sim::PlannedPart>>& cut,
                       const sim::PlanPartIndex& plan, const sim::PartsWay& way, int levels) {
  const auto caps = sim::binding_part_caps(w, gpu, plan.plan(), cut);
  const auto priorities = sim::launch_priorities(plan.plan(), 0, 1 - levels);
  const auto starts = sim::part_starts(plan, way.replay.in_workload.schedule);
  struct Row {
    const sim::PartStart* start;
    double delay_us;
  };
  std::vector<Row> rows;
  std::size_t ran = 0;
  for (const auto& s : starts) {
    if (s.executed < 0) continue;
    if (ran < way.start_delays_us.size()) rows.push_back({&s, way.start_delays_us[ran]});
    ++ran;
  }
  if (rows.size() != ran) return;  // the start delays' mapping failed: nothing to lay beside the parts
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.delay_us > y.delay_us; });
  fmt::print("    {:<20} {:>7} {:>5} {:>8} {:>4} {:>14} {:>14} {:>12} {:>12}\n", "part", "blocks", "SMs", "priority",
             "cap", "planned start", "replay start", "offset us", "delay us");
  for (const auto& r : rows) {
    const auto& s = *r.start;
    if (static_cast<std::size_t>(s.part) >= cut[static_cast<std::size_t>(s.launch)].size()) continue;
    const auto& part = cut[static_cast<std::size_t>(s.launch)][static_cast<std::size_t>(s.part)];
    const auto launch = static_cast<std::size_t>(s.launch);
    const int cap = way.options.capped ? caps[launch][static_cast<std::size_t>(s.part)] : 0;
    fmt::print("    {:<20} {:>7} {:>5} {:>8} {:>4} {:>14} {:>14} {:>+12.1f} {:>+12.1f}\n",
               fmt::format("{}#{}", w.launches[launch].id, s.part), part.blocks, part.sms.size(),
               way.options.part_priorities ? std::string("own") : fmt::format("{}", priorities.priority[launch]),
               cap > 0 ? fmt::format("{}", cap) : std::string("-"), format_duration(s.planned),
               format_duration(s.executed), static_cast<double>(s.executed - s.planned) / 1000.0, r.delay_us);
  }
}

}  // namespace

void add_as_priorities_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "as-priorities", "Replay each policy's plan as the hardware dispatcher would run it with stream priorities");
  struct Args {
    std::string workload, gpu, policies = "all", interference = "none", parts_csv;
    std::vector<std::string> sets;
    int levels = 6;
    bool per_launch = false, per_part = false, parts_capped = false, part_priorities = false, cut_at_residency = false;
    std::uint64_t seed = 1;
    double parts_makespan_bound = sim::kPartsMakespanBoundPct;
    int green_groups = 0;  // > 0: green-context groups of this many consecutive SMs, the parts replayed in them
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--workload,-w", a->workload, "Workload file")->required();
  cmd->add_option("--gpu", a->gpu, "GPU preset or file (default: the workload's)");
  cmd->add_option("--policy,-p", a->policies, "Policies, comma-separated, or all")->capture_default_str();
  cmd->add_option("--interference", a->interference, "Interference model of the plan and of its replay (auto: as sim)")
      ->capture_default_str();
  cmd->add_option("--set", a->sets, "POLICY.PARAM=VALUE, as for sim");
  cmd->add_option("--levels", a->levels, "Stream priority levels of the device (the H100 and H200 have 6)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed")->capture_default_str();
  cmd->add_flag("--parts-capped", a->parts_capped,
                "Also replay the parts held to the most of their blocks the plan runs at once on one SM where that is "
                "below what their kernel holds (validate's --capped-parts)");
  cmd->add_flag("--part-priorities", a->part_priorities,
                "Also replay the parts each at a priority of its own, from the plan's order of issue among the parts "
                "that share SMs (validate's --part-priorities); with --parts-capped, both as well");
  cmd->add_option(
      "--parts-csv", a->parts_csv,
      "Write each policy's plan cut as validate cuts it in parts, one row per planned piece "
      "(policy,launch,launch_id,part,block,start_ns,end_ns); scripts/part-lateness.py lays an execution over it");
  cmd->add_option("--parts-makespan-bound", a->parts_makespan_bound,
                  "The makespan bound (%) of validate's auto on a way's replay, for the way it says auto takes "
                  "(validate's --parts-makespan-bound; 0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--per-launch", a->per_launch,
                "Also each launch: its priority, planned and replayed first block and turnaround");
  cmd->add_flag("--cut-at-residency", a->cut_at_residency,
                "Also cut a launch's parts where the plan changes how many of its blocks it runs at once on one SM "
                "(validate's --cut-at-residency)");
  cmd->add_option("--green-groups", a->green_groups,
                  "Also replay the parts in green contexts of groups of this many consecutive SMs (2 on the H100 and "
                  "H200), as validate carries them out: the plan's SMs paired onto the groups as validate pairs them, "
                  "and the way auto picks replayed with each part in its cover's and in its claimed groups' SMs "
                  "(validate --part-context; docs/validation.md, \"Green contexts in the parts replay\"); 0: not")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd->add_flag(
      "--per-part", a->per_part,
      "Also each part of every printed way of a plan in parts: its blocks and SMs, planned and replayed first "
      "block, and the start delay validate would measure (latest first)");
  cmd->callback([a] {
    const auto loaded = load_workload_and_gpu(a->workload, a->gpu);
    const Workload& w = loaded.workload;
    std::vector<std::string> policies;
    if (a->policies == "all") {
      policies = sim::all_policy_names();
    } else {
      policies = split_name_list(a->policies);
    }
    const auto params = sim::parse_policy_sets(a->sets, policies, a->policies);
    sim::AloneTimeCache alone;
    const std::string model = sim::resolve_interference(a->interference, w);
    fmt::print("workload {} on {} ({} launches), interference {}, {} priority levels\n", w.name, loaded.gpu.name,
               w.launches.size(), model, a->levels);
    fmt::print("{:<15} {:>6} {:>7} {:>13} {:>10} {:>10} {:>13} {:>13}\n", "policy", "levels", "clamped", "turn.err med",
               "p90", "max", "plan mk", "replay mk");
    fmt::print("(fifo, sjf and knapsack replay exactly: validate's auto carries them out natively)\n");
    std::optional<AtomicFile> parts_csv;
    if (!a->parts_csv.empty()) {
      parts_csv.emplace(a->parts_csv);
      parts_csv->write("policy,launch,launch_id,part,block,start_ns,end_ns\n");
    }
    for (const auto& policy : policies) {
      sim::RunOptions o;
      o.policy = policy;
      if (const auto it = params.find(policy); it != params.end()) o.policy_params = it->second;
      o.interference = model;
      o.seed = a->seed;
      RunResult plan = sim::run_workload(w, loaded.gpu, o, alone);
      // --green-groups: the plan's SMs numbered onto the groups as validate numbers them (its default piece cut:
      // parts within 10 us joined, apart after a hand-over), before anything is cut or replayed.
      const auto groups = a->green_groups > 0 ? consecutive_groups(loaded.gpu.sm_count, a->green_groups)
                                              : std::vector<std::vector<int>>{};
      if (!groups.empty())
        sim::pair_sms_onto_groups(plan, groups, loaded.gpu.sm_count,
                                  sim::PieceCut{.merge_within = 10'000, .apart_after_hand_over = true});
      if (parts_csv) {
        std::string rows;
        for (const auto& p : sim::planned_part_pieces(plan, a->cut_at_residency))
          rows += fmt::format("{},{},{},{},{},{},{}\n", policy, p.launch,
                              w.launches[static_cast<std::size_t>(p.launch)].id, p.part, p.block, p.start, p.end);
        parts_csv->write(rows);
      }
      auto r = sim::replay_as_priorities(w, loaded.gpu, plan, o, a->levels, alone);
      const auto& e = r.turnaround_err_pct;
      fmt::print("{:<15} {:>6} {:>7} {:>12.1f}% {:>9.1f}% {:>9.1f}% {:>13} {:>13}  {}\n", policy,
                 r.priorities.levels_needed, r.priorities.clamped, sim::nearest_rank_pct(e, 0.5),
                 sim::nearest_rank_pct(e, 0.9), sim::nearest_rank_pct(e, 1.0), format_duration(plan.metrics.makespan),
                 format_duration(r.replay.metrics.makespan),
                 !sim::runs_blocks_whole(plan) ? "blocks stopped and resumed: not for the hardware"
                 : sim::replay_within(r)       ? "within the bound: validate's auto runs it natively"
                 : !r.same_finish_order        ? "finishes in another order"
                                               : "");
      // What validate's auto does next with such a plan: the launches cut where the SM partition changes, each part a
      // grid confined to its SMs (sim/parts_replay.h). The line says what the hardware makes of the parts.
      if (sim::runs_blocks_whole(plan) && !sim::replay_within(r)) {
        const auto cut = sim::planned_parts(plan, a->cut_at_residency);
        if (sim::every_launch_has_parts(cut) && w.launches.size() > 1) {
          std::size_t parts = 0;
          for (const auto& c : cut) parts += c.size();
          // The four ways validate can carry the parts out, replayed (sim::replay_parts_ways): printed as asked,
          // and the one validate's auto picks.
          auto ways = sim::replay_parts_ways(w, loaded.gpu, plan, cut, o, a->levels, alone);
          const auto& q = ways[0].replay;
          const auto by_part = sim::part_priorities(w, loaded.gpu, plan, cut, 0, 1 - a->levels);
          // The plan's side of every printed way's part starts.
          const sim::PlanPartIndex plan_parts(plan, sim::planned_part_pieces(plan, cut));
          auto print_way = [&](const std::string& label, const sim::PartsWay& way) {
            const auto& c = way.replay;
            const auto& g = c.turnaround_err_pct;
            const bool by = way.options.part_priorities;
            fmt::print("{:<15} {:>6} {:>7} {:>12.1f}% {:>9.1f}% {:>9.1f}% {:>13} {:>13}  {}{}\n", label,
                       by ? fmt::format("{}", by_part.levels_needed) : "", by ? fmt::format("{}", by_part.clamped) : "",
                       sim::nearest_rank_pct(g, 0.5), sim::nearest_rank_pct(g, 0.9), sim::nearest_rank_pct(g, 1.0), "",
                       format_duration(c.replay.metrics.makespan), part_starts_text(plan_parts, way),
                       c.same_finish_order ? "" : "; finishes in another order");
            if (a->per_part) print_part_delays(w, loaded.gpu, cut, plan_parts, way, a->levels);
          };
          print_way(fmt::format("  {} parts", parts), ways[0]);
          if (a->parts_capped) print_way("  capped", ways[1]);
          if (a->part_priorities) print_way("  by part", ways[2]);
          if (a->part_priorities && a->parts_capped) print_way("  both", ways[3]);
          const auto starts = sim::choose_parts_way(ways, sim::PartsChoice::Starts, a->parts_makespan_bound);
          const auto first = sim::choose_parts_way(ways, sim::PartsChoice::First, a->parts_makespan_bound);
          if (starts.fused)
            fmt::print("  validate's auto: {}\n", sim::fused_choice_reason(ways, starts, a->parts_makespan_bound));
          else
            fmt::print("  validate's auto carries the parts out {} (the first way within the bound: {})\n",
                       sim::parts_way_name(ways[starts.way].options), sim::parts_way_name(ways[first.way].options));
          // The way auto picks, replayed with each part's grid in its green context (--green-groups): what the
          // executor's contexts do to the plan, cover against claimed (validate --part-context auto picks so).
          if (!groups.empty()) {
            // Every way replayed in cover contexts: auto's choice had it replayed them so. The way auto picks is then
            // printed in cover (from these replays) and in claimed contexts.
            const auto spans = sim::part_spans(plan, cut);
            const auto in_cover = sim::replay_parts_ways(w, loaded.gpu, plan, cut, o, a->levels, alone,
                                                         sim::part_context_sms(groups, spans, sim::PartContext::Cover));
            const auto d = sim::choose_parts_way(in_cover, sim::PartsChoice::Starts, a->parts_makespan_bound);
            std::string line;
            for (const auto& way : in_cover)
              line += fmt::format("{}{} {:.1f} / {:.1f} % (makespan {:+.1f} %)", line.empty() ? "" : "; ",
                                  sim::parts_way_name(way.options),
                                  sim::nearest_rank_pct(way.replay.turnaround_err_pct, 0.5),
                                  sim::nearest_rank_pct(way.replay.turnaround_err_pct, 0.9), way.makespan_err_pct);
            fmt::print("  the ways in cover contexts: {}; auto would take {}\n", line,
                       d.fused ? std::string("the fused worker") : sim::parts_way_name(in_cover[d.way].options));
            if (!starts.fused) {
              const sim::PartsWay& chosen = ways[starts.way];
              sim::PartsWay in_claimed;
              in_claimed.options = chosen.options;
              in_claimed.replay = sim::replay_in_parts(w, loaded.gpu, plan, cut, o, a->levels, alone, chosen.options,
                                                       sim::part_context_sms(groups, spans, sim::PartContext::Claimed));
              in_claimed.start_delays_us =
                  sim::replay_start_delays_us(plan_parts, planned_waits(w, plan), in_claimed.replay);
              for (const sim::PartsWay* in_context :
                   {&in_cover[starts.way], static_cast<const sim::PartsWay*>(&in_claimed)}) {
                print_way(in_context == &in_claimed ? "  in claimed" : "  in cover", *in_context);
                if (a->per_launch) print_launch_errors(w, in_context->replay);
              }
            }
          }
          const std::optional<sim::PriorityReplay> by_part_replay =
              a->part_priorities ? std::optional<sim::PriorityReplay>(std::move(ways[2].replay)) : std::nullopt;
          if (a->per_launch) {
            fmt::print("  {:<20} {:>8} {:>14} {:>14} {:>14} {:>14} {:>8}\n", "launch (in parts)", "parts",
                       "planned start", "replay start", "planned turn.", "replay turn.", "err");
            for (std::size_t i = 0; i < w.launches.size(); ++i) {
              const auto& p = plan.launches[i];
              fmt::print("  {:<20} {:>8} {:>14} {:>14} {:>14} {:>14} {:>7.1f}%\n", w.launches[i].id, cut[i].size(),
                         format_duration(p.first_dispatch), format_duration(q.launch_first_dispatch[i]),
                         format_duration(p.turnaround), format_duration(q.launch_finish[i] - p.release),
                         q.turnaround_err_pct[i]);
            }
            if (by_part_replay) {  // each part: its blocks, SMs and priority, and when the replay at them ran it
              // Each part's planned end, in one pass over the plan's pieces (a launch has few parts).
              std::vector<std::vector<TimeNs>> planned_end(cut.size());
              for (std::size_t i = 0; i < cut.size(); ++i) planned_end[i].assign(cut[i].size(), 0);
              for (const auto& piece : plan.schedule.pieces) {
                const auto i = static_cast<std::size_t>(piece.launch);
                for (std::size_t j = 0; j < cut[i].size(); ++j)
                  if (piece.block >= cut[i][j].first && piece.block < cut[i][j].first + cut[i][j].blocks)
                    planned_end[i][j] = std::max(planned_end[i][j], piece.end);
              }
              fmt::print("  {:<20} {:>8} {:>8} {:>5} {:>14} {:>14} {:>14} {:>14}\n", "part (by part)", "blocks",
                         "priority", "SMs", "planned start", "replay start", "planned end", "replay end");
              std::size_t flat = 0;
              for (std::size_t i = 0; i < w.launches.size(); ++i)
                for (std::size_t j = 0; j < cut[i].size(); ++j, ++flat) {
                  const auto& rp = by_part_replay->replay.launches[flat];
                  fmt::print("  {:<20} {:>8} {:>8} {:>5} {:>14} {:>14} {:>14} {:>14}\n",
                             fmt::format("{}#{}", w.launches[i].id, j), cut[i][j].blocks, by_part.priority[flat],
                             cut[i][j].sms.size(), format_duration(cut[i][j].start), format_duration(rp.first_dispatch),
                             format_duration(planned_end[i][j]), format_duration(rp.finish));
                }
            }
          }
        }
      } else if (!sim::runs_blocks_whole(plan) && !groups.empty() && w.launches.size() > 1) {
        // A plan that stops and resumes blocks, cut in parts of pieces as validate cuts it (10 us joins, apart after
        // a hand-over), each piece at its planned time (sim/piece_parts_replay.h): on the planned SMs, and in cover
        // and claimed contexts, as validate --part-context auto compares them.
        const auto cut =
            sim::planned_piece_parts(plan, sim::PieceCut{.merge_within = 10'000, .apart_after_hand_over = true});
        if (std::all_of(cut.begin(), cut.end(), [](const auto& c) { return !c.empty(); })) {
          std::size_t parts = 0;
          for (const auto& c : cut) parts += c.size();
          const auto spans = sim::part_spans(plan, cut);
          auto print_pieces = [&](const std::string& label, const sim::PriorityReplay& c) {
            const auto& g = c.turnaround_err_pct;
            fmt::print("{:<15} {:>6} {:>7} {:>12.1f}% {:>9.1f}% {:>9.1f}% {:>13} {:>13}{}\n", label, "", "",
                       sim::nearest_rank_pct(g, 0.5), sim::nearest_rank_pct(g, 0.9), sim::nearest_rank_pct(g, 1.0), "",
                       format_duration(c.replay.metrics.makespan),
                       c.same_finish_order ? "" : "  finishes in another order");
            if (a->per_launch) print_launch_errors(w, c);
          };
          print_pieces(fmt::format("  {} parts of pieces", parts),
                       sim::replay_piece_parts(w, loaded.gpu, plan, cut, o, a->levels, alone));
          for (const auto how : {sim::PartContext::Cover, sim::PartContext::Claimed})
            print_pieces(fmt::format("  in {}", sim::part_context_name(how)),
                         sim::replay_piece_parts(w, loaded.gpu, plan, cut, o, a->levels, alone, true,
                                                 sim::part_context_sms(groups, spans, how)));
        }
      }
      if (a->per_launch) {
        fmt::print("  {:<20} {:>8} {:>14} {:>14} {:>14} {:>14} {:>8}\n", "launch", "priority", "planned start",
                   "replay start", "planned turn.", "replay turn.", "err");
        for (std::size_t i = 0; i < w.launches.size(); ++i) {
          const auto& p = plan.launches[i];
          const auto& q = r.replay.launches[i];
          fmt::print("  {:<20} {:>8} {:>14} {:>14} {:>14} {:>14} {:>7.1f}%\n", w.launches[i].id,
                     r.priorities.priority[i], format_duration(p.first_dispatch), format_duration(q.first_dispatch),
                     format_duration(p.turnaround), format_duration(q.turnaround), r.turnaround_err_pct[i]);
        }
      }
    }
    if (parts_csv) parts_csv->commit();
  });
}

}  // namespace gpusched::cli
