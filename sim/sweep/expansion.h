// A sweep's expansion: its workloads loaded (files, globs, generators), its GPUs resolved, and the cross
// product of workloads x GPUs x GPU counts x policy settings x interference models x seeds as jobs, in a
// fixed order, so that `--shard I/N` (every N-th job from the I-th) means the same on every machine.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/gpu_spec.h"
#include "core/store/store.h"
#include "core/workload.h"
#include "sim/runner.h"
#include "sim/sweep/sweep_file.h"

namespace gpusched::sim {

struct SweepWorkload {
  Workload workload;
  std::string hash;    // workload_content_hash
  std::string source;  // the file, or the generator with its parameters
};

struct SweepJob {
  std::size_t index = 0;     // position in the whole expansion
  std::size_t workload = 0;  // into SweepPlan::workloads
  std::size_t gpu = 0;       // into SweepPlan::gpus
  RunOptions options;        // policy, parameters, interference, seed, GPU count, keep_schedule
  store::RunInfo info;       // identity (key) and provenance, resolved before running
};

struct SweepPlan {
  SweepSpec spec;
  std::vector<SweepWorkload> workloads;
  std::vector<GpuSpec> gpus;
  std::vector<SweepJob> jobs;
};

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
  bool contains(std::size_t job) const { return static_cast<int>(job % static_cast<std::size_t>(count)) == index; }
};
// Parses "I/N" (0 <= I < N); throws std::invalid_argument.
Shard parse_shard(const std::string& text);

// Loads and expands; throws InputError naming the sweep file's line for bad entries (an unknown policy or
// parameter, a glob that matches nothing, a workload without a GPU) and the readers' errors for bad
// workloads. Only the jobs of `shard` are kept (their `index` stays the global one).
SweepPlan expand_sweep(const SweepSpec& spec, Warnings* warnings, const Shard& shard = {});

}  // namespace gpusched::sim
