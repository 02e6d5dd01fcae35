// The fused worker (docs/validation.md, "Fused workers"): one kernel that can run the block body of every suite
// kernel, so that a worker resident on an SM passes from one launch's piece to another's without a grid being
// placed. Each worker reads %smid and takes the entries of its SM's one queue in order (fused_types.h).
#include <cuda_runtime.h>

#include "live/cuda_check.h"
#include "live/executor/fused_worker.h"
#include "live/suite/blackscholes_body.cuh"
#include "live/suite/gather_body.cuh"
#include "live/suite/histogram_body.cuh"
#include "live/suite/launcher.cuh"  // BlockContext, then the executor's ExecContext
#include "live/suite/mriq_body.cuh"
#include "live/suite/sad_body.cuh"
#include "live/suite/sgemm_body.cuh"
#include "live/suite/spmv_body.cuh"
#include "live/suite/stencil_body.cuh"
#include "live/suite/xtea_body.cuh"

namespace gpusched::live {
namespace {

// Eight workers of 256 threads fill an SM's 2048 threads; the bound keeps the fused kernel at 32 registers per
// thread (the most of any body but spmv's 40), so that its registers do not lower that residency.
constexpr int kMinWorkersPerSm = 8;

// What a body sees in the fused worker when no piece can be stopped: BlockContext's constants, but the kernel's
// own threads per block, which may be fewer than the worker's.
struct FusedPlainContext {
  int block;
  unsigned width;
  __device__ unsigned thread() const { return threadIdx.x; }
  __device__ unsigned threads() const { return width; }
  __device__ bool active() const { return threadIdx.x < width; }
  __device__ void mark_not_idempotent() const {}
  __device__ static constexpr int resume_step() { return 0; }
  __device__ static constexpr float restore(int, float fresh) { return fresh; }
  __device__ static constexpr bool should_stop(int) { return false; }
  __device__ static constexpr void save(int, float) {}
};

template <class Body, class Ctx>
__device__ void run_body(const BodyArgs& a, const Ctx& ctx) {
  const typename Body::Args args = *reinterpret_cast<const typename Body::Args*>(a.bytes);
  Body::block(args, ctx);
}

// The body is the same for every thread of the worker (one entry at a time), so the switch does not diverge.
template <class Ctx>
__device__ void run_entry_body(const BodyArgs& a, const Ctx& ctx) {
  switch (static_cast<BodyId>(a.body)) {
    case BodyId::BlackScholes:
      run_body<suite_blackscholes::BlackScholesBody>(a, ctx);
      break;
    case BodyId::Gather:
      run_body<suite_gather::GatherBody>(a, ctx);
      break;
    case BodyId::Histogram:
      run_body<suite_histogram::HistogramBody>(a, ctx);
      break;
    case BodyId::Mriq:
      run_body<suite_mriq::MriqBody>(a, ctx);
      break;
    case BodyId::Sad:
      run_body<suite_sad::SadBody>(a, ctx);
      break;
    case BodyId::Sgemm:
      run_body<suite_sgemm::SgemmBody>(a, ctx);
      break;
    case BodyId::Spmv:
      run_body<suite_spmv::SpmvBody>(a, ctx);
      break;
    case BodyId::Stencil:
      run_body<suite_stencil::StencilBody>(a, ctx);
      break;
    case BodyId::Xtea:
      run_body<suite_xtea::XteaBody>(a, ctx);
      break;
  }
}

__device__ inline int volatile_load(const std::int32_t* p) { return *reinterpret_cast<const volatile int*>(p); }

// Counts an entry as ended: for the SM's later entries and the launches that depend on this one. The fence
// publishes the piece's writes (and saved state) before the counts that let others read them.
__device__ inline void count_ended(const FusedView& v, unsigned sm, int launch) {
  __threadfence();
  atomicAdd(&v.sm_done[sm], 1);
  atomicSub(&v.launch_left[launch], 1);
}

// Takes the SM's next entry and waits until it may start: as many of the SM's earlier pieces ended as in the plan,
// its launch arrived, its predecessors finished, and (where blocks have several pieces) its block claimed. An entry
// whose block already ran to its end is recorded as skipped and the next one taken. -1: the queue is empty.
// Thread 0 only.
__device__ int take_and_wait(const FusedView& v, unsigned sm, int begin, int count, std::uint64_t origin, int* resume,
                             int* restored) {
  for (;;) {
    const int i = atomicAdd(&v.sm_next[sm], 1);
    if (i >= count) return -1;
    const int e = begin + i;
    const FusedEntry en = v.entries[e];
    while (volatile_load(&v.sm_done[sm]) < en.need_done) __nanosleep(32);
    const FusedLaunch& l = v.launches[en.launch];
    const std::uint64_t release = origin + static_cast<std::uint64_t>(l.release_ns);
    while (globaltimer_ns() < release) __nanosleep(256);
    for (int p = 0; p < l.pred_count; ++p)
      while (volatile_load(&v.launch_left[v.preds[l.pred_begin + p]]) > 0) __nanosleep(256);
    __threadfence();  // the predecessors' writes are read after their counts
    *resume = 0;
    *restored = 0;
    if (!v.claims) return e;
    std::int32_t* state_of = &v.block_state[l.block_base + en.block];
    int state;
    for (;;) {
      state = atomicCAS(state_of, kBlockFresh, kBlockRunning);
      if (state == kBlockFresh || state == kBlockDone) break;
      if (state == kBlockSaved && atomicCAS(state_of, kBlockSaved, kBlockRunning) == kBlockSaved) break;
      __nanosleep(128);
    }
    if (state == kBlockDone) {
      const std::uint64_t now = globaltimer_ns();
      v.records[e] = ExecRecord{now, now, sm, static_cast<std::uint32_t>(ExecOutcome::Skipped)};
      count_ended(v, sm, en.launch);
      continue;
    }
    __threadfence();  // a switched-out block's saved values are read after its state
    *restored = state == kBlockSaved;
    *resume = *restored ? v.saved_step[l.block_base + en.block] : 0;
    return e;
  }
}

template <bool Stops>
__global__ void __launch_bounds__(kFusedWorkerThreads, kMinWorkersPerSm) fused_kernel(FusedView v) {
  __shared__ int s_entry, s_resume, s_restored, s_kind, s_stop, s_step;
  __shared__ unsigned long long s_start, s_stop_at;
  const unsigned sm = sm_id();
  if (threadIdx.x == 0 && v.worker_sm) v.worker_sm[blockIdx.x] = sm + 1;
  if (sm >= static_cast<unsigned>(v.sm_count)) return;  // the same for every thread of the worker
  const int begin = v.sm_begin[sm], count = v.sm_begin[sm + 1] - begin;
  const std::uint64_t origin = *v.origin;
  for (;;) {
    if (threadIdx.x == 0) {
      int resume = 0, restored = 0;
      const int e = take_and_wait(v, sm, begin, count, origin, &resume, &restored);
      s_entry = e;
      s_resume = resume;
      s_restored = restored;
      s_stop = 0;
      s_start = globaltimer_ns();
      if (e >= 0) {
        const FusedEntry en = v.entries[e];
        const bool stopped = en.kind != static_cast<int>(EntryKind::Run);
        s_stop_at = stopped ? s_start + static_cast<unsigned long long>(en.budget_ns) : ~0ull;
        s_kind = en.kind;
      }
    }
    __syncthreads();
    const int e = s_entry;
    if (e < 0) break;
    const FusedEntry en = v.entries[e];
    const FusedLaunch& l = v.launches[en.launch];
    const unsigned width = static_cast<unsigned>(l.args.threads);
    if constexpr (Stops) {
      float* values = l.saved_values ? l.saved_values + static_cast<std::size_t>(en.block) * width *
                                                            static_cast<std::size_t>(l.values_per_thread)
                                     : nullptr;
      const ExecContext ctx{en.block, s_resume, values, l.values_per_thread, s_stop_at, s_kind, &s_stop, &s_step,
                            width};
      run_entry_body(l.args, ctx);
    } else {
      run_entry_body(l.args, FusedPlainContext{en.block, width});
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const std::uint64_t end = globaltimer_ns();
      ExecOutcome outcome;
      int state = kBlockDone;
      if (s_stop) {
        if (s_kind == static_cast<int>(EntryKind::Switch)) {
          outcome = ExecOutcome::SwitchedOut;
          state = kBlockSaved;
          v.saved_step[l.block_base + en.block] = s_step;
        } else if (s_kind == static_cast<int>(EntryKind::Flush)) {
          outcome = ExecOutcome::Flushed;
          state = kBlockFresh;
        } else {
          outcome = ExecOutcome::Killed;
        }
      } else if (s_restored) {
        outcome = ExecOutcome::SwitchedIn;
      } else {
        outcome = end >= s_stop_at ? ExecOutcome::Drained : ExecOutcome::Completed;
      }
      v.records[e] = ExecRecord{s_start, end, sm, static_cast<std::uint32_t>(outcome)};
      if (v.claims) {
        __threadfence();  // saved values and step before the state that publishes them
        atomicExch(&v.block_state[l.block_base + en.block], state);
      }
      count_ended(v, sm, en.launch);
    }
  }
}

}  // namespace

bool fused_body_runs_narrow(BodyId body) { return body == BodyId::BlackScholes; }

int fused_worker_occupancy(bool stops) {
  int n = 0;
  GPUSCHED_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, stops ? fused_kernel<true> : fused_kernel<false>,
                                                              kFusedWorkerThreads, 0));
  return n;
}

KernelAttributes fused_worker_attributes(bool stops) {
  cudaFuncAttributes a{};
  GPUSCHED_CUDA(cudaFuncGetAttributes(&a, stops ? fused_kernel<true> : fused_kernel<false>));
  return {a.numRegs, static_cast<int>(a.sharedSizeBytes), a.maxThreadsPerBlock, static_cast<int>(a.localSizeBytes)};
}

void launch_fused_workers(const FusedView& view, int workers, bool stops, void* stream) {
  const auto st = static_cast<cudaStream_t>(stream);
  if (stops)
    fused_kernel<true><<<workers, kFusedWorkerThreads, 0, st>>>(view);
  else
    fused_kernel<false><<<workers, kFusedWorkerThreads, 0, st>>>(view);
  GPUSCHED_CUDA(cudaGetLastError());
}

}  // namespace gpusched::live
