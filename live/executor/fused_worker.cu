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
  unsigned first = 0;  // the lane's first thread (fused_lanes_kernel)
  __device__ unsigned thread() const { return threadIdx.x - first; }
  __device__ unsigned threads() const { return width; }
  __device__ bool active() const { return thread() < width; }
  __device__ void mark_not_idempotent() const {}
  __device__ static constexpr int resume_step() { return 0; }
  __device__ static constexpr float restore(int, float fresh) { return fresh; }
  static constexpr bool kCanStop = false;  // should_stop() is always false: bodies may keep their plain loops
  __device__ static constexpr bool should_stop(int) { return false; }
  __device__ static constexpr void save(int, float) {}
};

template <class Body, class Ctx>
__device__ void run_body(const unsigned char* bytes, const Ctx& ctx) {
  const typename Body::Args args = *reinterpret_cast<const typename Body::Args*>(bytes);
  Body::block(args, ctx);
}

// The body is the same for every thread of the worker (one entry at a time), so the switch does not diverge.
template <class Ctx>
__device__ void run_entry_body(int body, const unsigned char* bytes, const Ctx& ctx) {
  switch (static_cast<BodyId>(body)) {
    case BodyId::BlackScholes:
      run_body<suite_blackscholes::BlackScholesBody>(bytes, ctx);
      break;
    case BodyId::Gather:
      run_body<suite_gather::GatherBody>(bytes, ctx);
      break;
    case BodyId::Histogram:
      run_body<suite_histogram::HistogramBody>(bytes, ctx);
      break;
    case BodyId::Mriq:
      run_body<suite_mriq::MriqBody>(bytes, ctx);
      break;
    case BodyId::Sad:
      run_body<suite_sad::SadBody>(bytes, ctx);
      break;
    case BodyId::Sgemm:
      run_body<suite_sgemm::SgemmBody>(bytes, ctx);
      break;
    case BodyId::Spmv:
      run_body<suite_spmv::SpmvBody>(bytes, ctx);
      break;
    case BodyId::Stencil:
      run_body<suite_stencil::StencilBody>(bytes, ctx);
      break;
    case BodyId::Xtea:
      run_body<suite_xtea::XteaBody>(bytes, ctx);
      break;
  }
}
template <class Ctx>
__device__ void run_entry_body(const BodyArgs& a, const Ctx& ctx) {
  run_entry_body(a.body, a.bytes, ctx);
}

// The bodies that run on a lane (fused_body_runs_narrow): only these are compiled into the lanes' path, which keeps
// the other bodies' code and registers out of it.
template <class Ctx>
__device__ void run_narrow_entry_body(int body, const unsigned char* bytes, const Ctx& ctx) {
  if (static_cast<BodyId>(body) == BodyId::BlackScholes) run_body<suite_blackscholes::BlackScholesBody>(bytes, ctx);
}

// Counters other workers wait on. Polls are relaxed loads at GPU scope (they read L2, past the SM's L1): an
// acquire load at GPU scope compiles to a load followed by an invalidation of the whole L1 (CCTL.IVALL), and a
// worker polling with it every few tens of nanoseconds emptied the L1 under every block on its SM. The SM's count
// orders nothing (it only says how many pieces ran there), so it is counted and read relaxed; a launch's
// predecessors may have written what it reads, so the count of a launch that others wait on is released (a fence
// over the worker's writes, which costs the piece its stores' round trip: only where a successor needs it) and,
// once a wait on it is over, one acquire fence follows (acquire_after_predecessors).
__device__ inline int load_relaxed(const std::int32_t* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline void add_relaxed(std::int32_t* p, int v) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ inline void add_release(std::int32_t* p, int v) {
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ inline void acquire_after_predecessors() {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

// Counts an entry as ended: for the SM's later entries and the launches that depend on this one.
__device__ inline void count_ended(const FusedView& v, unsigned sm, int launch) {
  add_relaxed(&v.sm_done[sm], 1);
  if (v.launches[launch].successors)
    add_release(&v.launch_left[launch], -1);
  else
    add_relaxed(&v.launch_left[launch], -1);
}

// An entry taken from the SM's queue, and whether it could start at once when it was taken.
struct Taken {
  int e = -1;  // -1: the queue is empty
  bool ready = false;
};

// Takes the SM's next entry without waiting. `credit`: pieces about to end that the taker will count before the
// entry starts (its own). Thread 0 only.
__device__ Taken take(const FusedView& v, unsigned sm, int begin, int count, std::uint64_t origin, int credit) {
  Taken t;
  const int i = atomicAdd(&v.sm_next[sm], 1);
  if (i >= count) return t;
  t.e = begin + i;
  const FusedEntry en = v.entries[t.e];
  const FusedLaunch& l = v.launches[en.launch];
  t.ready = load_relaxed(&v.sm_done[sm]) + credit >= en.need_done &&
            globaltimer_ns() >= origin + static_cast<std::uint64_t>(l.release_ns) &&
            (!v.sm_started || load_relaxed(&v.sm_started[sm]) >= i);
  for (int p = 0; t.ready && p < l.pred_count; ++p)
    t.ready = load_relaxed(&v.launch_left[v.preds[l.pred_begin + p]]) <= 0;
  if (t.ready && l.pred_count > 0) acquire_after_predecessors();
  return t;
}

// Waits until a taken entry may start: as many of the SM's earlier pieces ended as in the plan, its launch arrived,
// its predecessors finished, and (where blocks have several pieces) its block claimed. Returns the entry, or -1
// when its block had already run to its end (recorded as skipped). Thread 0 only.
__device__ int wait_and_claim(const FusedView& v, unsigned sm, Taken t, std::uint64_t origin, int* resume,
                              int* restored, int* waited) {
  const FusedEntry en = v.entries[t.e];
  const FusedLaunch& l = v.launches[en.launch];
  *waited = !t.ready;
  if (!t.ready) {
    while (load_relaxed(&v.sm_done[sm]) < en.need_done) __nanosleep(32);
    const std::uint64_t release = origin + static_cast<std::uint64_t>(l.release_ns);
    while (globaltimer_ns() < release) __nanosleep(256);
    for (int p = 0; p < l.pred_count; ++p)
      while (load_relaxed(&v.launch_left[v.preds[l.pred_begin + p]]) > 0) __nanosleep(256);
    if (l.pred_count > 0) acquire_after_predecessors();
    // In-order starts: the SM's earlier entries have all started (their own waits are over).
    if (v.sm_started)
      while (load_relaxed(&v.sm_started[sm]) < t.e - v.sm_begin[sm]) __nanosleep(32);
  }
  if (v.sm_started) add_relaxed(&v.sm_started[sm], 1);
  *resume = 0;
  *restored = 0;
  if (!v.claims || !en.claims) return t.e;
  const int state = claim_block(&v.block_state[l.block_base + en.block]);
  if (state == kBlockDone) {
    const std::uint64_t now = globaltimer_ns();
    v.records[t.e] = ExecRecord{now, now, sm, static_cast<std::uint32_t>(ExecOutcome::Skipped)};
    count_ended(v, sm, en.launch);
    return -1;
  }
  __threadfence();  // a switched-out block's saved values are read after its state
  *restored = state == kBlockSaved;
  *resume = *restored ? v.saved_step[l.block_base + en.block] : 0;
  return t.e;
}

// The next entry that may start, taken now (`first`, when given, was taken earlier). -1: the queue is empty.
__device__ int next_entry(const FusedView& v, unsigned sm, int begin, int count, std::uint64_t origin, Taken first,
                          int* resume, int* restored, int* waited) {
  for (Taken t = first;; t = take(v, sm, begin, count, origin, 0)) {
    if (t.e < 0) return -1;
    const int e = wait_and_claim(v, sm, t, origin, resume, restored, waited);
    if (e >= 0) return e;
  }
}

// What a piece needs while it runs, in shared memory: its entry, where it resumes, and its safe points' state.
struct PieceSlot {
  int entry, resume, restored, kind, stop, step;
  int claims;  // the entry's: its block's state is published at its end
  int who;     // entry_worker's word: which worker ran it and how it was handed over (fused_types.h)
  unsigned long long start, stop_at;
  // The entry's block and what its body needs, copied by the leader (whose take left them in L1): the lane's threads
  // read them from shared memory instead of each following entry -> launch -> arguments through global memory.
  int launch, block, body, values_per_thread;
  unsigned width;
  float* values;  // the block's saved values, or null
  alignas(16) unsigned char args[BodyArgs::kBytes];
};

// `lane`: 0 or 1 for a lane, 2 for the whole worker; `waited`: the entry was not ready when taken; `first`: the
// worker's first piece.
__device__ inline int who_ran(unsigned lane, int waited, bool first) {
  return static_cast<int>(blockIdx.x << 4) | (first ? 8 : 0) | (waited ? 4 : 0) | static_cast<int>(lane);
}

__device__ void publish_slot(const FusedView& v, PieceSlot& s, int e, int resume, int restored, int who) {
  s.entry = e;
  s.who = who;
  s.resume = resume;
  s.restored = restored;
  s.stop = 0;
  s.start = globaltimer_ns();
  if (e >= 0) {
    const FusedEntry en = v.entries[e];
    const bool stopped = en.kind != static_cast<int>(EntryKind::Run);
    s.stop_at = stopped ? s.start + static_cast<unsigned long long>(en.budget_ns) : ~0ull;
    s.kind = en.kind;
    s.claims = en.claims;
    const FusedLaunch& l = v.launches[en.launch];
    s.launch = en.launch;
    s.block = en.block;
    s.body = l.args.body;
    s.width = static_cast<unsigned>(l.args.threads);
    s.values_per_thread = l.values_per_thread;
    s.values = l.saved_values ? l.saved_values + static_cast<std::size_t>(en.block) * s.width *
                                                     static_cast<std::size_t>(l.values_per_thread)
                              : nullptr;
    const uint4* from = reinterpret_cast<const uint4*>(l.args.bytes);
    uint4* to = reinterpret_cast<uint4*>(s.args);
    for (int i = 0; i < BodyArgs::kBytes / 16; ++i) to[i] = from[i];
  }
}

// Runs the slot's piece on the threads [first, first + threads of its kernel) (every thread of the lane calls it):
// a lane's (`Narrow`) or the whole worker's.
template <bool Stops, bool Narrow>
__device__ void run_slot(PieceSlot& s, unsigned first, unsigned barrier, unsigned barrier_threads) {
  if constexpr (Stops) {
    const ExecContext ctx{s.block, s.resume, s.values, s.values_per_thread, s.stop_at, s.kind, &s.stop, &s.step,
                          s.width, first,    barrier,  barrier_threads};
    if constexpr (Narrow)
      run_narrow_entry_body(s.body, s.args, ctx);
    else
      run_entry_body(s.body, s.args, ctx);
  } else {
    if constexpr (Narrow)
      run_narrow_entry_body(s.body, s.args, FusedPlainContext{s.block, s.width, first});
    else
      run_entry_body(s.body, s.args, FusedPlainContext{s.block, s.width, first});
  }
}

// Records the slot's piece as ended and counts it. Leader only, after its lane's barrier.
__device__ void end_slot(const FusedView& v, unsigned sm, const PieceSlot& s) {
  const std::uint64_t end = globaltimer_ns();  // first: nothing below is the piece's
  int state;
  const ExecOutcome outcome = piece_outcome(s.stop, s.kind, s.restored, end >= s.stop_at, &state);
  const int slot = v.launches[s.launch].block_base + s.block;
  if (outcome == ExecOutcome::SwitchedOut) v.saved_step[slot] = s.step;
  v.records[s.entry] = ExecRecord{s.start, end, sm, static_cast<std::uint32_t>(outcome)};
  if (v.entry_worker) v.entry_worker[s.entry] = s.who;
  if (v.claims && s.claims) {
    __threadfence();  // saved values and step before the state that publishes them
    atomicExch(&v.block_state[slot], state);
  }
  count_ended(v, sm, s.launch);
}

// Past its share of entries a worker leaves while a fresh one is waiting to take its place. The hardware may place
// that one on another SM, so the SM's last worker stays: an SM left without workers while its queue has entries
// would wait for a placement that may never come once the grid's workers have all started. Counts the worker out
// when it leaves. Thread 0 (or a lane's leader) only.
__device__ bool leaves_now(const FusedView& v, unsigned sm, int taken) {
  bool leave = v.entries_per_worker > 0 && taken >= v.entries_per_worker &&
               load_relaxed(v.started) < static_cast<int>(gridDim.x);
  if (leave && atomicSub(&v.sm_workers[sm], 1) <= 1) {
    atomicAdd(&v.sm_workers[sm], 1);
    leave = false;
  }
  return leave;
}

template <bool Stops>
__global__ void __launch_bounds__(kFusedWorkerThreads, kMinWorkersPerSm) fused_kernel(FusedView v) {
  __shared__ PieceSlot s_slot;
  __shared__ int s_left;
  const unsigned sm = sm_id();
  if (threadIdx.x == 0) {
    if (v.worker_sm) v.worker_sm[blockIdx.x] = sm + 1;
    atomicAdd(v.started, 1);
  }
  if (sm >= static_cast<unsigned>(v.sm_count)) return;  // the same for every thread of the worker
  if (threadIdx.x == 0) atomicAdd(&v.sm_workers[sm], 1);
  const int begin = v.sm_begin[sm], count = v.sm_begin[sm + 1] - begin;
  const std::uint64_t origin = *v.origin;
  // Thread 0 takes the next entry as soon as its own part of a piece is done, while the worker's other warps finish
  // theirs: the queue's round trips to L2 are then off the hand-off's path. It waits for nothing there (its own
  // piece is not counted yet, and another piece may be waiting for that count): waits come after the count.
  if (threadIdx.x == 0) {
    s_left = 0;
    int resume = 0, restored = 0, waited = 0;
    const int e =
        next_entry(v, sm, begin, count, origin, take(v, sm, begin, count, origin, 0), &resume, &restored, &waited);
    publish_slot(v, s_slot, e, resume, restored, who_ran(2, waited, true));
  }
  __syncthreads();
  for (int taken = 1;; ++taken) {
    if (s_slot.entry < 0) {
      // A worker that left counted itself out already; one that found its queue empty does so now.
      if (threadIdx.x == 0 && !s_left) atomicSub(&v.sm_workers[sm], 1);
      break;
    }
    run_slot<Stops, false>(s_slot, 0, 0, 0);
    Taken next;
    if (threadIdx.x == 0) {
      s_left = leaves_now(v, sm, taken);
      if (!s_left) next = take(v, sm, begin, count, origin, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      end_slot(v, sm, s_slot);
      int resume = 0, restored = 0, waited = 0;
      const int e = next_entry(v, sm, begin, count, origin, next, &resume, &restored, &waited);
      publish_slot(v, s_slot, e, resume, restored, who_ran(2, waited, false));
    }
    __syncthreads();
  }
}

// ---- Lanes (docs/validation.md, "Lanes") ----
// A worker is as wide as the widest kernel, so a plan that runs 16 blocks of a 128-thread kernel on an SM would get
// 8. In the lanes variant each half of a worker takes entries of its own while they are narrow (their body runs on
// 128 threads and has no barrier but the context's, which is the half's named barrier), and the two halves join
// for a wide entry. The halves' leaders take entries under a lock in shared memory, so that once a half has taken
// a wide entry the other takes none before joining it: every entry either half holds then comes before the wide one
// in the SM's queue, waits only on pieces before it, and ends, so the join cannot deadlock.
constexpr unsigned kLanes = 2;
constexpr unsigned kLaneThreads = kFusedWorkerThreads / kLanes;
static_assert(kFusedWorkerThreads % kLanes == 0);

// What a lane's leader decided it does next.
enum LaneMode : int { kLaneRun = 0, kLaneJoin = 1, kLaneExit = 2 };

// Shared between the two leaders, under `lock`.
struct LaneShared {
  int lock, wide_pending, wide_entry, wide_ready, leaving, taken;
};

__device__ inline void lock_lanes(volatile LaneShared& sh) {
  while (atomicCAS(const_cast<int*>(&sh.lock), 0, 1) != 0) __nanosleep(32);
  __threadfence_block();
}
__device__ inline void unlock_lanes(volatile LaneShared& sh) {
  __threadfence_block();
  atomicExch(const_cast<int*>(&sh.lock), 0);
}

// A lane's next step, decided under the lock: join a wide entry the other lane took, leave, or take the SM's next
// entry (a wide one is left for both lanes). `credit`: as take's. Leader only.
__device__ int acquire_lane(const FusedView& v, unsigned sm, int begin, int count, std::uint64_t origin, int credit,
                            volatile LaneShared& sh, Taken* t) {
  lock_lanes(sh);
  int mode;
  if (sh.wide_pending) {
    mode = kLaneJoin;
  } else if (sh.leaving) {
    mode = kLaneExit;
  } else {
    if (leaves_now(v, sm, sh.taken)) {
      sh.leaving = 1;
      mode = kLaneExit;
    } else {
      *t = take(v, sm, begin, count, origin, credit);
      if (t->e < 0) {
        mode = kLaneExit;
      } else {
        sh.taken = sh.taken + 1;
        if (v.launches[v.entries[t->e].launch].narrow) {
          mode = kLaneRun;
        } else {
          sh.wide_pending = 1;
          sh.wide_entry = t->e;
          sh.wide_ready = t->ready;
          mode = kLaneJoin;
        }
      }
    }
  }
  unlock_lanes(sh);
  return mode;
}

// Carries out a lane's decision: a narrow entry is waited for, claimed and published in `slot` (one whose block
// already ended is skipped, and the next decided). Returns the lane's mode. Leader only.
__device__ int settle_lane(const FusedView& v, unsigned sm, int begin, int count, std::uint64_t origin,
                           volatile LaneShared& sh, PieceSlot& slot, int mode, Taken t, unsigned lane, bool first) {
  for (;;) {
    if (mode != kLaneRun) return mode;
    int resume = 0, restored = 0, waited = 0;
    const int e = wait_and_claim(v, sm, t, origin, &resume, &restored, &waited);
    if (e >= 0) {
      publish_slot(v, slot, e, resume, restored, who_ran(lane, waited, first));
      return kLaneRun;
    }
    mode = acquire_lane(v, sm, begin, count, origin, 0, sh, &t);
  }
}

template <bool Stops>
__global__ void __launch_bounds__(kFusedWorkerThreads, kMinWorkersPerSm) fused_lanes_kernel(FusedView v) {
  __shared__ PieceSlot s_slot[kLanes + 1];  // one per lane, and the wide entry's
  __shared__ int s_mode[kLanes];
  __shared__ LaneShared s_shared;
  volatile LaneShared& sh = s_shared;
  const unsigned sm = sm_id();
  if (threadIdx.x == 0) {
    if (v.worker_sm) v.worker_sm[blockIdx.x] = sm + 1;
    atomicAdd(v.started, 1);
  }
  if (sm >= static_cast<unsigned>(v.sm_count)) return;  // the same for every thread of the worker
  if (threadIdx.x == 0) {
    atomicAdd(&v.sm_workers[sm], 1);
    sh.lock = sh.wide_pending = sh.leaving = sh.taken = 0;
    sh.wide_entry = -1;
    sh.wide_ready = 0;
  }
  __syncthreads();
  const int begin = v.sm_begin[sm], count = v.sm_begin[sm + 1] - begin;
  const std::uint64_t origin = *v.origin;
  const unsigned lane = threadIdx.x / kLaneThreads, first = lane * kLaneThreads;
  const bool leader = threadIdx.x == first;
  PieceSlot& mine = s_slot[lane];
  PieceSlot& wide = s_slot[kLanes];
  // Immediate barrier ids (ExecContext::sync says why).
  const auto lane_sync = [&] {
    if (lane == 0)
      asm volatile("bar.sync 1, %0;" ::"n"(kLaneThreads) : "memory");
    else
      asm volatile("bar.sync 2, %0;" ::"n"(kLaneThreads) : "memory");
  };
  if (leader) {
    Taken t;
    const int mode = acquire_lane(v, sm, begin, count, origin, 0, sh, &t);
    s_mode[lane] = settle_lane(v, sm, begin, count, origin, sh, mine, mode, t, lane, true);
  }
  lane_sync();
  for (;;) {
    const int mode = s_mode[lane];
    if (mode == kLaneExit) break;
    if (mode == kLaneJoin) {
      __syncthreads();  // both lanes: each counted its last piece and took nothing after the wide entry
      if (threadIdx.x == 0) {
        Taken t;
        t.e = sh.wide_entry;
        t.ready = sh.wide_ready;
        sh.wide_pending = 0;  // neither leader takes again before the barrier below
        int resume = 0, restored = 0, waited = 0;
        const int e = wait_and_claim(v, sm, t, origin, &resume, &restored, &waited);
        publish_slot(v, wide, e, resume, restored, who_ran(2, waited, false));
      }
      __syncthreads();
      if (wide.entry >= 0) {
        run_slot<Stops, false>(wide, 0, 0, 0);
        __syncthreads();
        if (threadIdx.x == 0) end_slot(v, sm, wide);
      }
      // The leaders take their lanes' next entries only after the wide piece has ended and been counted. Taking them
      // as soon as each leader's own part was done (as on the narrow path) cut the hand-offs after a wide piece from
      // about 2 to 1 us but bound more entries to lanes before their conditions held, and made mpmax's turnaround
      // error on bursts-h100 worse (median 7.8 -> 11.4 %, p90 25.2 -> 44.5 %, three interleaved runs each):
      // docs/validation.md, "Who takes the slot".
      if (leader) {
        Taken t;
        const int next = acquire_lane(v, sm, begin, count, origin, 0, sh, &t);
        s_mode[lane] = settle_lane(v, sm, begin, count, origin, sh, mine, next, t, lane, false);
      }
      lane_sync();
      continue;
    }
    run_slot<Stops, true>(mine, first, 1 + lane, kLaneThreads);
    // As in fused_kernel: the leader takes the next entry while the lane's other warps finish their part.
    Taken next;
    int next_mode = kLaneExit;
    if (leader) next_mode = acquire_lane(v, sm, begin, count, origin, 1, sh, &next);
    lane_sync();
    if (leader) {
      end_slot(v, sm, mine);
      s_mode[lane] = settle_lane(v, sm, begin, count, origin, sh, mine, next_mode, next, lane, false);
    }
    lane_sync();
  }
  __syncthreads();  // both lanes are out: `leaving` is final
  if (threadIdx.x == 0 && !sh.leaving) atomicSub(&v.sm_workers[sm], 1);
}

}  // namespace

bool fused_body_runs_narrow(BodyId body) {
  return body == BodyId::BlackScholes;
}

namespace {
using FusedKernel = void (*)(FusedView);
FusedKernel fused_kernel_for(bool stops, bool lanes) {
  if (lanes) return stops ? fused_lanes_kernel<true> : fused_lanes_kernel<false>;
  return stops ? fused_kernel<true> : fused_kernel<false>;
}
}  // namespace

int fused_lane_threads() {
  return static_cast<int>(kLaneThreads);
}

int fused_worker_occupancy(bool stops, bool lanes) {
  int n = 0;
  GPUSCHED_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fused_kernel_for(stops, lanes), kFusedWorkerThreads, 0));
  return n;
}

KernelAttributes fused_worker_attributes(bool stops, bool lanes) {
  cudaFuncAttributes a{};
  GPUSCHED_CUDA(cudaFuncGetAttributes(&a, fused_kernel_for(stops, lanes)));
  return {a.numRegs, static_cast<int>(a.sharedSizeBytes), a.maxThreadsPerBlock, static_cast<int>(a.localSizeBytes)};
}

void launch_fused_workers(const FusedView& view, int workers, bool stops, bool lanes, void* stream) {
  fused_kernel_for(stops, lanes)<<<workers, kFusedWorkerThreads, 0, static_cast<cudaStream_t>(stream)>>>(view);
  GPUSCHED_CUDA(cudaGetLastError());
}

}  // namespace gpusched::live
