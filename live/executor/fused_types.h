// What the fused worker (docs/validation.md, "Fused workers") reads and writes on the GPU. Plain C++ (no CUDA
// types), so the host code compiled by g++ and the plan builder's unit tests use the same layout.
//
// One grid of workers as wide as the widest kernel runs every launch of a plan: a worker on SM s takes the next
// entry of s's one queue (every launch's pieces there, in the order the plan started them) and runs that launch's
// block body, so a hand-off between launches costs what one within a launch costs. An entry starts once as many of
// the SM's earlier pieces have ended as had ended in the plan when it started (the plan's concurrency on the SM),
// its launch has arrived, and the launches it depends on have finished.
#pragma once
#include <cstdint>

#include "live/executor/exec_types.h"

namespace gpusched::live {

// The suite's block bodies the fused worker can run (live/suite/*_body.cuh).
enum class BodyId : std::int32_t { BlackScholes, Gather, Histogram, Mriq, Sad, Sgemm, Spmv, Stencil, Xtea };

// A body's arguments as bytes: each body's Args struct (pointers and ints) copied in.
struct BodyArgs {
  static constexpr int kBytes = 64;
  alignas(16) unsigned char bytes[kBytes] = {};
  std::int32_t body = 0;     // BodyId
  std::int32_t threads = 0;  // the kernel's threads per block (the worker may be wider)
};

struct FusedEntry {
  std::int32_t launch = 0;
  std::int32_t block = 0;      // logical block index within the launch
  std::int32_t kind = 0;       // EntryKind
  std::int32_t need_done = 0;  // pieces of this SM's queue that had ended in the plan when this one started
  // 1: the plan splits its block into several pieces (a flush, switch or kill before another piece of it), so the
  // piece claims the block and publishes its state; 0: the block's only piece, which needs neither (the claim's
  // atomic and fences cost about 2 us a piece: docs/validation.md, "Who takes the slot").
  std::int32_t claims = 0;
  std::int64_t budget_ns = 0;  // Flush/Switch/Kill: how long the piece may run before it is stopped
};

// Per launch, on the GPU.
struct FusedLaunch {
  BodyArgs args;
  std::int64_t release_ns = 0;  // planned arrival, from the execution's origin
  std::int32_t pred_begin = 0;  // its predecessors: preds[pred_begin, pred_begin + pred_count)
  std::int32_t pred_count = 0;
  std::int32_t block_base = 0;  // its blocks' slots in block_state and saved_step
  std::int32_t values_per_thread = 0;
  float* saved_values = nullptr;  // a switched-out block's values (blocks x threads x values_per_thread), or null
  std::int32_t narrow = 0;        // its blocks run on one lane (half a worker) in the lanes variant
  std::int32_t successors = 0;    // some launch waits for this one (its pieces' ends are counted with release)
};

struct FusedView {
  const FusedEntry* entries = nullptr;     // all SMs' queues, SM after SM
  const std::int32_t* sm_begin = nullptr;  // [sm_count + 1]
  std::int32_t* sm_next = nullptr;         // [sm_count] next entry to take (atomic)
  std::int32_t* sm_done = nullptr;         // [sm_count] pieces ended (atomic)
  const FusedLaunch* launches = nullptr;
  const std::int32_t* preds = nullptr;
  std::int32_t* launch_left = nullptr;  // per launch: entries not ended yet
  std::int32_t* block_state = nullptr;  // BlockState per (launch, block)
  std::int32_t* saved_step = nullptr;
  ExecRecord* records = nullptr;          // one per entry
  const std::uint64_t* origin = nullptr;  // %globaltimer at the execution's origin (a stamp queued before)
  std::uint32_t* worker_sm = nullptr;     // per worker: its SM + 1
  // Workers leave after this many entries (0: when their SM's queue is empty) while the grid still has workers
  // waiting to be placed, which the hardware places where they left: a piece then starts in a young worker, as a
  // block of a launch does, and is not starved by older workers' warps (docs/validation.md, "Fused workers").
  std::int32_t entries_per_worker = 0;
  std::int32_t* started = nullptr;     // workers started so far (atomic)
  std::int32_t* sm_workers = nullptr;  // [sm_count] live workers per SM (atomic): the last one never leaves early
  std::int32_t sm_count = 0;
  std::int32_t claims = 0;  // some block has several pieces (some entry stops): claim blocks
  // In-order starts (ExecutorOptions::in_order_starts): per SM, the entries of its queue that have started; an entry
  // starts only after every earlier one. Null: an entry starts once its own conditions hold.
  std::int32_t* sm_started = nullptr;
  // Per entry, who ran it (null: not kept): worker index << 4 | 8 if it was its worker's (or lane's) first piece | 4 if
  // it was not ready when taken (its worker waited for it) | 0 or 1 for a lane, 2 for the whole worker.
  std::int32_t* entry_worker = nullptr;
};

// entry_worker's word, taken apart on the host.
struct EntryWorker {
  std::int32_t worker = -1;  // the worker grid's block index; -1: unknown
  std::int32_t lane = 2;     // 0 or 1: a lane of it; 2: the whole worker
  bool waited = false;       // not ready when taken
  bool first = false;        // its worker's (lane's) first piece
};
inline EntryWorker decode_entry_worker(std::int32_t word) {
  return {word >> 4, word & 3, (word & 4) != 0, (word & 8) != 0};
}

}  // namespace gpusched::live
