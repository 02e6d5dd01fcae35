// The part start delays of an execution in parts, as `gpusched-live validate` works them out after each execution and
// `auto` for each of the four replayed ways (docs/performance.md, "Part start delays"): spatial's plan of bursts-h200
// (599 parts), executed here by its replay in parts at the launches' priorities. Timed: the plan's side
// (PlanPartIndex), each part's first piece, and the start delays under both rules.
#include <benchmark/benchmark.h>

#include "core/plan_adherence.h"
#include "core/workload_io.h"
#include "sim/part_starts.h"
#include "sim/parts_replay.h"
#include "sim/planned_parts.h"
#include "sim/runner.h"

using namespace gpusched;

namespace {

void BM_PartStartDelays(benchmark::State& state) {
  const Workload w = read_workload(GPUSCHED_TRACES_DIR "/workloads/bursts-h200.toml", nullptr);
  const GpuSpec gpu = *find_gpu_preset("h200");
  sim::AloneTimeCache alone;
  sim::RunOptions o;
  o.policy = "spatial";
  o.interference = sim::resolve_interference("auto", w);
  const RunResult plan = sim::run_workload(w, gpu, o, alone);
  const auto replay = sim::replay_in_parts(w, gpu, plan, sim::planned_parts(plan), o, 6, alone);
  const auto waits = planned_waits(w, plan);
  for (auto _ : state) {
    const sim::PlanPartIndex index(plan);
    const auto starts = sim::part_starts(index, replay.in_workload.schedule);
    benchmark::DoNotOptimize(sim::part_start_delays_both_us(index, replay.in_workload, starts, waits));
  }
  state.counters["parts"] = static_cast<double>(sim::part_starts(plan, replay.in_workload.schedule).size());
}
BENCHMARK(BM_PartStartDelays)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
