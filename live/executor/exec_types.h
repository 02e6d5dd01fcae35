// What the executor's persistent workers read and write on the GPU (docs/validation.md, "The executor"). Plain
// C++ (no CUDA types) so the host code compiled by g++ and the plan builder's unit tests use the same layout.
//
// Per launch: one queue per SM, the entries of the blocks the plan put on that SM in the order the plan started
// them; a worker block reads %smid and takes entries of its own SM's queue only. An entry says which logical block
// to run and how the plan's piece ended: run to the end, or stop after the piece's planned duration by flushing,
// switching out (context saved) or being killed.
#pragma once
#include <cstdint>

namespace gpusched::live {

enum class EntryKind : std::int32_t { Run = 0, Flush = 1, Switch = 2, Kill = 3 };

struct ExecEntry {
  std::int32_t block = 0;      // logical block index within the launch
  std::int32_t kind = 0;       // EntryKind
  std::int64_t budget_ns = 0;  // Flush/Switch/Kill: how long the piece may run before it is stopped
  // The plan's order on the SM across launches: the entry may be taken only once entry `gate_entry` of launch
  // `gate_launch`'s queue on the same SM (the last other launch's piece the plan started there before it) has been
  // taken. Gates point to earlier pieces only, so the SM's pieces are taken in the plan's order. -1: no gate.
  std::int32_t gate_launch = -1;
  std::int32_t gate_entry = -1;
  // Parts of pieces (ExecQueues::stop_origin set): the piece's planned end from the execution's origin, where a
  // stopped piece stops (at its first safe point after it) instead of after budget_ns.
  std::int64_t planned_end_ns = 0;
};

// How a piece ended on the GPU.
enum class ExecOutcome : std::uint32_t {
  None = 0,         // the entry was never taken (a stopped worker left it)
  Completed = 1,    // ran from the block's start to its end
  Flushed = 2,      // abandoned at a safe point while idempotent; the block is fresh again
  SwitchedOut = 3,  // stopped at a safe point with its loop state saved
  SwitchedIn = 4,   // resumed from a saved state and ran to the end
  Killed = 5,       // abandoned, never to run again
  Skipped = 6,      // the block had already run to its end (an earlier piece was not stopped in time)
  Drained = 7,      // asked to stop but could not at a safe point (or has none): ran to its end
};

struct ExecRecord {
  std::uint64_t start_ns = 0;  // %globaltimer when the worker took the entry
  std::uint64_t end_ns = 0;    // %globaltimer after the block's last barrier
  std::uint32_t smid = 0;
  std::uint32_t outcome = 0;  // ExecOutcome
};

// Block states, for pieces of one block that the plan spreads over several entries.
enum BlockState : std::int32_t { kBlockFresh = 0, kBlockRunning = 1, kBlockSaved = 2, kBlockDone = 3 };

// Everything one worker grid of a launch needs; all pointers are device memory.
struct ExecQueues {
  const ExecEntry* entries = nullptr;      // all SMs' queues, SM after SM
  const std::int32_t* sm_begin = nullptr;  // [sm_count + 1] offsets into entries
  std::int32_t* sm_next = nullptr;         // [sm_count] the next entry to take, per SM (atomic)
  std::int32_t* sm_workers = nullptr;      // [sm_count] live workers, per SM (atomic)
  // Every launch's sm_next and sm_workers, launch after launch (gates read other launches'); null without gates.
  const std::int32_t* all_next = nullptr;
  const std::int32_t* all_workers = nullptr;
  const std::int32_t* sm_quota = nullptr;  // [sm_count] most workers at once (the plan's most resident blocks)
  ExecRecord* records = nullptr;           // one per entry
  std::int32_t* block_state = nullptr;     // one per logical block (BlockState)
  std::int32_t* saved_step = nullptr;      // one per block: the loop step a switched-out block resumes at
  float* saved_values = nullptr;           // values_per_thread floats per thread per block (switch), or null
  std::int32_t values_per_thread = 0;
  // Blocks are claimed (block_state) only when a block can have several pieces (some entry stops): a plan with one
  // entry per block, run to its end, needs neither the claim's atomics nor its memory fences.
  std::int32_t claims = 0;
  // Some entry has a gate: entries are taken by compare-and-swap after a look at the gate. Without gates a worker
  // takes the next entry with one atomic add (fewer round trips to L2, no retries when workers of one SM collide).
  std::int32_t gated = 0;
  std::int32_t threads = 0;
  std::int32_t sm_count = 0;
  // A stop for every worker at GPU time stop_at_ns (the preemption-latency experiment; ~0: none): workers take no
  // entry after it (drain) and, for Flush or Switch, running blocks stop at their next safe point.
  std::uint64_t stop_at_ns = ~0ull;
  std::int32_t stop_kind = 0;  // EntryKind
  // A worker leaves after this many entries (0: when its SM's queue is empty), making room for a fresh one: the
  // SM's warp schedulers favour older warps, and a persistent worker never gets younger (docs/validation.md).
  std::int32_t entries_per_worker = 0;
  std::uint64_t* worker_exit = nullptr;  // per worker (blockIdx.x): %globaltimer when it left, or null
  std::uint32_t* worker_sm = nullptr;    // per worker: its SM + 1 when it was admitted (0: refused)
  // A launch whose placement is left to the hardware (plan.h, hardware_placed): worker blockIdx.x runs the plan's
  // blockIdx.x-th piece to start, wherever the hardware placed it, and writes its record at records[blockIdx.x].
  std::int32_t hardware_placed = 0;
  const std::int32_t* start_block = nullptr;  // the blocks in the plan's start order; null: block order
  // Parts of pieces (exec_device.cuh, part_pieces_kernel): where set, %globaltimer at the execution's origin (written
  // before the first part runs), and a stopped piece stops at its planned end from it (ExecEntry::planned_end_ns), as
  // a preemption at the plan's instant does, however late the piece started; null: after its budget from its start.
  const std::uint64_t* stop_origin = nullptr;
  // Parts of pieces: >= 0 when the part's entries are blocks part_first_block, part_first_block + 1, ... each run to
  // its end (no claim, no stop): worker w runs block part_first_block + w without loading its entry, which a kernel of
  // short blocks (histogram's 3 us) would pay at every block's start.
  std::int32_t part_first_block = -1;
  // Parts of pieces of a launch another one waits for: every worker adds one here when it leaves (after its writes),
  // and the waiting launch's stream waits for the count (run_native) instead of for an event behind each part.
  std::uint32_t* done = nullptr;
  // Parts of pieces with claims (validate --entries-csv): per worker (blockIdx.x), %globaltimer when the worker began,
  // before it claimed its block, where ExecRecord::start_ns is after the claim (a claim waits while another worker runs
  // the block); null: not stamped. Tells a worker placed late by the hardware from one that waited for its block.
  std::uint64_t* entered = nullptr;
};

}  // namespace gpusched::live
