// Runs a sweep's jobs on N threads into a result store: runs already stored (same key) are skipped, so a
// sweep killed at any moment resumes with no duplicate and nothing lost; a stop request (Ctrl-C) lets the
// runs in flight finish and be stored, and starts no more. Simulations run in parallel; writes to the store
// are serialised (one SQLite connection, one transaction per run).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "core/store/store.h"
#include "sim/sweep/expansion.h"

namespace gpusched::sim {

struct SweepProgress {
  std::int64_t total = 0;    // jobs in this shard
  std::int64_t skipped = 0;  // already stored before this invocation
  std::int64_t done = 0;     // run and stored by this invocation
  std::int64_t failed = 0;
  double elapsed_s = 0;
  double rate() const { return elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0.0; }
  // Seconds left at the current rate (negative when unknown).
  double eta_s() const;
};

struct SweepOptions {
  int jobs = 1;
  const std::atomic<bool>* stop = nullptr;                         // set by a signal handler
  std::function<void(const SweepProgress&, bool final)> progress;  // called from worker threads, serialised
};

struct SweepOutcome {
  SweepProgress progress;
  bool stopped = false;             // a stop request ended it before every job ran
  std::vector<std::string> errors;  // one line per failed job (the sweep goes on without them)
};

SweepOutcome run_sweep(const SweepPlan& plan, store::Store& store, const SweepOptions& options);

// A progress line: "[#####     ] 123/448 (27%)  57.3 runs/s  ETA 0:05  (skipped 10)".
std::string format_progress(const SweepProgress& p, bool bar);

}  // namespace gpusched::sim
