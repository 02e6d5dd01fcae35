#include "live/executor_check.h"

#include <cuda_runtime.h>

#include "live/cuda_check.h"
#include "live/executor/executor.h"
#include "live/executor/fused_executor.h"
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

std::string check_under_fused(const std::vector<SuiteKernel*>& kernels, int sm_count, EntryKind kind, double timeout_s,
                              bool lanes, ExecutorCheck* counts) {
  std::vector<ExecLaunch> launches;
  std::vector<std::vector<FusedEntry>> per_sm(static_cast<std::size_t>(sm_count));
  for (auto* k : kernels) {
    k->setup("small", 7);
    const LaunchShape shape = k->shape("small");
    const auto l = static_cast<std::int32_t>(launches.size());
    launches.push_back({k, shape.threads, shape.blocks, 0, {}, k->name()});
    for (int b = 0; b < shape.blocks; ++b) {
      auto& q = per_sm[static_cast<std::size_t>((b + l) % sm_count)];
      // A block stopped before it runs to its end has several pieces: each claims it (FusedEntry::claims).
      const std::int32_t claims = kind != EntryKind::Run ? 1 : 0;
      if (kind != EntryKind::Run)
        for (const std::int64_t budget : {0, 500, 1000})
          q.push_back({l, b, static_cast<std::int32_t>(kind), 0, claims, budget});
      q.push_back({l, b, static_cast<std::int32_t>(EntryKind::Run), 0, claims, 0});
    }
  }
  if (const auto why = fused_refusal(launches); !why.empty()) return why;
  FusedPlan plan;
  plan.sm_count = sm_count;
  plan.launch_entries.assign(launches.size(), 0);
  plan.switches.assign(launches.size(), kind == EntryKind::Switch);
  plan.stops = kind != EntryKind::Run;
  for (auto& q : per_sm) {
    plan.sm_begin.push_back(static_cast<std::int32_t>(plan.entries.size()));
    // Run: every entry may start at once (the plan's concurrency is the worker's); stops: one after another.
    for (std::size_t i = 0; i < q.size(); ++i) {
      q[i].need_done = kind == EntryKind::Run ? 0 : static_cast<std::int32_t>(i);
      ++plan.launch_entries[static_cast<std::size_t>(q[i].launch)];
      plan.plan_piece.push_back(plan.entries.size());
      plan.entries.push_back(q[i]);
    }
    plan.sm_most.push_back(static_cast<std::int32_t>(q.size()));
  }
  plan.sm_begin.push_back(static_cast<std::int32_t>(plan.entries.size()));
  ExecutorOptions options;
  options.timeout_s = timeout_s;
  options.lanes = lanes;
  const auto result = execute_fused_plan(plan, launches, options);
  if (result.schedule.pieces.size() + static_cast<std::size_t>(result.skipped) != plan.entries.size())
    return "the fused worker left entries untaken";
  if (counts)
    for (const auto& p : result.schedule.pieces) {
      counts->stopped += p.outcome == PieceOutcome::Flushed || p.outcome == PieceOutcome::SwitchedOut;
      counts->resumed += p.outcome == PieceOutcome::SwitchedIn;
    }
  std::string problems;
  for (auto* k : kernels)
    if (const auto problem = k->verify(); !problem.empty()) problems += (problems.empty() ? "" : "; ") + problem;
  return problems;
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
