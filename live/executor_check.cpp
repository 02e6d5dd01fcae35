#include "live/executor_check.h"

#include <cuda_runtime.h>

#include "live/cuda_check.h"
#include "live/executor/executor.h"
#include "live/executor/state_swap.h"
#include "live/suite_binding.h"

namespace gpusched::live {

ExecutorCheck check_under_executor(SuiteKernel& k, int sm_count, EntryKind kind, double timeout_s,
                                   bool hardware_placed) {
  k.setup("small", 7);
  const LaunchShape shape = k.shape("small");
  LaunchQueues q;
  if (kind == EntryKind::Run) {
    q = alone_queues(shape.blocks, sm_count, k.executor_occupancy(shape.threads, 0, false));
  } else {
    for (int sm = 0; sm < sm_count; ++sm) {
      q.sm_begin.push_back(static_cast<std::int32_t>(q.entries.size()));
      for (int b = sm; b < shape.blocks; b += sm_count) {
        for (const std::int64_t budget : {0, 500, 1000})
          q.entries.push_back({b, static_cast<std::int32_t>(kind), budget});
        q.entries.push_back({b, static_cast<std::int32_t>(EntryKind::Run), 0});
      }
    }
    q.sm_begin.push_back(static_cast<std::int32_t>(q.entries.size()));
    q.sm_quota.assign(static_cast<std::size_t>(sm_count), 1);
    q.stops = true;
    q.switches = kind == EntryKind::Switch;
  }
  DeviceQueues dq(q, shape.blocks, shape.threads, k.switch_values_per_thread());
  hardware_placed &= kind == EntryKind::Run;
  if (hardware_placed) dq.place_by_hardware(q);
  cudaStream_t stream;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int workers = hardware_placed ? static_cast<int>(dq.entries())
                                      : k.executor_occupancy(shape.threads, 0, kind != EntryKind::Run) * sm_count;
  k.execute(dq.view(), workers, 0, stream);
  wait_for(stream, timeout_s, k.name() + " under the executor");
  cudaStreamDestroy(stream);
  ExecutorCheck out;
  for (const auto& r : dq.records()) {
    const auto o = static_cast<ExecOutcome>(r.outcome);
    if (o == ExecOutcome::None) {
      out.problem = k.name() + ": an entry was not taken by the executor's workers";
      return out;
    }
    out.stopped += o == ExecOutcome::Flushed || o == ExecOutcome::SwitchedOut;
    out.resumed += o == ExecOutcome::SwitchedIn;
  }
  out.problem = k.verify();
  return out;
}

std::string check_time_shared(SuiteKernel& k, int micro_kernels, double timeout_s) {
  k.setup("small", 7);
  const LaunchShape shape = k.shape("small");
  StateSwap swap(k.state_buffers());
  cudaStream_t stream;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int per = (shape.blocks + micro_kernels - 1) / micro_kernels;
  for (int first = 0; first < shape.blocks; first += per) {
    swap.scribble_async(stream);
    swap.restore_async(stream);
    k.launch({std::min(per, shape.blocks - first), shape.threads, shape.dynamic_smem}, first, nullptr, stream);
    swap.save_async(stream);
  }
  swap.scribble_async(stream);
  swap.restore_async(stream);
  wait_for(stream, timeout_s, k.name() + " time-shared");
  cudaStreamDestroy(stream);
  return k.verify();
}

}  // namespace gpusched::live
