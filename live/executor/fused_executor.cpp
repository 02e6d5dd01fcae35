#include "live/executor/fused_executor.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "live/cuda_check.h"
#include "live/executor/device_alloc.h"
#include "live/executor/fused_worker.h"
#include "live/executor/gpu_clock.h"

namespace gpusched::live {

std::string fused_refusal(const std::vector<ExecLaunch>& launches) {
  for (const auto& l : launches) {
    const auto body = static_cast<BodyId>(l.kernel->fused_args().body);
    if (l.threads > kFusedWorkerThreads)
      return fmt::format("launch '{}' has blocks of {} threads, more than the fused worker's {}", l.id, l.threads,
                         kFusedWorkerThreads);
    if (l.threads < kFusedWorkerThreads && !fused_body_runs_narrow(body))
      return fmt::format("launch '{}' ({}) has blocks of {} threads and its body cannot run on part of a worker of {}",
                         l.id, l.kernel->name(), l.threads, kFusedWorkerThreads);
  }
  return {};
}

ExecutionResult execute_fused_plan(const FusedPlan& plan, const std::vector<ExecLaunch>& launches,
                                   const ExecutorOptions& options) {
  const std::size_t n = launches.size();
  if (plan.launch_entries.size() != n)
    throw LiveError("execute_fused_plan: the plan and the launches differ in number");
  if (const auto why = fused_refusal(launches); !why.empty())
    throw LiveError("the fused worker cannot run this: " + why);
  ExecutionResult result;
  result.grids.assign(n, 1);
  result.green_sms.assign(n, 0);
  const bool stops = plan.stops;
  // Lanes (docs/validation.md, "Lanes"): where some launch's blocks fit half a worker, each half takes entries.
  std::vector<char> narrow(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    narrow[i] = options.lanes && launches[i].threads <= fused_lane_threads() &&
                fused_body_runs_narrow(static_cast<BodyId>(launches[i].kernel->fused_args().body));
  const bool lanes = std::find(narrow.begin(), narrow.end(), 1) != narrow.end();
  const int per_sm = fused_worker_occupancy(stops, lanes);
  if (per_sm < 1) throw LiveError("the fused worker kernel cannot run on this GPU");
  result.workers_per_sm.assign(n, per_sm);
  result.lanes = lanes;
  // The most pieces at once on one SM that the workers hold: two per worker where every piece is narrow.
  const int most = plan.sm_most.empty() ? 0 : *std::max_element(plan.sm_most.begin(), plan.sm_most.end());
  const bool all_narrow = std::find(narrow.begin(), narrow.end(), 0) == narrow.end();
  const int held = per_sm * (all_narrow ? 2 : 1);
  if (most > held)
    result.notes.push_back(fmt::format(
        "the plan runs up to {} pieces at once on an SM, the fused worker {} ({} workers of {} threads{}): the "
        "SM's later pieces wait for a worker",
        most, held, per_sm, kFusedWorkerThreads, lanes ? ", two lanes each for the narrow kernels" : ""));

  DeviceArena arena;
  std::vector<FusedLaunch> fl(n);
  std::vector<std::int32_t> preds;
  std::int64_t blocks = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& l = launches[i];
    auto& f = fl[i];
    f.args = l.kernel->fused_args();
    f.args.threads = l.threads;
    f.release_ns = l.arrival;
    f.narrow = narrow[i];
    f.pred_begin = static_cast<std::int32_t>(preds.size());
    for (const std::size_t p : l.predecessors) preds.push_back(static_cast<std::int32_t>(p));
    f.pred_count = static_cast<std::int32_t>(l.predecessors.size());
    f.block_base = static_cast<std::int32_t>(blocks);
    blocks += l.blocks;
    const int values = l.kernel->switch_values_per_thread();
    f.values_per_thread = std::max(0, values);
    if (plan.switches[i] && values > 0)
      f.saved_values = arena.zeros<float>(static_cast<std::size_t>(l.blocks) * static_cast<std::size_t>(l.threads) *
                                          static_cast<std::size_t>(values));
    if (stops && values < 0)
      result.notes.push_back(fmt::format(
          "kernel {} has no safe point: where a plan flushes, switches out or kills its blocks, they run to their end",
          l.kernel->name()));
  }
  for (const auto& l : launches)
    for (const std::size_t p : l.predecessors) fl[p].successors = 1;
  const std::size_t entries = plan.entries.size();
  FusedView v;
  v.entries = arena.copy(plan.entries);
  v.sm_begin = arena.copy(plan.sm_begin);
  v.sm_next = arena.zeros<std::int32_t>(static_cast<std::size_t>(plan.sm_count));
  v.sm_done = arena.zeros<std::int32_t>(static_cast<std::size_t>(plan.sm_count));
  v.launches = arena.copy(fl);
  v.preds = arena.copy(preds);
  v.launch_left = arena.copy(plan.launch_entries);
  v.block_state = arena.zeros<std::int32_t>(static_cast<std::size_t>(blocks));
  v.saved_step = arena.zeros<std::int32_t>(static_cast<std::size_t>(blocks));
  v.records = arena.zeros<ExecRecord>(entries);
  v.entry_worker = arena.zeros<std::int32_t>(entries);
  auto* origin = arena.zeros<std::uint64_t>(1);
  v.origin = origin;
  v.sm_count = plan.sm_count;
  v.claims = stops;
  v.entries_per_worker = std::max(0, options.entries_per_worker);
  v.started = arena.zeros<std::int32_t>(1);
  v.sm_workers = arena.zeros<std::int32_t>(static_cast<std::size_t>(plan.sm_count));
  if (options.in_order_starts) v.sm_started = arena.zeros<std::int32_t>(static_cast<std::size_t>(plan.sm_count));
  // Resident workers, and with workers that leave one more per entries_per_worker entries for the hardware to place
  // as they leave (plan.h's worker_grid_blocks).
  const int workers = worker_grid_blocks(per_sm, plan.sm_count, entries, v.entries_per_worker);

  cudaStream_t stream = nullptr;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  GPUSCHED_CUDA(cudaDeviceSynchronize());
  if (!options.inject_fault.empty()) {
    check_fault_kind(options.inject_fault);
    launch_fault_kernel(options.inject_fault, stream);
  }
  const auto t0 = std::chrono::steady_clock::now();
  // The origin, then the workers right behind it: a launch arriving at 0 may start as soon as a worker is placed.
  stamp_gpu_clock_async(origin, stream);
  launch_fused_workers(v, workers, stops, lanes, stream);
  const auto limit = std::chrono::duration<double>(options.timeout_s);
  for (;;) {
    const cudaError_t q = cudaStreamQuery(stream);
    if (q == cudaSuccess) break;
    if (q != cudaErrorNotReady) cuda_fail(q, "cudaStreamQuery", __FILE__, __LINE__);
    if (std::chrono::steady_clock::now() - t0 > limit) exit_hung("the execution", options.timeout_s);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  result.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  std::uint64_t origin_ns = 0;
  GPUSCHED_CUDA(cudaMemcpy(&origin_ns, origin, sizeof origin_ns, cudaMemcpyDeviceToHost));
  std::vector<ExecRecord> records(entries);
  if (entries)
    GPUSCHED_CUDA(cudaMemcpy(records.data(), v.records, entries * sizeof(ExecRecord), cudaMemcpyDeviceToHost));

  std::vector<std::int32_t> words(entries);
  if (entries)
    GPUSCHED_CUDA(cudaMemcpy(words.data(), v.entry_worker, entries * sizeof(std::int32_t), cudaMemcpyDeviceToHost));

  std::vector<std::int64_t> release(n);
  std::vector<std::vector<std::size_t>> predecessors(n);
  for (std::size_t i = 0; i < n; ++i) {
    release[i] = launches[i].arrival;
    predecessors[i] = launches[i].predecessors;
  }
  const auto latency = entry_ready_latency(plan, records, origin_ns, release, predecessors);

  std::vector<std::pair<BlockPiece, std::size_t>> executed;
  for (std::size_t e = 0; e < entries; ++e) {
    const auto& en = plan.entries[e];
    const auto piece =
        executed_piece(records[e], origin_ns, en.launch, en.block, launches[static_cast<std::size_t>(en.launch)].id, e);
    if (!piece) {
      ++result.skipped;
      continue;
    }
    executed.emplace_back(*piece, plan.plan_piece[e]);
    const std::size_t planned = plan.plan_piece[e];
    if (result.worker_of_plan_piece.size() <= planned) result.worker_of_plan_piece.resize(planned + 1, -1);
    result.worker_of_plan_piece[planned] = words[e];
    if (result.ready_latency_of_plan_piece.size() <= planned)
      result.ready_latency_of_plan_piece.resize(planned + 1, kNoLatency);
    result.ready_latency_of_plan_piece[planned] = latency[e];
  }
  set_executed_pieces(result, std::move(executed));
  return result;
}

}  // namespace gpusched::live
