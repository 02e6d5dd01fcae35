// Policies under a growing queue (issue "Speed"): N launches of the recorded H100 mriq-s1 kernel (2048 blocks,
// about 350 us alone) arriving every 20 us, so hundreds wait at once. One benchmark per registered policy;
// the target is every policy within 5x fifo's time at N = 2000 (docs/performance.md).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <memory>

#include "bench_workload_run.h"
#include "core/profile_io.h"
#include "core/workload.h"
#include "sim/runner.h"

using namespace gpusched;

namespace {

Workload queued_mriq(int launches) {
  static const auto mriq = std::make_shared<const KernelProfile>(
      read_kernel_profile(GPUSCHED_TRACES_DIR "/live/h100/mriq-s1.kernel.toml", nullptr));
  std::vector<Launch> list;
  for (int i = 0; i < launches; ++i) {
    Launch l;
    l.id = fmt::format("m{}", i);
    l.kernel = 0;
    l.arrival = static_cast<TimeNs>(i) * 20'000;
    list.push_back(l);
  }
  return make_workload(fmt::format("mriq-{}", launches), {mriq}, list);
}

// `interference`: "none" (BM_QueuedMriq), or "auto" as the CLI runs it (BM_QueuedMriqAuto: `age` here, from the
// co-run records beside the profile), which re-times the blocks of an SM whenever its launches change.
void BM_QueuedMriq(benchmark::State& state, const std::string& policy, const std::string& interference) {
  bench::time_workload(state, queued_mriq(static_cast<int>(state.range(0))), *find_gpu_preset("h100"), policy,
                       interference);
}

const bool registered = [] {
  for (const std::string interference : {"none", "auto"})
    for (const auto& policy : sim::all_policy_names())
      benchmark::RegisterBenchmark(
          fmt::format("BM_QueuedMriq{}/{}", interference == "auto" ? "Auto" : "", policy).c_str(), BM_QueuedMriq,
          policy, interference)
          ->Arg(2000)
          ->ArgName("launches")
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
  return true;
}();

}  // namespace
