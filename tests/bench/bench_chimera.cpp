// Chimera's Algorithm 1 on a full chimera-fermi preemption request: 30 SMs of 8 resident blocks each, all
// three techniques, 15 SMs wanted (the real-time task's request). Section 3.3 argues the selection is
// negligible next to the preemption latency (microseconds): this measures what it costs the simulator per
// request. Also the real-time scenario end to end (LUD: ~400k blocks with 21 task launches) under chimera.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "core/chimera_select.h"
#include "core/profile_io.h"
#include "core/random.h"
#include "core/realtime_scenario.h"
#include "sim/runner.h"

using namespace gpusched;
using namespace gpusched::chimera;

namespace {

void BM_Algorithm1_30Sms_8Blocks(benchmark::State& state) {
  Rng rng(7);
  std::vector<std::vector<BlockObservation>> sms(30);
  for (auto& sm : sms)
    for (int b = 0; b < 8; ++b) sm.push_back({b, rng.uniform(0.0, 1000.0), rng.uniform01() < 0.9, 4096});
  const KernelObservation kernel{1000.0, 35.0};
  const CostModel model{5.9, 0.0};
  const Technique all[] = {Technique::Flush, Technique::Drain, Technique::Switch};
  const Technique sw[] = {Technique::Switch};
  for (auto _ : state) {
    std::vector<SmPlan> plans;
    plans.reserve(sms.size());
    for (std::size_t i = 0; i < sms.size(); ++i) {
      const auto costs = estimate_costs(sms[i], kernel, model, all);
      const auto fallback = estimate_costs(sms[i], kernel, model, sw);
      plans.push_back(plan_sm(static_cast<int>(i), costs, fallback, 15'000.0, sms[i].size()));
    }
    benchmark::DoNotOptimize(select_sms(std::move(plans), 15, 15'000.0));
  }
}
BENCHMARK(BM_Algorithm1_30Sms_8Blocks)->Unit(benchmark::kMicrosecond);

void BM_RealtimeScenarioLud(benchmark::State& state) {
  std::vector<std::shared_ptr<const KernelProfile>> lud;
  for (const char* k : {"lud.0", "lud.1", "lud.2"}) {
    Warnings w;
    lud.push_back(std::make_shared<KernelProfile>(
        read_kernel_profile(std::string(GPUSCHED_TRACES_DIR) + "/chimera/" + k + ".kernel.toml", &w)));
  }
  const auto sc = make_realtime_scenario("lud-rt", lud, RealtimeScenarioSpec{});
  const GpuSpec gpu = *find_gpu_preset("chimera-fermi");
  sim::AloneTimeCache alone;
  std::int64_t blocks = 0;
  for (auto _ : state) {
    sim::RunOptions o;
    o.policy = "chimera";
    o.keep_schedule = false;
    const auto r = sim::run_workload(sc.workload, gpu, o, alone);
    blocks += sc.workload.total_blocks();
    benchmark::DoNotOptimize(r.metrics.makespan);
  }
  state.counters["blocks/s"] = benchmark::Counter(static_cast<double>(blocks), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RealtimeScenarioLud)->Unit(benchmark::kMillisecond);

}  // namespace
