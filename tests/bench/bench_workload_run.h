// Timing one workload's simulation under a policy and an interference model, as the CLI runs it (metrics only): the
// loop shared by bench_queue.cpp and bench_recorded.cpp.
#pragma once
#include <benchmark/benchmark.h>

#include <string>

#include "core/gpu_spec.h"
#include "core/workload.h"
#include "sim/runner.h"

namespace gpusched::bench {

// `interference` as `--interference` takes it ("auto" resolved against `w`). The first run, outside the timing,
// fills the alone-time cache. Reports blocks simulated a second.
inline void time_workload(benchmark::State& state, const Workload& w, const GpuSpec& gpu, const std::string& policy,
                          const std::string& interference) {
  sim::AloneTimeCache alone;
  sim::RunOptions o;
  o.policy = policy;
  o.interference = sim::resolve_interference(interference, w);
  o.keep_schedule = false;
  sim::run_workload(w, gpu, o, alone);
  for (auto _ : state) benchmark::DoNotOptimize(sim::run_workload(w, gpu, o, alone).metrics.makespan);
  state.counters["blocks_per_s"] = benchmark::Counter(
      static_cast<double>(w.total_blocks()) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace gpusched::bench
