// Seed 003 section 4.1's real-time scenario: a benchmark (its kernels in order on one stream, repeated)
// beside a synthetic periodic task that arrives every period, needs a set number of SMs for a set time,
// and has a deadline of its run time plus the preemption latency limit.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/workload.h"

namespace gpusched {

struct RealtimeScenarioSpec {
  std::string gpu = "chimera-fermi";
  double period_us = 1000.0;        // "launched every 1ms"
  double task_us = 200.0;           // "executed for 200us"
  int task_sms = 0;                 // SMs the task needs; 0: half of the GPU's ("preempting half of the SMs")
  double latency_limit_us = 15.0;   // deadline = arrival + task time + this
  int min_periods = 20;             // the benchmark repeats until it covers at least this many periods
  double first_arrival_us = -1.0;   // -1: one period after the start
};

struct RealtimeScenario {
  Workload workload;
  GeneratedProfile task;  // the periodic task's kernel (write it out with write_kernel_profile)
  int benchmark_passes = 0;
  int task_launches = 0;
  TimeNs benchmark_alone_estimate = 0;  // one pass alone, from waves x mean block time
};

// The task kernel: task_sms x its residency blocks of exactly task_us each, 128 threads, idempotent.
GeneratedProfile realtime_task_profile(const RealtimeScenarioSpec& spec);

// `benchmark`: the benchmark's kernels in launch order (one pass). Launch ids: "<kernel>#<pass>" on stream
// "bench", and "rt#<k>" with their deadlines, tenant "rt".
RealtimeScenario make_realtime_scenario(const std::string& name,
                                        const std::vector<std::shared_ptr<const KernelProfile>>& benchmark,
                                        const RealtimeScenarioSpec& spec);

}  // namespace gpusched
