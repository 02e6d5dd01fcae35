#include "live/executor/timeshare_executor.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <tuple>

#include "live/cuda_check.h"
#include "live/executor/state_swap.h"

namespace gpusched::live {

namespace {

// Streams, events and device memory of one execution, released however it ends.
struct Resources {
  cudaStream_t compute = nullptr, copy = nullptr;
  std::vector<cudaEvent_t> events;
  std::vector<void*> device;
  ~Resources() {
    for (auto e : events) cudaEventDestroy(e);
    if (compute) cudaStreamDestroy(compute);
    if (copy) cudaStreamDestroy(copy);
    for (void* p : device) cudaFree(p);
  }
  cudaEvent_t event() {
    cudaEvent_t e;
    GPUSCHED_CUDA(cudaEventCreate(&e));
    events.push_back(e);
    return e;
  }
  template <class T>
  T* zeros(std::size_t bytes) {
    void* p = nullptr;
    GPUSCHED_CUDA(cudaMalloc(&p, std::max<std::size_t>(1, bytes)));
    device.push_back(p);
    GPUSCHED_CUDA(cudaMemset(p, 0, std::max<std::size_t>(1, bytes)));
    return static_cast<T*>(p);
  }
};

// Spins on an event until it has completed, ending the process past the watchdog.
void wait_event(cudaEvent_t e, std::chrono::steady_clock::time_point deadline, double timeout_s) {
  for (;;) {
    const cudaError_t q = cudaEventQuery(e);
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) cuda_fail(q, "cudaEventQuery", __FILE__, __LINE__);
    if (std::chrono::steady_clock::now() > deadline) exit_hung("the time-shared execution", timeout_s);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

TimeNs elapsed_ns(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  GPUSCHED_CUDA(cudaEventElapsedTime(&ms, from, to));
  return static_cast<TimeNs>(static_cast<double>(ms) * 1e6);
}

}  // namespace

ExecutionResult execute_timeshare(const std::vector<TimeshareStep>& steps, const std::vector<ExecLaunch>& launches,
                                  const ExecutorOptions& options) {
  const std::size_t n = launches.size();
  ExecutionResult result;
  result.grids.assign(n, 0);
  result.workers_per_sm.assign(n, 0);
  Resources res;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&res.compute, cudaStreamNonBlocking));
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&res.copy, cudaStreamNonBlocking));

  // Per launch: its stamps, and its state in host memory when the plan moves it.
  std::vector<DeviceBlockRecord*> records(n, nullptr);
  std::vector<std::unique_ptr<StateSwap>> swap(n);
  std::vector<std::size_t> last_step(n, steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto l = static_cast<std::size_t>(steps[i].launch);
    if (l >= n) throw LiveError(fmt::format("time-shared execution: a step of unknown launch {}", l));
    last_step[l] = i;
    if (steps[i].kind == TimeshareStepKind::MicroKernel &&
        (steps[i].first_block < 0 || steps[i].first_block + steps[i].blocks > launches[l].blocks))
      throw LiveError(fmt::format("launch '{}': a micro-kernel of blocks [{}, {}) outside its {} blocks",
                                  launches[l].id, steps[i].first_block, steps[i].first_block + steps[i].blocks,
                                  launches[l].blocks));
    if (steps[i].kind != TimeshareStepKind::MicroKernel && !swap[l])
      swap[l] = std::make_unique<StateSwap>(launches[l].kernel->state_buffers());
  }
  for (std::size_t l = 0; l < n; ++l)
    records[l] = res.zeros<DeviceBlockRecord>(record_buffer_bytes(static_cast<int>(launches[l].blocks)));
  std::vector<cudaEvent_t> start(steps.size()), end(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    start[i] = res.event();
    end[i] = res.event();
  }
  // The origin: a %globaltimer stamp between two events on the compute stream, so that event times (the phases) and
  // stamps (the blocks) share one origin to within half the stamp kernel's time.
  auto* origin_stamp = res.zeros<std::uint64_t>(sizeof(std::uint64_t));
  cudaEvent_t before = res.event(), after = res.event();
  // The host's time just before the stamp is queued (later launches pay the same latency; executor.cpp).
  GPUSCHED_CUDA(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  GPUSCHED_CUDA(cudaEventRecord(before, res.compute));
  stamp_gpu_clock_async(origin_stamp, res.compute);
  GPUSCHED_CUDA(cudaEventRecord(after, res.compute));
  GPUSCHED_CUDA(cudaStreamSynchronize(res.compute));
  const auto deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(options.timeout_s));

  // The step before, of the same launch, that a step waits for: a micro-kernel its restore, a save its micro-kernel.
  std::vector<std::ptrdiff_t> last_restore(n, -1), last_kernel(n, -1);
  std::vector<bool> released(n, false);
  bool fault_pending = !options.inject_fault.empty();
  if (fault_pending) check_fault_kind(options.inject_fault);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    const auto l = static_cast<std::size_t>(s.launch);
    if (!released[l]) {  // its arrival on the host clock, then its predecessors' ends
      while (std::chrono::steady_clock::now() - t0 < std::chrono::nanoseconds(launches[l].arrival)) {
        if (std::chrono::steady_clock::now() > deadline) exit_hung("the time-shared execution", options.timeout_s);
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
      for (const std::size_t p : launches[l].predecessors)
        if (last_step[p] < steps.size()) wait_event(end[last_step[p]], deadline, options.timeout_s);
      released[l] = true;
    }
    cudaStream_t stream = s.kind == TimeshareStepKind::MicroKernel ? res.compute : res.copy;
    const std::ptrdiff_t after_step = s.kind == TimeshareStepKind::MicroKernel ? last_restore[l]
                                      : s.kind == TimeshareStepKind::Save      ? last_kernel[l]
                                                                               : -1;
    if (after_step >= 0) GPUSCHED_CUDA(cudaStreamWaitEvent(stream, end[static_cast<std::size_t>(after_step)], 0));
    if (fault_pending) launch_fault_kernel(options.inject_fault, stream);
    fault_pending = false;
    GPUSCHED_CUDA(cudaEventRecord(start[i], stream));
    switch (s.kind) {
      case TimeshareStepKind::Restore:
        swap[l]->restore_async(stream);
        result.bytes_to_device += swap[l]->restore_bytes();
        last_restore[l] = static_cast<std::ptrdiff_t>(i);
        break;
      case TimeshareStepKind::Save:
        swap[l]->save_async(stream);
        result.bytes_to_host += swap[l]->save_bytes();
        break;
      case TimeshareStepKind::MicroKernel: {
        LaunchShape shape{static_cast<int>(s.blocks), launches[l].threads, 0};
        launches[l].kernel->launch(shape, static_cast<int>(s.first_block), records[l] + s.first_block, stream);
        last_kernel[l] = static_cast<std::ptrdiff_t>(i);
        last_restore[l] = -1;
        ++result.grids[l];
        break;
      }
    }
    GPUSCHED_CUDA(cudaEventRecord(end[i], stream));
  }
  for (std::size_t i = 0; i < steps.size(); ++i) wait_event(end[i], deadline, options.timeout_s);
  result.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  GPUSCHED_CUDA(cudaDeviceSynchronize());

  // Event times from `before`; the stamp sits half-way between `before` and `after`.
  std::uint64_t origin_ns = 0;
  GPUSCHED_CUDA(cudaMemcpy(&origin_ns, origin_stamp, sizeof origin_ns, cudaMemcpyDeviceToHost));
  const TimeNs stamp_at = elapsed_ns(before, after) / 2;
  std::vector<std::pair<TimeNs, TimeNs>> measured(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    measured[i] = {elapsed_ns(before, start[i]), elapsed_ns(before, end[i])};
    const TimeNs copy = measured[i].second - measured[i].first;
    if (steps[i].kind == TimeshareStepKind::Restore) result.restore_copy_ns += copy;
    if (steps[i].kind == TimeshareStepKind::Save) result.save_copy_ns += copy;
  }

  std::vector<TimeNs> finish(n, 0);
  for (std::size_t l = 0; l < n; ++l) {
    const auto blocks = static_cast<std::size_t>(launches[l].blocks);
    std::vector<DeviceBlockRecord> r(blocks);
    GPUSCHED_CUDA(cudaMemcpy(r.data(), records[l], blocks * sizeof(DeviceBlockRecord), cudaMemcpyDeviceToHost));
    for (std::size_t b = 0; b < blocks; ++b) {
      if (r[b].start_ns == 0) continue;  // not in any micro-kernel (a launch the plan never ran to its end)
      if (r[b].start_ns < origin_ns || r[b].end_ns < r[b].start_ns)
        throw LiveError(
            fmt::format("launch '{}': block {} has no usable stamp after the execution", launches[l].id, b));
      BlockPiece p;
      p.start = static_cast<TimeNs>(r[b].start_ns - origin_ns) + stamp_at;
      p.end = static_cast<TimeNs>(r[b].end_ns - origin_ns) + stamp_at;
      p.launch = static_cast<std::int32_t>(l);
      p.block = static_cast<std::int32_t>(b);
      p.sm = static_cast<std::int16_t>(r[b].smid);
      finish[l] = std::max(finish[l], p.end);
      result.schedule.pieces.push_back(p);
    }
  }
  std::sort(result.schedule.pieces.begin(), result.schedule.pieces.end(), [](const BlockPiece& a, const BlockPiece& b) {
    return std::tie(a.end, a.sm, a.launch, a.block) < std::tie(b.end, b.sm, b.launch, b.block);
  });
  // Releases as measured_run computes them: the arrival, or the latest predecessor's last block end.
  std::vector<TimeNs> release(n);
  for (std::size_t l = 0; l < n; ++l) {
    release[l] = launches[l].arrival;
    for (const std::size_t p : launches[l].predecessors) release[l] = std::max(release[l], finish[p]);
  }
  result.schedule.phases = measured_phases(steps, measured, release);
  return result;
}

}  // namespace gpusched::live
