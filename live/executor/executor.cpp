#include "live/executor/executor.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "live/cuda_check.h"

namespace gpusched::live {

void exit_hung(const std::string& what, double timeout_s) {
  std::fprintf(stderr, "gpusched-live: error: %s did not finish within %g s (time limit: --timeout)\n", what.c_str(),
               timeout_s);
  std::fflush(stderr);
  std::_Exit(1);
}

namespace {

template <class T>
T* device_copy(const std::vector<T>& host, std::vector<void*>& owned) {
  T* d = nullptr;
  const std::size_t bytes = std::max<std::size_t>(1, host.size()) * sizeof(T);
  GPUSCHED_CUDA(cudaMalloc(&d, bytes));
  owned.push_back(d);
  if (!host.empty()) GPUSCHED_CUDA(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
T* device_zeros(std::size_t count, std::vector<void*>& owned) {
  T* d = nullptr;
  const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
  GPUSCHED_CUDA(cudaMalloc(&d, bytes));
  owned.push_back(d);
  GPUSCHED_CUDA(cudaMemset(d, 0, bytes));
  return d;
}

PieceOutcome piece_outcome(ExecOutcome o) {
  switch (o) {
    case ExecOutcome::Flushed: return PieceOutcome::Flushed;
    case ExecOutcome::SwitchedOut: return PieceOutcome::SwitchedOut;
    case ExecOutcome::SwitchedIn: return PieceOutcome::SwitchedIn;
    case ExecOutcome::Killed: return PieceOutcome::Killed;
    case ExecOutcome::Drained: return PieceOutcome::Drained;
    default: return PieceOutcome::Completed;
  }
}

}  // namespace

DeviceQueues::DeviceQueues(const LaunchQueues& q, std::int64_t blocks, int threads, int values_per_thread,
                           bool save_space) {
  entries_ = q.entries.size();
  const auto sms = q.sm_quota.size();
  view_.entries = device_copy(q.entries, allocations_);
  view_.sm_begin = device_copy(q.sm_begin, allocations_);
  view_.sm_quota = device_copy(q.sm_quota, allocations_);
  view_.sm_next = device_zeros<std::int32_t>(sms, allocations_);
  view_.sm_workers = device_zeros<std::int32_t>(sms, allocations_);
  view_.records = device_zeros<ExecRecord>(entries_, allocations_);
  view_.block_state = device_zeros<std::int32_t>(static_cast<std::size_t>(blocks), allocations_);
  view_.saved_step = device_zeros<std::int32_t>(static_cast<std::size_t>(blocks), allocations_);
  view_.values_per_thread = std::max(0, values_per_thread);
  if ((q.switches || save_space) && values_per_thread > 0)
    view_.saved_values = device_zeros<float>(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads) *
                                                 static_cast<std::size_t>(values_per_thread),
                                             allocations_);
  view_.threads = threads;
  view_.sm_count = static_cast<std::int32_t>(sms);
}

DeviceQueues::~DeviceQueues() {
  for (void* p : allocations_) cudaFree(p);
}

std::vector<ExecRecord> DeviceQueues::records() const {
  std::vector<ExecRecord> out(entries_);
  if (entries_)
    GPUSCHED_CUDA(cudaMemcpy(out.data(), view_.records, entries_ * sizeof(ExecRecord), cudaMemcpyDeviceToHost));
  return out;
}

ExecutionResult execute_plan(const ExecutionPlan& plan, const std::vector<ExecLaunch>& launches,
                             const ExecutorOptions& options) {
  const std::size_t n = launches.size();
  if (plan.launches.size() != n) throw LiveError("execute_plan: the plan and the launches differ in number");
  ExecutionResult result;
  result.grids.assign(n, 0);
  result.workers_per_sm.assign(n, 0);

  struct Live {
    std::unique_ptr<DeviceQueues> queues;
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
    std::int32_t* next_host = nullptr;  // pinned: the SMs' next-entry counters after the last grid
    enum { Waiting, Running, Finished } state = Waiting;
    int workers = 0;
    std::int64_t consumed = -1;     // entries taken after the last grid
    TimeNs retry_at = 0;            // host time before which no new grid is started
    bool waiting_retry = false;
  };
  std::vector<Live> live(n);
  struct Cleanup {
    std::vector<Live>& l;
    ~Cleanup() {
      for (auto& x : l) {
        if (x.done) cudaEventDestroy(x.done);
        if (x.stream) cudaStreamDestroy(x.stream);
        if (x.next_host) cudaFreeHost(x.next_host);
      }
    }
  } cleanup{live};

  const int sm_count = plan.sm_count;
  for (std::size_t i = 0; i < n; ++i) {
    auto& x = live[i];
    const auto& l = launches[i];
    x.queues = std::make_unique<DeviceQueues>(plan.launches[i], l.blocks, l.threads,
                                              l.kernel->switch_values_per_thread());
    GPUSCHED_CUDA(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking));
    GPUSCHED_CUDA(cudaEventCreateWithFlags(&x.done, cudaEventDisableTiming));
    GPUSCHED_CUDA(cudaMallocHost(&x.next_host, sizeof(std::int32_t) * static_cast<std::size_t>(sm_count)));
    x.workers = l.kernel->executor_occupancy(l.threads, 0);
    if (x.workers < 1) throw LiveError(fmt::format("launch '{}': the executor's worker kernel cannot run", l.id));
    result.workers_per_sm[i] = x.workers;
    if (plan.launches[i].stops && l.kernel->switch_values_per_thread() < 0)
      std::fprintf(stderr,
                   "gpusched-live: note: launch '%s' is preempted in the plan, but kernel %s has no safe point: its "
                   "pieces run to their end (drained)\n",
                   l.id.c_str(), l.kernel->name().c_str());
  }
  GPUSCHED_CUDA(cudaDeviceSynchronize());

  auto start_grid = [&](std::size_t i) {
    auto& x = live[i];
    GPUSCHED_CUDA(cudaMemsetAsync(x.queues->view().sm_workers, 0, sizeof(std::int32_t) * sm_count, x.stream));
    launches[i].kernel->execute(x.queues->view(), x.workers * sm_count, 0, x.stream);
    GPUSCHED_CUDA(cudaMemcpyAsync(x.next_host, x.queues->view().sm_next, sizeof(std::int32_t) * sm_count,
                                  cudaMemcpyDeviceToHost, x.stream));
    GPUSCHED_CUDA(cudaEventRecord(x.done, x.stream));
    ++result.grids[i];
    x.state = Live::Running;
  };

  const std::uint64_t origin = gpu_clock_now();
  const auto t0 = std::chrono::steady_clock::now();
  auto now_ns = [&] {
    return static_cast<TimeNs>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  };
  std::size_t finished = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (plan.launches[i].entries.empty()) {  // nothing planned (killed before it started)
      live[i].state = Live::Finished;
      ++finished;
    }
  const auto limit_ns = static_cast<TimeNs>(options.timeout_s * 1e9);
  while (finished < n) {
    const TimeNs now = now_ns();
    if (now > limit_ns) exit_hung("the execution", options.timeout_s);
    bool idle = true;
    for (std::size_t i = 0; i < n; ++i) {
      auto& x = live[i];
      if (x.state == Live::Waiting && !x.waiting_retry) {
        if (launches[i].arrival > now) continue;
        bool ready = true;
        for (const std::size_t p : launches[i].predecessors) ready &= live[p].state == Live::Finished;
        if (!ready) continue;
        start_grid(i);
        idle = false;
      } else if (x.state == Live::Waiting && x.waiting_retry && now >= x.retry_at) {
        x.waiting_retry = false;
        start_grid(i);
        idle = false;
      } else if (x.state == Live::Running) {
        const cudaError_t q = cudaEventQuery(x.done);
        if (q == cudaErrorNotReady) continue;
        if (q != cudaSuccess) cuda_fail(q, "cudaEventQuery", __FILE__, __LINE__);
        idle = false;
        const auto& lq = plan.launches[i];
        std::int64_t consumed = 0;
        for (int s = 0; s < sm_count; ++s)
          consumed += std::min(x.next_host[s], lq.sm_begin[static_cast<std::size_t>(s) + 1] - lq.sm_begin[static_cast<std::size_t>(s)]);
        if (consumed == static_cast<std::int64_t>(lq.entries.size())) {
          x.state = Live::Finished;
          ++finished;
        } else if (consumed == x.consumed) {  // the last grid took nothing: its SMs were full; wait a little
          x.state = Live::Waiting;
          x.waiting_retry = true;
          x.retry_at = now + options.retry_wait_ns;
        } else {
          x.consumed = consumed;
          start_grid(i);
        }
      }
    }
    if (idle) std::this_thread::yield();
  }
  result.wall_ns = now_ns();
  GPUSCHED_CUDA(cudaDeviceSynchronize());

  for (std::size_t i = 0; i < n; ++i) {
    const auto records = live[i].queues->records();
    const auto& lq = plan.launches[i];
    for (std::size_t e = 0; e < records.size(); ++e) {
      const auto& r = records[e];
      const auto outcome = static_cast<ExecOutcome>(r.outcome);
      if (outcome == ExecOutcome::Skipped) {
        ++result.skipped;
        continue;
      }
      if (outcome == ExecOutcome::None || r.end_ns < r.start_ns || r.start_ns < origin)
        throw LiveError(fmt::format("launch '{}': entry {} (block {}) has no record after the execution", launches[i].id,
                                    e, lq.entries[e].block));
      const auto& planned = /* the plan's piece */ lq.plan_piece[e];
      (void)planned;
      BlockPiece p;
      p.start = static_cast<TimeNs>(r.start_ns - origin);
      p.end = static_cast<TimeNs>(r.end_ns - origin);
      p.launch = static_cast<std::int32_t>(i);
      p.block = lq.entries[e].block;
      p.gpu = 0;
      p.sm = static_cast<std::int16_t>(r.smid);
      p.outcome = piece_outcome(outcome);
      result.schedule.pieces.push_back(p);
    }
  }
  std::sort(result.schedule.pieces.begin(), result.schedule.pieces.end(), [](const BlockPiece& a, const BlockPiece& b) {
    return std::tie(a.end, a.sm, a.launch, a.block) < std::tie(b.end, b.sm, b.launch, b.block);
  });
  return result;
}

}  // namespace gpusched::live
