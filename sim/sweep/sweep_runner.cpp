#include "sim/sweep/sweep_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "sim/run_identity.h"

namespace gpusched::sim {

double SweepProgress::eta_s() const {
  const auto left = total - skipped - done - failed;
  return rate() > 0 ? static_cast<double>(left) / rate() : -1.0;
}

std::string format_progress(const SweepProgress& p, bool bar) {
  const auto finished = p.skipped + p.done + p.failed;
  const double frac = p.total > 0 ? static_cast<double>(finished) / static_cast<double>(p.total) : 1.0;
  std::string out;
  if (bar) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(std::lround(frac * kWidth));
    out = fmt::format("[{}{}] ", std::string(static_cast<std::size_t>(filled), '#'),
                      std::string(static_cast<std::size_t>(kWidth - filled), ' '));
  }
  out += fmt::format("{}/{} ({:.0f}%)  {:.1f} runs/s", finished, p.total, 100.0 * frac, p.rate());
  const double eta = p.eta_s();
  if (eta >= 0) {
    const auto s = static_cast<long long>(std::lround(eta));
    out += fmt::format("  ETA {}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  }
  if (p.skipped) out += fmt::format("  (skipped {} stored)", p.skipped);
  if (p.failed) out += fmt::format("  ({} failed)", p.failed);
  return out;
}

SweepOutcome run_sweep(const SweepPlan& plan, store::Store& store, const SweepOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  SweepOutcome outcome;
  auto& progress = outcome.progress;
  progress.total = static_cast<std::int64_t>(plan.jobs.size());

  // Skip what is stored: one query for all keys rather than one per job.
  std::vector<const SweepJob*> todo;
  {
    const auto keys = store.keys();
    const std::unordered_set<std::string> stored(keys.begin(), keys.end());
    for (const auto& job : plan.jobs) {
      if (stored.count(job.info.key))
        ++progress.skipped;
      else
        todo.push_back(&job);
    }
  }

  std::mutex mutex;  // guards the store, progress and errors
  std::atomic<std::size_t> next{0};
  AloneTimeCache alone;
  const auto report = [&](bool final) {
    progress.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (options.progress) options.progress(progress, final);
  };
  const auto stop_requested = [&] { return options.stop && options.stop->load(); };
  const auto worker = [&] {
    for (;;) {
      if (stop_requested()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= todo.size()) return;
      const SweepJob& job = *todo[i];
      const auto& sw = plan.workloads[job.workload];
      try {
        auto record = run_for_store(sw.workload, plan.gpus[job.gpu], job.options, job.info, alone);
        std::lock_guard lock(mutex);
        store.write_run(record);
        ++progress.done;
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        ++progress.failed;
        outcome.errors.push_back(
            fmt::format("job {} ({} under {}): {}", job.index, sw.workload.name, job.options.policy, e.what()));
      }
      std::lock_guard lock(mutex);
      report(false);
    }
  };
  const int threads = std::max(1, std::min<int>(options.jobs, static_cast<int>(std::max<std::size_t>(1, todo.size()))));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  outcome.stopped = progress.skipped + progress.done + progress.failed < progress.total;
  report(true);
  return outcome;
}

}  // namespace gpusched::sim
