// A recorded workload as the CLI simulates it by default: bursts-h200 (56 launches of the H200 suite, 450,560 blocks)
// under `--interference auto`, which is `equivalent:gpu_wide=on` for these profiles. The model re-rates every SM of
// the GPU whenever a kernel comes or leaves, reading each pair of kernels' terms (docs/performance.md, "The
// equivalent model's pair terms").
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "core/workload_io.h"
#include "sim/runner.h"

using namespace gpusched;

namespace {

void BM_RecordedBurstsAuto(benchmark::State& state, const std::string& policy) {
  static const Workload w = read_workload(GPUSCHED_TRACES_DIR "/workloads/bursts-h200.toml", nullptr);
  const GpuSpec gpu = *find_gpu_preset("h200");
  sim::AloneTimeCache alone;
  sim::RunOptions o;
  o.policy = policy;
  o.interference = sim::resolve_interference("auto", w);
  o.keep_schedule = false;
  sim::run_workload(w, gpu, o, alone);  // fills the alone-time cache outside the timing
  for (auto _ : state) benchmark::DoNotOptimize(sim::run_workload(w, gpu, o, alone).metrics.makespan);
  state.counters["blocks_per_s"] = benchmark::Counter(
      static_cast<double>(w.total_blocks()) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

const bool registered = [] {
  for (const std::string policy : {"fifo", "srtf", "spatial", "mpmax"})
    benchmark::RegisterBenchmark(fmt::format("BM_RecordedBurstsAuto/{}", policy).c_str(), BM_RecordedBurstsAuto, policy)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return true;
}();

}  // namespace
