// Kernelet's FindCoSchedule over 64 pending kernels (target: under 1 ms, so the policy can run online), on the
// C2050 model: instances of the paper's eight Table 4 kernels (the paper's workloads are instances of eight
// applications) with the IPC cache warm (steady state: the model has seen these kernels) and cold (every
// chain solved in the call), and 64 kernels that all differ (the worst case), cold and warm.
#include <benchmark/benchmark.h>

#include "core/kernelet_plan.h"
#include "core/profile_io.h"
#include "core/random.h"

using namespace gpusched;
using namespace gpusched::kernelet;

namespace {

struct Setup {
  GpuSpec gpu = *find_gpu_preset("c2050");
  SmModel model = sm_model_for(gpu);
  std::vector<PlanKernel> instances, distinct;
};

const Setup& setup() {
  static const Setup made = [] {
    Setup s;
    std::vector<PlanKernel> paper;
    for (const char* name : {"pc", "sad", "spmv", "st", "mm", "mriq", "bs", "tea"}) {
      Warnings w;
      const auto k =
          read_kernel_profile(std::string(GPUSCHED_TRACES_DIR) + "/kernelet/c2050/" + name + ".kernel.toml", &w);
      paper.push_back(plan_kernel(k, s.gpu, s.model));
    }
    Rng rng(1);
    for (int i = 0; i < 64; ++i) {
      s.instances.push_back(paper[static_cast<std::size_t>(i % 8)]);
      PlanKernel d = paper[static_cast<std::size_t>(i % 8)];
      d.model.memory_ratio = rng.uniform(0.0, 0.3);
      d.pur = rng.uniform(0.0, 1.0);
      d.mur = rng.uniform(0.0, 0.2);
      s.distinct.push_back(d);
    }
    return s;
  }();
  return made;
}

void run(benchmark::State& state, const std::vector<PlanKernel>& pending, bool warm) {
  const auto& s = setup();
  IpcCache shared;
  if (warm) find_co_schedule(s.gpu, s.model, pending, {}, shared);
  FindStats stats;
  for (auto _ : state) {
    IpcCache cold;
    auto c = find_co_schedule(s.gpu, s.model, pending, {}, warm ? shared : cold, &stats);
    benchmark::DoNotOptimize(c);
  }
  state.counters["pairs"] = static_cast<double>(stats.pairs);
  state.counters["pruned"] = static_cast<double>(stats.pruned);
  state.counters["evaluated"] = static_cast<double>(stats.evaluated);
}

void BM_FindCoSchedule64PaperKernelsWarm(benchmark::State& st) {
  run(st, setup().instances, true);
}
void BM_FindCoSchedule64PaperKernelsCold(benchmark::State& st) {
  run(st, setup().instances, false);
}
void BM_FindCoSchedule64DistinctWarm(benchmark::State& st) {
  run(st, setup().distinct, true);
}
void BM_FindCoSchedule64DistinctCold(benchmark::State& st) {
  run(st, setup().distinct, false);
}
BENCHMARK(BM_FindCoSchedule64PaperKernelsWarm)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FindCoSchedule64PaperKernelsCold)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FindCoSchedule64DistinctWarm)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FindCoSchedule64DistinctCold)->Unit(benchmark::kMicrosecond);

}  // namespace
