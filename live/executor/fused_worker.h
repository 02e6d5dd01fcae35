// The fused worker kernel (live/executor/fused_worker.cu; docs/validation.md, "Fused workers") as the host sees
// it. Plain C++.
#pragma once
#include "live/executor/fused_types.h"
#include "live/suite/suite.h"

namespace gpusched::live {

// Threads per worker: the widest suite kernel's block. A narrower kernel's block runs on the first threads.
inline constexpr int kFusedWorkerThreads = 256;

// The bodies that can run on fewer threads than the worker has (their code asks the context for its threads).
bool fused_body_runs_narrow(BodyId body);

// Threads of one lane: a worker's half, which runs a narrow body's block on its own (docs/validation.md, "Lanes").
int fused_lane_threads();

// Workers resident per SM, in the variant with safe points (`stops`) or without, with lanes or without.
int fused_worker_occupancy(bool stops, bool lanes);
KernelAttributes fused_worker_attributes(bool stops, bool lanes);

// Queues `workers` worker blocks on `stream` (a cudaStream_t): with `lanes`, each worker's halves take narrow
// entries (FusedLaunch::narrow) on their own.
void launch_fused_workers(const FusedView& view, int workers, bool stops, bool lanes, void* stream);

}  // namespace gpusched::live
