// Session 60's throwaway (docs/validation.md, "Pieces at their measured times"): a stored chimera validation's parts
// of pieces as validate cuts them, written for the Python scripts beside it with PARTS=FILE (FILE: each planned piece's
// part, launch, part start, SM count, block, SM and planned start; FILE.ctx: each part's cover context SMs, none for
// every SM; FILE.prio: each part's CUDA stream priority, -6 for a sample part at the greatest), and the replays'
// per-launch errors (gpusched replay-parts does those properly). H200 only: 6 priority levels, two-SM groups.
// Build from the repository root after `bash scripts/setup.sh`:
//   g++ -std=c++20 -O1 -I. -Ibuild docs/validation/parts-late-analysis.session60/parts_of_store.cpp \
//     build/sim/CMakeFiles/gpusched.dir/cli/util.cpp.o -Wl,--whole-archive build/sim/libgpusched_sim.a \
//     -Wl,--no-whole-archive build/core/libgpusched_core.a -lfmt -lsqlite3 -o /tmp/parts_of_store
//   PARTS=/tmp/parts-vc1.csv /tmp/parts_of_store traces/workloads/validate-h200.toml STORE.db
#include <fmt/core.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include "core/green_groups.h"
#include "core/store/store.h"
#include "sim/part_contexts.h"
#include "sim/piece_parts_replay.h"
#include "sim/planned_parts.h"
#include "sim/launch_priorities.h"
#include "sim/runner.h"
using namespace gpusched;
int main(int argc, char** argv) {
  const std::string wl = argv[1], db = argv[2];
  const bool dump = argc > 3;
  auto loaded = sim::load_workload_and_gpu(wl, "", nullptr, "--gpu", "");
  const auto& w = loaded.workload;
  const auto& gpu = loaded.gpu;
  auto store = store::Store::open(db, store::Store::Mode::ReadOnly);
  auto planrec = store.load_run(1);
  auto liverec = store.load_run(2);
  RunResult plan;
  plan.schedule = planrec.schedule;
  for (auto& l : planrec.launches) plan.launches.push_back(l.outcome);
  plan.metrics = planrec.metrics;
  auto cut = sim::planned_piece_parts(plan, sim::PieceCut{.merge_within = 10'000, .apart_after_hand_over = true});
  // MEASURED=1: each planned piece takes its executed piece's time (matched by launch, block and order).
  RunResult timed = plan;
  if (std::getenv("MEASURED")) {
    std::map<std::pair<int, int>, std::vector<std::size_t>> by_block_plan, by_block_live;
    for (std::size_t p = 0; p < plan.schedule.pieces.size(); ++p)
      by_block_plan[{plan.schedule.pieces[p].launch, plan.schedule.pieces[p].block}].push_back(p);
    for (std::size_t p = 0; p < liverec.schedule.pieces.size(); ++p)
      by_block_live[{liverec.schedule.pieces[p].launch, liverec.schedule.pieces[p].block}].push_back(p);
    int matched = 0, unmatched = 0;
    for (auto& [k, ps] : by_block_plan) {
      auto ls = by_block_live[k];
      auto by_start = [](const auto& v) { return [&v](std::size_t a, std::size_t b) { return v[a].start < v[b].start; }; };
      std::sort(ps.begin(), ps.end(), by_start(plan.schedule.pieces));
      std::sort(ls.begin(), ls.end(), by_start(liverec.schedule.pieces));
      if (ls.size() != ps.size()) { ++unmatched; continue; }
      for (std::size_t j = 0; j < ps.size(); ++j) {
        const auto& x = liverec.schedule.pieces[ls[j]];
        timed.schedule.pieces[ps[j]].end = timed.schedule.pieces[ps[j]].start + (x.end - x.start);
        ++matched;
      }
    }
    fmt::print("measured piece times: {} pieces matched, {} blocks not\n", matched, unmatched);
  }
  const auto groups = consecutive_groups(gpu.sm_count, 2);
  if (std::getenv("PARTS")) {
    auto f = std::fopen(std::getenv("PARTS"), "w");
    int id = 0;
    for (std::size_t i = 0; i < cut.size(); ++i)
      for (std::size_t j = 0; j < cut[i].size(); ++j, ++id)
        for (auto p : cut[i][j].pieces) {
          const auto& pc = plan.schedule.pieces[p];
          std::fprintf(f, "%d,%zu,%zu,%lld,%zu,%d,%d,%lld\n", id, i, j, (long long)cut[i][j].start, cut[i][j].sms.size(),
                       pc.block, pc.sm, (long long)pc.start);
        }
    std::fclose(f);
    auto g = std::fopen((std::string(std::getenv("PARTS")) + ".ctx").c_str(), "w");
    const auto ctx = sim::part_context_sms(groups, sim::part_spans(plan, cut), sim::PartContext::Cover);
    for (std::size_t k = 0; k < ctx.size(); ++k) {
      std::fprintf(g, "%zu", k);
      for (int sm : ctx[k]) std::fprintf(g, ",%d", sm);
      std::fprintf(g, "\n");
    }
    std::fclose(g);
    auto h = std::fopen((std::string(std::getenv("PARTS")) + ".prio").c_str(), "w");
    const auto pr = sim::launch_priorities(plan, 0, -5);
    const auto samples = sim::sample_parts(plan, cut);
    int k = 0;
    for (std::size_t i = 0; i < cut.size(); ++i)
      for (std::size_t j = 0; j < cut[i].size(); ++j, ++k)
        std::fprintf(h, "%d,%zu,%d,%d\n", k, i, samples[i][j] ? -6 : pr.priority[i], (int)samples[i][j]);
    std::fclose(h);
  }
  const auto spans = sim::part_spans(plan, cut);
  sim::AloneTimeCache alone;
  sim::RunOptions o;
  o.policy = "chimera";
  std::vector<std::pair<std::string, sim::PriorityReplay>> reps;
  for (int carried = 0; carried < 2; ++carried)
  for (auto how : {sim::PartContext::Cover, sim::PartContext::Claimed})
    reps.emplace_back(std::string(carried ? "c-" : "p-") + (how == sim::PartContext::Cover ? "cover" : "claimed"),
                      sim::replay_piece_parts(w, gpu, timed, cut, o, std::getenv("LEVELS") ? std::atoi(std::getenv("LEVELS")) : 6, alone, true,
                                              sim::part_context_sms(groups, spans, how),
                                              carried ? std::optional(sim::PieceStops::PlannedEnd) : std::nullopt));
  fmt::print("{:14s} {:>10s} {:>8s}", "launch", "plan us", "live%");
  for (auto& [n, r] : reps) fmt::print(" {:>9s}", n);
  fmt::print("\n");
  for (std::size_t i = 0; i < w.launches.size(); ++i) {
    const double p = plan.launches[i].turnaround;
    const double x = liverec.launches[i].outcome.turnaround;
    fmt::print("{:14s} {:10.1f} {:8.1f}", w.launches[i].id, p / 1e3, (x - p) / p * 100);
    for (auto& [n, r] : reps) {
      const double y = r.in_workload.launches[i].turnaround;
      fmt::print(" {:9.1f}", (y - p) / p * 100);
    }
    fmt::print("\n");
  }
  if (dump)
    for (auto& [n, r] : reps) {
      auto f = std::fopen((std::string(argv[3]) + "." + n + ".csv").c_str(), "w");
      for (auto& pc : r.in_workload.schedule.pieces)
        std::fprintf(f, "%d,%d,%d,%lld,%lld,%d\n", pc.launch, pc.block, pc.sm, (long long)pc.start, (long long)pc.end,
                     (int)pc.outcome);
      std::fclose(f);
    }
}
