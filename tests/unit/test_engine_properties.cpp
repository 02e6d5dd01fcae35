// Property tests over many random workloads and seeds, under every registered policy: no SM limit is ever
// exceeded, every block of every launch completes exactly once, time never decreases, dependencies hold,
// and the same inputs and seed give a byte-identical Schedule.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/gpu_file.h"
#include "core/random.h"
#include "core/workload_io.h"
#include "sim/timeline.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::test;

namespace {

Workload random_workload(Rng& rng, const GpuSpec& gpu) {
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  const int nk = static_cast<int>(rng.uniform_int(1, 4));
  while (static_cast<int>(kernels.size()) < nk) {
    const int threads = static_cast<int>(32 * rng.uniform_int(1, 32));
    const int regs = static_cast<int>(rng.uniform_int(0, 64));
    const int smem = static_cast<int>(rng.uniform_int(0, 3) * 8192);
    std::vector<TimeNs> d;
    for (int i = 0, n = static_cast<int>(rng.uniform_int(1, 5)); i < n; ++i) d.push_back(rng.uniform_int(1, 1000));
    auto k =
        kernel(fmt::format("k{}", kernels.size()), static_cast<int>(rng.uniform_int(1, 60)), threads, d, regs, smem);
    if (compute_occupancy(gpu, k->shape()).blocks_per_sm == 0) continue;
    if (rng.uniform01() < 0.3) {  // leave some blocks unrecorded: their durations are seeded draws
      auto& set = k->record_sets[0];
      for (std::size_t b = 1; b < set.duration_by_block.size(); b += 2) set.duration_by_block[b] = -1;
      finalize_record_set(set);
    }
    kernels.push_back(k);
  }
  std::vector<Launch> launches;
  const int nl = static_cast<int>(rng.uniform_int(1, 8));
  for (int i = 0; i < nl; ++i) {
    Launch l =
        launch(fmt::format("l{}", i), static_cast<std::size_t>(rng.uniform_int(0, nk - 1)), rng.uniform_int(0, 2000));
    if (i > 0 && rng.uniform01() < 0.3) l.after.push_back(static_cast<std::size_t>(rng.uniform_int(0, i - 1)));
    const auto s = rng.uniform_int(0, 2);
    if (s > 0) l.stream = fmt::format("s{}", s);
    launches.push_back(l);
  }
  return make_workload("random", kernels, launches);
}

}  // namespace

TEST(EngineProperties, InvariantsHoldUnderEveryPolicy) {
  Rng rng(2026);
  const GpuSpec gpus[] = {gpu_with_sms("h100", 3), gpu_with_sms("gtx480", 2), gpu_with_sms("k40", 4)};
  int runs = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const GpuSpec& gpu = gpus[iter % 3];
    const Workload w = random_workload(rng, gpu);
    const int gpu_count = 1 + iter % 2;
    for (const auto& policy : sim::all_policy_names()) {
      const auto r = run(w, gpu, policy, static_cast<std::uint64_t>(iter), gpu_count);
      const auto problem = check_invariants(w, gpu, r);
      ASSERT_EQ(problem, "") << "policy " << policy << ", iteration " << iter;
      ASSERT_GE(r.metrics.makespan_over_bound, 1.0 - 1e-9) << "policy " << policy << " beat the lower bound";
      ++runs;
    }
  }
  EXPECT_GT(runs, 250);
}

TEST(EngineProperties, InvariantsHoldUnderSrtfsOptions) {
  // remaining=gpu and several samples at once (docs/policies/srtf.md), on the same random workloads, one and two GPUs.
  Rng rng(2026);
  const GpuSpec gpus[] = {gpu_with_sms("h100", 3), gpu_with_sms("gtx480", 2), gpu_with_sms("k40", 4)};
  const std::vector<std::map<std::string, std::string>> options = {
      {{"remaining", "gpu"}}, {{"samples", "2"}}, {{"samples", "8"}, {"remaining", "gpu"}}};
  for (int iter = 0; iter < 60; ++iter) {
    const GpuSpec& gpu = gpus[iter % 3];
    const Workload w = random_workload(rng, gpu);
    const int gpu_count = 1 + iter % 2;
    for (const char* policy : {"srtf", "srtf-adaptive", "srtf-chimera"})
      for (const auto& params : options) {
        const auto r = run(w, gpu, policy, static_cast<std::uint64_t>(iter), gpu_count, params);
        ASSERT_EQ(check_invariants(w, gpu, r), "") << "policy " << policy << ", iteration " << iter;
      }
  }
}

TEST(EngineProperties, EveryPolicyKeepsToTheResidentGrids) {
  // Queues of 10-24 small launches on GPUs that hold 2 or 3 grids at once: under every policy no GPU holds more
  // (check_invariants) and every launch finishes (a policy waiting for a launch that cannot start would stall).
  Rng rng(40);
  for (int iter = 0; iter < 12; ++iter) {
    GpuSpec gpu = gpu_with_sms(iter % 2 ? "gtx480" : "h100", 2 + iter % 3);
    gpu.max_resident_grids = 2 + iter % 2;
    std::vector<std::shared_ptr<const KernelProfile>> kernels;
    for (int k = 0; k < 3; ++k)
      kernels.push_back(kernel(fmt::format("k{}", k), static_cast<int>(rng.uniform_int(1, 12)), 128,
                               {rng.uniform_int(50, 500), rng.uniform_int(50, 500)}));
    std::vector<Launch> launches;
    for (int i = 0, n = static_cast<int>(rng.uniform_int(10, 24)); i < n; ++i)
      launches.push_back(
          launch(fmt::format("l{}", i), static_cast<std::size_t>(rng.uniform_int(0, 2)), rng.uniform_int(0, 300)));
    const Workload w = make_workload("queue", kernels, launches);
    for (const auto& policy : sim::all_policy_names()) {
      const auto r = run(w, gpu, policy, static_cast<std::uint64_t>(iter), 1 + iter % 2);
      ASSERT_EQ(check_invariants(w, gpu, r), "") << "policy " << policy << ", iteration " << iter;
    }
  }
}

TEST(EngineProperties, NoPolicyStallsOnAGrowingQueueWithFewGrids) {
  // tests/data/small/queue.toml (15 launches arriving faster than they finish) with 1-3 resident grids: srtf once kept
  // running a launch the GPU could not start, and sjf and priority let such a launch block the ones that held the
  // grids; each left the GPU idle for good ("left launches unfinished").
  Warnings warn;
  const auto w = read_workload(std::string(GPUSCHED_TEST_DATA) + "/small/queue.toml", &warn);
  GpuSpec gpu = resolve_gpu(w.gpu, &warn);
  for (int grids = 1; grids <= 3; ++grids) {
    gpu.max_resident_grids = grids;
    for (const auto& policy : sim::all_policy_names()) {
      RunResult r;
      ASSERT_NO_THROW(r = run(w, gpu, policy, 1)) << policy << " with " << grids << " grids";
      ASSERT_EQ(check_invariants(w, gpu, r), "") << policy << " with " << grids << " grids";
    }
  }
}

TEST(EngineProperties, SameSeedSameScheduleByteForByte) {
  Rng rng(7);
  const GpuSpec gpu = gpu_with_sms("h100", 3);
  for (int iter = 0; iter < 20; ++iter) {
    const Workload w = random_workload(rng, gpu);
    for (const auto& policy : sim::all_policy_names()) {
      const auto a = run(w, gpu, policy, 99);
      const auto b = run(w, gpu, policy, 99);
      ASSERT_EQ(a.schedule.pieces, b.schedule.pieces) << policy;
      const auto dir = std::filesystem::temp_directory_path();
      sim::write_schedule_csv((dir / "det_a.csv").string(), a.schedule, w);
      sim::write_schedule_csv((dir / "det_b.csv").string(), b.schedule, w);
      ASSERT_EQ(read_file((dir / "det_a.csv").string()), read_file((dir / "det_b.csv").string()));
    }
  }
}

TEST(EngineProperties, UnrecordedBlocksDrawFromTheRecordedDistribution) {
  auto k = kernel("k", 1000, 256, {100, 200, 300});
  auto& set = k->record_sets[0];
  for (std::size_t b = 3; b < set.duration_by_block.size(); ++b) set.duration_by_block[b] = -1;
  finalize_record_set(set);
  const auto w = make_workload("w", {k}, {launch("a", 0, 0)});
  const auto gpu = gpu_with_sms("h100", 2);
  const auto r1 = run(w, gpu, "fifo", 1), r2 = run(w, gpu, "fifo", 2);
  int seen[4] = {0, 0, 0, 0};
  for (const auto& p : r1.schedule.pieces) {
    const TimeNs d = p.end - p.start;
    ASSERT_TRUE(d == 100 || d == 200 || d == 300);
    ++seen[d / 100];
    if (p.block < 3) {
      EXPECT_EQ(d, 100 * (p.block + 1));  // recorded blocks keep their durations
    }
  }
  EXPECT_GT(seen[1], 250);
  EXPECT_GT(seen[3], 250);
  EXPECT_NE(r1.schedule.pieces, r2.schedule.pieces);  // another seed, other draws
}
