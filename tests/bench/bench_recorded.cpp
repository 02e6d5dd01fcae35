// A recorded workload as the CLI simulates it by default: bursts-h200 (56 launches of the H200 suite, 450,560 blocks)
// under `--interference auto`, which is `equivalent:gpu_wide=on` for these profiles. The model re-rates every SM of
// the GPU whenever a kernel comes or leaves, reading each pair of kernels' terms (docs/performance.md, "The
// equivalent model's pair terms").
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "bench_workload_run.h"
#include "core/workload_io.h"
#include "sim/runner.h"

using namespace gpusched;

namespace {

void BM_RecordedBurstsAuto(benchmark::State& state, const std::string& policy) {
  static const Workload w = read_workload(GPUSCHED_TRACES_DIR "/workloads/bursts-h200.toml", nullptr);
  bench::time_workload(state, w, *find_gpu_preset("h200"), policy, "auto");
}

const bool registered = [] {
  for (const std::string policy : {"fifo", "srtf", "spatial", "mpmax"})
    benchmark::RegisterBenchmark(fmt::format("BM_RecordedBurstsAuto/{}", policy).c_str(), BM_RecordedBurstsAuto, policy)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return true;
}();

}  // namespace
