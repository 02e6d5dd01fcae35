#include "core/realtime_scenario.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/occupancy.h"

namespace gpusched {

namespace {
TimeNs us(double x) { return static_cast<TimeNs>(std::llround(x * 1000.0)); }

// Waves x mean block time, for one kernel alone at full residency: enough to size the scenario.
TimeNs estimate_alone(const KernelProfile& k, const GpuSpec& gpu) {
  const auto occ = compute_occupancy(gpu, k.shape());
  const RecordSet* set = k.primary_records();
  if (occ.blocks_per_sm == 0 || !set || set->sorted_durations.empty())
    throw std::invalid_argument(fmt::format("kernel '{}' cannot run on {} or has no block records", k.name, gpu.name));
  double mean = 0;
  for (const TimeNs d : set->sorted_durations) mean += static_cast<double>(d);
  mean /= static_cast<double>(set->sorted_durations.size());
  const std::int64_t per_wave = static_cast<std::int64_t>(occ.blocks_per_sm) * gpu.sm_count;
  const std::int64_t waves = (k.block_count() + per_wave - 1) / per_wave;
  return static_cast<TimeNs>(static_cast<double>(waves) * mean);
}
}  // namespace

GeneratedProfile realtime_task_profile(const RealtimeScenarioSpec& spec) {
  const GpuSpec* gpu = find_gpu_preset(spec.gpu);
  if (!gpu) throw std::invalid_argument(fmt::format("unknown GPU preset '{}'", spec.gpu));
  const int sms = spec.task_sms > 0 ? spec.task_sms : gpu->sm_count / 2;
  if (sms > gpu->sm_count) throw std::invalid_argument(fmt::format("the task needs {} SMs; {} has {}", sms, gpu->name, gpu->sm_count));
  SyntheticProfileSpec ps;
  ps.name = "rt";
  ps.gpu = gpu->name;
  ps.threads_per_block = 128;
  ps.registers_per_thread = 16;
  const auto occ = compute_occupancy(*gpu, KernelShape{128, 16, 0});
  ps.blocks = static_cast<std::int64_t>(sms) * occ.blocks_per_sm;  // exactly one wave on `sms` SMs
  ps.mean_block_ns = spec.task_us * 1000.0;
  ps.rsd = 0.0;
  ps.idempotent_until = 1.0;
  return synthesize_profile(ps);
}

RealtimeScenario make_realtime_scenario(const std::string& name,
                                        const std::vector<std::shared_ptr<const KernelProfile>>& benchmark,
                                        const RealtimeScenarioSpec& spec) {
  if (benchmark.empty()) throw std::invalid_argument("the real-time scenario needs benchmark kernels");
  if (!(spec.period_us > 0) || !(spec.task_us > 0) || !(spec.latency_limit_us >= 0) || spec.min_periods < 1)
    throw std::invalid_argument("the real-time scenario needs period > 0, task time > 0, latency limit >= 0, periods >= 1");
  const GpuSpec* gpu = find_gpu_preset(spec.gpu);
  if (!gpu) throw std::invalid_argument(fmt::format("unknown GPU preset '{}'", spec.gpu));
  RealtimeScenario out;
  out.task = realtime_task_profile(spec);
  for (const auto& k : benchmark) out.benchmark_alone_estimate += estimate_alone(*k, *gpu);
  const TimeNs period = us(spec.period_us);
  const TimeNs first = spec.first_arrival_us >= 0 ? us(spec.first_arrival_us) : period;
  // Enough passes to cover min_periods; then tasks for as long as the benchmark is expected to run.
  const TimeNs want = first + period * spec.min_periods;
  out.benchmark_passes = static_cast<int>(std::max<TimeNs>(1, (want + out.benchmark_alone_estimate - 1) /
                                                                  std::max<TimeNs>(1, out.benchmark_alone_estimate)));
  const TimeNs horizon = out.benchmark_alone_estimate * out.benchmark_passes;

  std::vector<std::shared_ptr<const KernelProfile>> kernels = benchmark;
  kernels.push_back(std::make_shared<KernelProfile>(out.task.profile));
  const std::size_t task_kernel = kernels.size() - 1;
  std::vector<Launch> launches;
  for (int pass = 0; pass < out.benchmark_passes; ++pass)
    for (std::size_t k = 0; k < benchmark.size(); ++k) {
      Launch l;
      l.id = fmt::format("{}#{}", benchmark[k]->name, pass);
      l.kernel = k;
      l.tenant = "bench";
      l.stream = "bench";
      launches.push_back(std::move(l));
    }
  for (TimeNs t = first; t < horizon || out.task_launches < spec.min_periods; t += period) {
    Launch l;
    l.id = fmt::format("rt#{}", out.task_launches++);
    l.kernel = task_kernel;
    l.tenant = "rt";
    l.arrival = t;
    l.priority = 1;
    l.deadline = t + us(spec.task_us) + us(spec.latency_limit_us);
    launches.push_back(std::move(l));
  }
  out.workload = make_workload(name, std::move(kernels), std::move(launches));
  out.workload.gpu = gpu->name;
  return out;
}

}  // namespace gpusched
