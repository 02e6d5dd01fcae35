// What identifies a simulated run in the result store: its settings resolved (policy parameters with their
// defaults, the interference model with its parameters, the GPU count) before it runs, so that a sweep can skip
// a run that is already stored; plus provenance (version, commit, host, times).
#pragma once
#include <string>

#include "core/gpu_spec.h"
#include "core/store/store.h"
#include "core/workload.h"
#include "sim/runner.h"

namespace gpusched::sim {

// Throws std::invalid_argument for unknown policies, models or parameters (as run_workload would).
// `workload_hash` is workload_content_hash(w), passed in because a sweep hashes a workload once for many runs.
store::RunInfo describe_sim_run(const Workload& w, const std::string& workload_hash, const GpuSpec& gpu,
                                const RunOptions& o, const std::string& sweep = "");

// Runs it and builds the record to store (started_at / finished_at filled).
store::RunRecord run_for_store(const Workload& w, const GpuSpec& gpu, const RunOptions& o, store::RunInfo info,
                               AloneTimeCache& alone);

// The gpusched version and git commit this library was built from.
const char* gpusched_version();
const char* gpusched_git_commit();

}  // namespace gpusched::sim
