// The executor's persistent worker kernel around a suite kernel's per-block body (docs/validation.md, "The
// executor"), and the context a body sees under it: safe points where it can be stopped, and the loop state a
// switched-out block saved. Included by launcher.cuh, so every suite kernel gets an executor instantiation.
#pragma once
#include <cuda_runtime.h>

#include "live/executor/exec_types.h"
#include "live/suite/device_clock.cuh"

namespace gpusched::live {

// What a body sees under the executor. The same calls on BlockContext (plain and recording launches) are
// constants, so those builds compile as before.
struct ExecContext {
  int block;
  int resume;     // the loop step to resume at (0: from the start)
  float* values;  // this block's saved values (values_per_thread per thread), or null
  int values_per_thread;
  std::uint64_t stop_at;  // %globaltimer at which the block must stop at its next safe point (~0: never)
  int kind;               // EntryKind of that stop
  int* stop_flag;         // shared memory: the safe point's verdict, for every thread
  int* stop_step;         // shared memory: the step the block stopped at
  // The kernel's threads per block: blockDim.x, or fewer in the fused worker (a block as wide as the widest
  // kernel's), whose threads past `width` are not active: they only keep the barriers company.
  unsigned width;
  // The fused worker's lanes (docs/validation.md, "Lanes"): a narrow kernel's block may run on one half of a
  // worker while the other half runs another block. `first` is the lane's first thread; `barrier` its named
  // barrier (0: the whole block's, __syncthreads) over `barrier_threads` threads.
  unsigned first = 0;
  unsigned barrier = 0;
  unsigned barrier_threads = 0;

  __device__ unsigned thread() const { return threadIdx.x - first; }
  __device__ unsigned threads() const { return width; }
  __device__ bool active() const { return thread() < width; }
  // Barrier ids are immediates: with an id in a register ptxas reserves all 16 of the block's barriers, and the
  // SM's barriers then limit the workers resident to 4.
  __device__ void sync() const {
    if (barrier == 0)
      __syncthreads();
    else if (barrier == 1)
      asm volatile("bar.sync 1, %0;" ::"r"(barrier_threads) : "memory");
    else
      asm volatile("bar.sync 2, %0;" ::"r"(barrier_threads) : "memory");
  }

  __device__ int resume_step() const { return resume; }
  // A value a switched-out block saved (slot of this thread), or `fresh` when the block starts afresh.
  __device__ float restore(int slot, float fresh) const {
    return resume > 0 && values && active() ? values[thread() * values_per_thread + slot] : fresh;
  }
  // A safe point before loop step `step`: every thread of the block calls it (it has barriers). True when the
  // block must stop now; a switched-out block then saves its values with save() and returns.
  static constexpr bool kCanStop = true;
  __device__ bool should_stop(int step) const {
    if (stop_at == ~0ull) return false;  // the same for every thread: no barrier is reached
    sync();                              // every thread has read the previous verdict
    if (thread() == 0) {
      const bool stop = globaltimer_ns() >= stop_at;
      *stop_flag = stop;
      if (stop) *stop_step = step;
    }
    sync();
    return *stop_flag != 0;
  }
  __device__ void save(int slot, float v) const {
    if (kind == static_cast<int>(EntryKind::Switch) && values && active())
      values[thread() * values_per_thread + slot] = v;
  }
  __device__ void mark_not_idempotent() const {}
};

// How a piece ended, and the state its block is left in: stopped at a safe point (switched out, flushed or killed,
// by the entry's `kind`), resumed from a saved state, asked to stop but without a safe point left (`asked`: drained),
// or completed.
__device__ inline ExecOutcome piece_outcome(bool stopped, int kind, bool restored, bool asked, int* state) {
  *state = kBlockDone;
  if (stopped) {
    if (kind == static_cast<int>(EntryKind::Switch)) {
      *state = kBlockSaved;
      return ExecOutcome::SwitchedOut;
    }
    if (kind == static_cast<int>(EntryKind::Flush)) {
      *state = kBlockFresh;
      return ExecOutcome::Flushed;
    }
    return ExecOutcome::Killed;
  }
  if (restored) return ExecOutcome::SwitchedIn;
  return asked ? ExecOutcome::Drained : ExecOutcome::Completed;
}

// Claims a block for a piece: fresh or saved becomes running; a block another worker is running is waited for.
// Returns the state it was found in (kBlockDone: it already ran to its end, nothing claimed).
__device__ inline int claim_block(std::int32_t* state_of) {
  for (;;) {
    const int state = atomicCAS(state_of, kBlockFresh, kBlockRunning);
    if (state == kBlockFresh || state == kBlockDone) return state;
    if (state == kBlockSaved && atomicCAS(state_of, kBlockSaved, kBlockRunning) == kBlockSaved) return state;
    __nanosleep(256);
  }
}

// Takes the next entry of SM `sm`'s queue whose block can run here, claiming the block; returns -1 when the
// queue is empty, the stop has passed, or the entry's gate is closed and the launch that will open it has no worker
// on this SM (this worker leaves, making room for one). While that launch has a worker here, the gate is waited
// for. A block another worker is running (the plan's earlier piece of it, late here) is waited for; a block
// already done is recorded as skipped. Thread 0 only.
__device__ inline int take_entry(const ExecQueues& q, unsigned sm, int begin, int count, int* resume, int* restored) {
  for (;;) {
    if (q.stop_at_ns != ~0ull && globaltimer_ns() >= q.stop_at_ns) return -1;
    int i;
    if (!q.gated) {
      i = atomicAdd(&q.sm_next[sm], 1);
      if (i >= count) {
        atomicSub(&q.sm_next[sm], 1);  // keeps the counter at the queue's length for the host and the gates
        return -1;
      }
    } else {
      i = *reinterpret_cast<volatile int*>(&q.sm_next[sm]);
      if (i >= count) return -1;
    }
    const int e = begin + i;
    const ExecEntry en = q.entries[e];
    if (q.gated && en.gate_launch >= 0) {
      const std::size_t at = static_cast<std::size_t>(en.gate_launch) * q.sm_count + sm;
      if (*reinterpret_cast<const volatile int*>(&q.all_next[at]) <= en.gate_entry) {
        if (*reinterpret_cast<const volatile int*>(&q.all_workers[at]) == 0) return -1;
        __nanosleep(512);
        continue;
      }
    }
    if (q.gated && atomicCAS(&q.sm_next[sm], i, i + 1) != i) continue;
    *resume = 0;
    *restored = 0;
    if (!q.claims) return e;
    const int block = en.block;
    const int state = claim_block(&q.block_state[block]);
    if (state == kBlockDone) {
      const std::uint64_t now = globaltimer_ns();
      q.records[e] = ExecRecord{now, now, sm, static_cast<std::uint32_t>(ExecOutcome::Skipped)};
      continue;
    }
    __threadfence();  // a switched-out block's saved values are read after its state
    *restored = state == kBlockSaved;
    *resume = *restored ? q.saved_step[block] : 0;
    return e;
  }
}

// Stops: some block may be stopped (the plan flushes, switches or kills, or every worker has a stop): the body
// gets an ExecContext with safe points. Otherwise it gets the plain launch's BlockContext, so it compiles exactly
// as in the plain kernel.
template <class Body, bool Stops>
__global__ void executor_kernel(typename Body::Args args, ExecQueues q) {
  __shared__ int s_entry, s_block, s_resume, s_restored, s_kind, s_stop, s_step, s_admitted;
  __shared__ unsigned long long s_start, s_stop_at;
  const unsigned sm = sm_id();
  if (threadIdx.x == 0) {
    // Admitted while its SM's queue has entries and the plan's concurrency there is not reached; the others leave
    // at once, giving their place to workers of other launches.
    int admitted = 0;
    if (sm < static_cast<unsigned>(q.sm_count)) {
      const int count = q.sm_begin[sm + 1] - q.sm_begin[sm];
      if (*reinterpret_cast<volatile int*>(&q.sm_next[sm]) < count) {
        admitted = atomicAdd(&q.sm_workers[sm], 1) < q.sm_quota[sm];
        if (!admitted) atomicSub(&q.sm_workers[sm], 1);
      }
    }
    s_admitted = admitted;
    if (q.worker_sm) q.worker_sm[blockIdx.x] = admitted ? sm + 1 : 0;
  }
  __syncthreads();
  if (!s_admitted) return;
  const int begin = q.sm_begin[sm], count = q.sm_begin[sm + 1] - begin;
  for (int taken = 0; q.entries_per_worker == 0 || taken < q.entries_per_worker; ++taken) {
    if (threadIdx.x == 0) {
      int resume = 0, restored = 0;
      const int e = take_entry(q, sm, begin, count, &resume, &restored);
      s_entry = e;
      s_resume = resume;
      s_restored = restored;
      s_stop = 0;
      s_start = globaltimer_ns();
      if (e >= 0) {
        const ExecEntry en = q.entries[e];
        s_block = en.block;
        unsigned long long stop_at = ~0ull;
        int kind = static_cast<int>(EntryKind::Run);
        if (en.kind != static_cast<int>(EntryKind::Run)) {
          stop_at = s_start + static_cast<unsigned long long>(en.budget_ns);
          kind = en.kind;
        }
        if (q.stop_kind != static_cast<int>(EntryKind::Run) && q.stop_at_ns < stop_at) {
          stop_at = q.stop_at_ns;
          kind = q.stop_kind;
        }
        s_stop_at = stop_at;
        s_kind = kind;
      }
    }
    __syncthreads();
    const int e = s_entry;
    if (e < 0) break;
    const int block = s_block;
    float* values =
        q.saved_values ? q.saved_values + static_cast<std::size_t>(block) * q.threads * q.values_per_thread : nullptr;
    if constexpr (Stops) {
      const ExecContext ctx{block,  s_resume, values,  q.values_per_thread, s_stop_at,
                            s_kind, &s_stop,  &s_step, blockDim.x};
      Body::block(args, ctx);
    } else {
      Body::block(args, BlockContext{block, nullptr});
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const std::uint64_t end = globaltimer_ns();
      // Asked to stop (or the workers drained) before it ended, but it had no safe point left: it drained.
      const bool asked = end >= s_stop_at || end >= q.stop_at_ns;
      int state;
      const ExecOutcome outcome = piece_outcome(s_stop, s_kind, s_restored, asked, &state);
      if (outcome == ExecOutcome::SwitchedOut) q.saved_step[block] = s_step;
      q.records[e] = ExecRecord{s_start, end, sm, static_cast<std::uint32_t>(outcome)};
      if (q.claims) {
        __threadfence();  // saved values and step before the state that publishes them
        atomicExch(&q.block_state[block], state);
      }
    }
  }
  if (threadIdx.x == 0) {
    atomicSub(&q.sm_workers[sm], 1);
    if (q.worker_exit) q.worker_exit[blockIdx.x] = globaltimer_ns();
  }
}

// A launch whose placement the plan leaves to the hardware (plan.h, hardware_placed): one worker per entry, placed
// by the block scheduler as the plain launch's blocks are, worker w running the plan's w-th piece to start. No
// queue, counter or claim: each worker's entry is its own, and its block is a load at most (none where the plan
// started the blocks in block order, as the hardware does). Stamped as instrumented_kernel stamps (the start's low
// 32 bits kept in one register so that the body keeps the plain kernel's register count); the host puts the
// records, in start order, back in entry order. run_block_stamped runs one block whole and stamps it so (a part of
// pieces none of which stops does the same).
template <class Body>
__device__ inline void run_block_stamped(const typename Body::Args& args, int block, ExecRecord* record) {
  unsigned start_lo = 0;
  if (threadIdx.x == 0) start_lo = static_cast<unsigned>(globaltimer_ns());
  Body::block(args, BlockContext{block, nullptr});
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::uint64_t end = globaltimer_ns();
    const std::uint64_t high = (end >> 32) - (start_lo > static_cast<unsigned>(end) ? 1 : 0);
    *record = ExecRecord{high << 32 | start_lo, end, sm_id(), static_cast<std::uint32_t>(ExecOutcome::Completed)};
  }
}

// A release fence at GPU scope: the writes before it (the calling thread's, and those a block barrier ordered before
// it) are visible GPU-wide before any write after it. __threadfence() is fence.sc.gpu; release and acquire patterns
// need only fence.acq_rel (on the H200 the two cost the same here). What cost was a fence in every warp: counting a
// part's worker done behind one fence by thread 0 instead took histogram-s2 as a part from +26.9 to +17.7 % over its
// plain launch (`gpusched-live overhead`'s part column; docs/validation.md, "Safe points, samples and what a piece
// costs").
__device__ __forceinline__ void release_fence() {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

// Counts the block in `done` where a block barrier already follows every thread's writes, so that a stream waiting for
// the count (cuStreamWaitValue32, run_native) runs after them. Nothing when `done` is null. Thread 0 alone fences: its
// fence after the barrier covers what the other threads wrote before it (cumulativity, as cooperative groups' grid sync
// relies on), and the other threads leave at once. `fenced`: thread 0 has fenced since the barrier.
__device__ inline void count_block_done_after_barrier(std::uint32_t* done, bool fenced = false) {
  if (!done || threadIdx.x != 0) return;
  if (!fenced) release_fence();
  atomicAdd(done, 1u);
}

// The same at a block's end (every thread of it calls it), the barrier included.
__device__ inline void count_block_done(std::uint32_t* done) {
  if (!done) return;
  __syncthreads();
  count_block_done_after_barrier(done);
}

template <class Body>
__global__ void hardware_placed_kernel(typename Body::Args args, ExecQueues q) {
  const int block = q.start_block ? __ldg(&q.start_block[blockIdx.x]) : static_cast<int>(blockIdx.x);
  run_block_stamped<Body>(args, block, &q.records[blockIdx.x]);
}

// One part of a plan that stops and resumes blocks, as a grid of its own (sim::planned_piece_parts; docs/validation.md,
// "Preempting plans in parts"): worker w runs entry w of the part (q.entries and q.records are the part's slices, in
// the plan's start order), placed by the hardware in the part's green context. A piece the plan stops is stopped at
// its first safe point after its planned duration; with claims, a block's piece takes the block from the state its
// earlier piece left (fresh, saved), waits while another runs it, and is skipped once it is done.
template <class Body, bool Stops>
__global__ void part_pieces_kernel(typename Body::Args args, ExecQueues q) {
  if constexpr (!Stops) {  // every piece runs its block whole: stamped as hardware_placed_kernel stamps
    const int block = q.part_first_block >= 0 ? q.part_first_block + static_cast<int>(blockIdx.x)
                                              : __ldg(&q.entries[blockIdx.x].block);
    run_block_stamped<Body>(args, block, &q.records[blockIdx.x]);  // its barrier follows the body's writes
    count_block_done_after_barrier(q.done);
    return;
  }
  __shared__ int s_go, s_resume, s_restored, s_stop, s_step;
  __shared__ unsigned long long s_start, s_stop_at;
  const ExecEntry en = q.entries[blockIdx.x];
  const unsigned sm = sm_id();
  if (threadIdx.x == 0) {
    if (q.entered) q.entered[blockIdx.x] = globaltimer_ns();
    int go = 1, resume = 0, restored = 0;
    if (Stops && q.claims) {
      const int state = claim_block(&q.block_state[en.block]);
      if (state == kBlockDone) {
        const std::uint64_t now = globaltimer_ns();
        q.records[blockIdx.x] = ExecRecord{now, now, sm, static_cast<std::uint32_t>(ExecOutcome::Skipped)};
        go = 0;
      } else {
        release_fence();  // a switched-out block's saved values are read after its state (acquire)
        restored = state == kBlockSaved;
        resume = restored ? q.saved_step[en.block] : 0;
      }
    }
    s_go = go;
    s_resume = resume;
    s_restored = restored;
    s_stop = 0;
    s_start = globaltimer_ns();
    unsigned long long stop_at = ~0ull;
    if (en.kind != static_cast<int>(EntryKind::Run)) {
      stop_at = s_start + static_cast<unsigned long long>(en.budget_ns);
      if (q.stop_origin) {  // at the plan's instant, or at once when the piece started after it
        const unsigned long long at = *reinterpret_cast<const volatile std::uint64_t*>(q.stop_origin) +
                                      static_cast<unsigned long long>(en.planned_end_ns);
        stop_at = at > s_start ? at : s_start;
      }
    }
    s_stop_at = stop_at;
  }
  __syncthreads();
  if (!s_go) {  // nothing written
    count_block_done_after_barrier(q.done);
    return;
  }
  if constexpr (Stops) {
    float* values = q.saved_values
                        ? q.saved_values + static_cast<std::size_t>(en.block) * q.threads * q.values_per_thread
                        : nullptr;
    const ExecContext ctx{en.block, s_resume, values,  q.values_per_thread, s_stop_at,
                          en.kind,  &s_stop,  &s_step, blockDim.x};
    Body::block(args, ctx);
  } else {
    Body::block(args, BlockContext{en.block, nullptr});
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::uint64_t end = globaltimer_ns();
    int state;
    const ExecOutcome outcome = piece_outcome(s_stop, en.kind, s_restored, end >= s_stop_at, &state);
    if (outcome == ExecOutcome::SwitchedOut) q.saved_step[en.block] = s_step;
    q.records[blockIdx.x] = ExecRecord{s_start, end, sm, static_cast<std::uint32_t>(outcome)};
    // Saved values and step before the state that publishes them. Done or fresh again publishes nothing a later piece
    // reads (it is skipped, or runs the block afresh from a safe point before the block's first write).
    const bool fence = Stops && q.claims && state == kBlockSaved;
    if (fence) release_fence();
    if (Stops && q.claims) atomicExch(&q.block_state[en.block], state);
    count_block_done_after_barrier(q.done, fence);  // the barrier above follows the body's writes
  }
}

}  // namespace gpusched::live
