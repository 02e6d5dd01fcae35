#include "test_helpers.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace gpusched::test {

std::shared_ptr<KernelProfile> kernel(const std::string& name, int blocks, int threads, std::vector<TimeNs> durations,
                                      int registers, int smem, double idempotent_until, std::int64_t context_bytes) {
  auto k = std::make_shared<KernelProfile>();
  k->name = name;
  k->grid = {blocks, 1, 1};
  k->block = {threads, 1, 1};
  k->registers_per_thread = registers;
  k->shared_memory_per_block = smem;
  k->idempotent_until = idempotent_until;
  k->context_bytes_per_block = context_bytes;
  RecordSet set;
  set.residency = 1;
  for (int b = 0; b < blocks; ++b)
    set.duration_by_block.push_back(durations[static_cast<std::size_t>(b) % durations.size()]);
  finalize_record_set(set);
  k->record_sets.push_back(std::move(set));
  return k;
}

void add_record_set(KernelProfile& k, int residency, TimeNs duration) {
  RecordSet set;
  set.residency = residency;
  set.duration_by_block.assign(static_cast<std::size_t>(k.block_count()), duration);
  finalize_record_set(set);
  k.record_sets.push_back(std::move(set));
  std::sort(k.record_sets.begin(), k.record_sets.end(),
            [](const RecordSet& a, const RecordSet& b) { return a.residency < b.residency; });
}

Launch launch(const std::string& id, std::size_t kernel, TimeNs arrival, std::vector<std::size_t> after) {
  Launch l;
  l.id = id;
  l.kernel = kernel;
  l.arrival = arrival;
  l.after = std::move(after);
  return l;
}

GpuSpec gpu_with_sms(const std::string& preset, int sms) {
  // Hand-computed cases count block times only; tests of the front end's timing set it themselves.
  GpuSpec g = without_front_end_timing(*find_gpu_preset(preset));
  g.sm_count = sms;
  g.name = fmt::format("{}-{}sm", preset, sms);
  return g;
}

RunResult run(const Workload& w, const GpuSpec& gpu, const std::string& policy, std::uint64_t seed, int gpu_count,
              std::map<std::string, std::string> params) {
  sim::AloneTimeCache cache;
  sim::RunOptions o;
  o.policy = policy;
  o.seed = seed;
  o.gpu_count = gpu_count;
  o.policy_params = std::move(params);
  return sim::run_workload(w, gpu, o, cache);
}

RunResult run_pair(TimeNs a_time, TimeNs b_time, const std::string& interference,
                   std::map<std::string, std::string> params) {
  const auto w = make_workload("w", {kernel("a-s1", 1, 128, {a_time}), kernel("b-s1", 1, 128, {b_time})},
                               {launch("a", 0, 0), launch("b", 1, 100)});
  sim::RunOptions o;
  o.interference = interference;
  o.interference_params = std::move(params);
  sim::AloneTimeCache cache;
  return sim::run_workload(w, gpu_with_sms("h100", 1), o, cache);
}

std::string check_invariants(const Workload& w, const GpuSpec& gpu, const RunResult& r) {
  // Every block of every launch completes exactly once (flushed and switched-out pieces are re-runs); a
  // killed launch's blocks at most once.
  std::map<std::pair<int, int>, int> completions;
  for (const auto& p : r.schedule.pieces)
    if (p.outcome == PieceOutcome::Completed || p.outcome == PieceOutcome::Drained ||
        p.outcome == PieceOutcome::SwitchedIn)
      ++completions[{p.launch, p.block}];
  for (std::size_t l = 0; l < w.launches.size(); ++l)
    for (int b = 0; b < w.kernel_of(l).block_count(); ++b) {
      const int n = completions[{static_cast<int>(l), b}];
      if (n != 1 && !(r.launches[l].killed && n == 0))
        return fmt::format("launch {} block {} completed {} times", w.launches[l].id, b, n);
    }
  // Time never goes backwards: pieces are emitted in order of their end times, each ends after it starts.
  TimeNs last = 0;
  for (const auto& p : r.schedule.pieces) {
    if (p.end < p.start) return fmt::format("piece of launch {} block {} ends before it starts", p.launch, p.block);
    if (p.end < last) return fmt::format("piece ending at {} emitted after one ending at {}", p.end, last);
    last = p.end;
  }
  // No SM ever exceeds a limit: sweep each SM's pieces with the blocks' footprints.
  std::map<std::pair<int, int>, std::vector<std::pair<TimeNs, int>>> per_sm;  // (time, +-piece index)
  for (std::size_t i = 0; i < r.schedule.pieces.size(); ++i) {
    const auto& p = r.schedule.pieces[i];
    per_sm[{p.gpu, p.sm}].emplace_back(p.start, static_cast<int>(i) + 1);
    per_sm[{p.gpu, p.sm}].emplace_back(p.end, -static_cast<int>(i) - 1);
  }
  for (auto& [sm, events] : per_sm) {
    std::sort(events.begin(), events.end(), [](auto a, auto b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;  // ends before starts at equal times
    });
    long threads = 0, warps = 0, regs = 0, smem = 0, blocks = 0;
    for (const auto& [t, e] : events) {
      const auto& p = r.schedule.pieces[static_cast<std::size_t>(std::abs(e) - 1)];
      const auto f = block_footprint(gpu, w.kernel_of(static_cast<std::size_t>(p.launch)).shape());
      const int s = e > 0 ? 1 : -1;
      threads += s * f.threads;
      warps += s * f.warps;
      regs += s * f.registers;
      smem += s * f.shared_memory;
      blocks += s;
      if (threads > gpu.max_threads_per_sm || warps > gpu.max_warps_per_sm || regs > gpu.registers_per_sm ||
          smem > gpu.shared_memory_per_sm || blocks > gpu.max_blocks_per_sm)
        return fmt::format(
            "GPU {} SM {} over a limit at t={}: {} threads, {} warps, {} registers, {} B shared, {} blocks", sm.first,
            sm.second, t, threads, warps, regs, smem, blocks);
    }
  }
  // No GPU holds more than max_resident_grids launches at once. A launch holds one from its first dispatch until it
  // finishes; a sliced one (Kernelet's policies, timeshare's micro-kernels) only from a slice's first dispatch until
  // the slice ends with nothing resident, which the Schedule does not show, so for those the check is the weaker
  // one: launches with blocks resident (a grid freed at t may be taken at t).
  if (gpu.max_resident_grids > 0) {
    const bool sliced = r.policy.rfind("kernelet", 0) == 0 || r.policy == "timeshare";
    std::map<int, std::vector<std::pair<TimeNs, int>>> held;  // per GPU: (time, +1 / -1), in launches
    if (!sliced) {
      std::map<int, int> gpu_of;  // launch -> the GPU of its first piece
      for (const auto& p : r.schedule.pieces) gpu_of.try_emplace(p.launch, p.gpu);
      for (const auto& [l, g] : gpu_of) {
        const auto& o = r.launches[static_cast<std::size_t>(l)];
        held[g].emplace_back(o.first_dispatch, 1);
        held[g].emplace_back(o.finish, -1);
      }
    } else {
      std::map<std::pair<int, int>, std::vector<std::pair<TimeNs, int>>> pieces;  // (GPU, launch): its pieces
      for (const auto& p : r.schedule.pieces) {
        pieces[{p.gpu, p.launch}].emplace_back(p.start, 1);
        pieces[{p.gpu, p.launch}].emplace_back(p.end, -1);
      }
      for (auto& [key, events] : pieces) {  // each stretch with a block resident counts once
        std::sort(events.begin(), events.end());
        int n = 0;
        for (const auto& [t, d] : events) {
          if (n == 0 && d > 0) held[key.first].emplace_back(t, 1);
          n += d;
          if (n == 0) held[key.first].emplace_back(t, -1);
        }
      }
    }
    for (auto& [g, events] : held) {
      std::sort(events.begin(), events.end());  // ends before starts at equal times
      int n = 0;
      for (const auto& [t, d] : events)
        if ((n += d) > gpu.max_resident_grids)
          return fmt::format("GPU {} holds {} launches at t={}, over its {} resident grids", g, n, t,
                             gpu.max_resident_grids);
    }
  }
  // Launches start after they arrive and after their dependencies finish. A policy that resubmits the
  // launches (knapsack) replaces the stream order with its own queues: only explicit dependencies bind.
  const bool resubmitted = r.policy == "knapsack";
  for (std::size_t l = 0; l < w.launches.size(); ++l) {
    const auto& o = r.launches[l];
    if (o.first_dispatch < w.launches[l].arrival)
      return fmt::format("launch {} dispatched before arrival", w.launches[l].id);
    for (std::size_t d : resubmitted ? w.launches[l].after : w.dag.predecessors(l))
      if (o.first_dispatch < r.launches[d].finish)
        return fmt::format("launch {} dispatched before its dependency {} finished", w.launches[l].id,
                           w.launches[d].id);
  }
  return "";
}

ShippedPlan shipped_plan(const std::string& workload, const std::string& policy, const std::string& interference) {
  ShippedPlan out{sim::load_workload_and_gpu(std::string(GPUSCHED_TRACES_DIR) + "/workloads/" + workload + ".toml", "",
                                             nullptr, "--gpu", ""),
                  {}};
  sim::RunOptions o;
  o.policy = policy;
  o.interference = interference;
  sim::AloneTimeCache cache;
  out.plan = sim::run_workload(out.loaded.workload, out.loaded.gpu, o, cache);
  return out;
}

RunResult launches_finishing_at(const std::vector<TimeNs>& finish) {
  RunResult r;
  for (const TimeNs f : finish) {
    LaunchOutcome o;
    o.finish = f;
    r.launches.push_back(o);
  }
  return r;
}

RunResult plan_of(const std::vector<TimeNs>& finish, std::vector<BlockPiece> pieces) {
  RunResult r;
  for (const TimeNs f : finish) {
    LaunchOutcome o;
    o.finish = f;
    o.turnaround = f;
    r.launches.push_back(o);
  }
  r.schedule.pieces = std::move(pieces);
  return r;
}

Workload a_and_b() {
  return make_workload("w", {kernel("A", 4, 1024, {100}), kernel("B", 2, 1024, {10})},
                       {launch("a", 0, 0), launch("b", 1, 0)});
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int run_cli(const std::string& args, std::string& output) {
  const std::string cmd = fmt::format("{} {} 2>&1", GPUSCHED_BINARY, args);
  FILE* p = popen(cmd.c_str(), "r");
  output.clear();
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace gpusched::test
