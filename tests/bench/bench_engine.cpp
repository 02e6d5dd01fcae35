// Engine speed: 64 launches, 1 million blocks, H100 preset, fifo (target: 10 million block events per
// second on one core), and the same number of pushes and pops on a bare std::priority_queue for scale.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <queue>

#include "core/random.h"
#include "sim/runner.h"
#include "tests/bench/million_blocks.h"

using namespace gpusched;

namespace {

// The same number of pushes and pops as the engine's events, with the engine's peak queue size.
double bare_priority_queue_seconds(std::int64_t operations, std::size_t resident) {
  using Item = std::pair<std::int64_t, std::uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  Rng rng(3);
  for (std::size_t i = 0; i < resident; ++i) q.emplace(rng.uniform_int(0, 15000), i);
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t seq = resident;
  for (std::int64_t i = 0; i < operations; ++i) {
    const auto top = q.top();
    q.pop();
    const std::int64_t next = top.first + 5000 + static_cast<std::int64_t>(seq % 10000);
    q.emplace(next, seq);
    ++seq;
  }
  benchmark::DoNotOptimize(q.top());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

static void BM_EngineFifo1MBlocks(benchmark::State& state) {
  const auto& b = bench::million_block_workload();
  const GpuSpec gpu = *find_gpu_preset("h100");
  sim::AloneTimeCache alone;
  sim::RunOptions o;
  o.policy = "fifo";
  o.keep_schedule = state.range(0) != 0;
  std::int64_t events = 0, blocks = 0;
  sim::run_workload(b.workload, gpu, o, alone);  // fills the alone-time cache outside the timing
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const auto r = sim::run_workload(b.workload, gpu, o, alone);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    events += r.events;
    blocks += b.workload.total_blocks();
    benchmark::DoNotOptimize(r.metrics.makespan);
  }
  state.counters["block_events_per_s"] = benchmark::Counter(static_cast<double>(blocks), benchmark::Counter::kIsRate);
  // Scale: the same pushes and pops on a bare priority queue holding the resident blocks (132 SMs x up to 16).
  const double pq = bare_priority_queue_seconds(events / static_cast<std::int64_t>(state.iterations()), 132 * 16);
  state.counters["engine_over_bare_pq"] = seconds / static_cast<double>(state.iterations()) / pq;
}
BENCHMARK(BM_EngineFifo1MBlocks)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("keep_schedule")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same million blocks under other policies (metrics only): what each policy's decisions add to the
// engine's own cost (docs/performance.md).
static void BM_EnginePolicy1MBlocks(benchmark::State& state, const char* policy) {
  const auto& b = bench::million_block_workload();
  const GpuSpec gpu = *find_gpu_preset("h100");
  sim::AloneTimeCache alone;
  sim::RunOptions o;
  o.policy = policy;
  o.keep_schedule = false;
  sim::run_workload(b.workload, gpu, o, alone);  // fills the alone-time cache outside the timing
  for (auto _ : state) benchmark::DoNotOptimize(sim::run_workload(b.workload, gpu, o, alone).metrics.makespan);
  state.counters["block_events_per_s"] =
      benchmark::Counter(static_cast<double>(b.workload.total_blocks()) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_EnginePolicy1MBlocks, sjf, "sjf")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EnginePolicy1MBlocks, srtf, "srtf")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EnginePolicy1MBlocks, kernelet, "kernelet")->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_BarePriorityQueue1M(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(bare_priority_queue_seconds(1'000'064, 132 * 16));
  state.SetItemsProcessed(state.iterations() * 1'000'064);
}
BENCHMARK(BM_BarePriorityQueue1M)->Unit(benchmark::kMillisecond)->UseRealTime();
