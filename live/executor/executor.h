// The executor (docs/validation.md, "The executor"): carries out a simulated plan on the GPU with SM-centric
// workers. Per launch, a worker grid of the launch's kernel is started at the launch's planned arrival (once the
// launches it depends on have finished); each worker reads %smid and takes entries of its own SM's queue only, at
// most as many workers per SM as the plan had blocks of the launch resident there, and leaves after a few entries
// for a fresh one to take its place. Workers that land on an SM with nothing (left) to do leave at once; when a grid
// ends with entries left (their SM was full while the grid's workers were placed), another grid is started. A
// launch the plan keeps to part of the GPU runs its grids in a green context of its SMs. Every piece is stamped
// (start, end, SM, how it ended).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/schedule.h"
#include "live/executor/gpu_clock.h"
#include "live/executor/green_contexts.h"
#include "live/executor/plan.h"
#include "live/suite/suite.h"

namespace gpusched::live {

// One launch's queues in device memory, with the state its blocks' pieces share.
class DeviceQueues {
 public:
  // Space for saved values is allocated when a queue entry switches out, or with `save_space` (a stop of every
  // worker that switches blocks out).
  // `shared_next`/`shared_workers`: where this launch's per-SM counters live in arrays every launch's workers read
  // (gates); null: allocated here.
  DeviceQueues(const LaunchQueues& q, std::int64_t blocks, int threads, int values_per_thread, bool save_space = false,
               std::int32_t* shared_next = nullptr, std::int32_t* shared_workers = nullptr);
  ~DeviceQueues();
  DeviceQueues(const DeviceQueues&) = delete;
  DeviceQueues& operator=(const DeviceQueues&) = delete;

  // Leaves the launch's placement to the hardware (plan.h, hardware_placed): uploads the plan's start order; the
  // worker grid then has one worker per entry.
  void place_by_hardware(const LaunchQueues& q);
  ExecQueues& view() { return view_; }
  std::size_t entries() const { return entries_; }
  // Records of every entry, copied back (synchronous).
  std::vector<ExecRecord> records() const;

 private:
  ExecQueues view_{};
  std::size_t entries_ = 0;
  std::vector<std::int32_t> start_order_;  // placed by the hardware: the entry of each record, in start order
  std::vector<void*> allocations_;
};

struct ExecLaunch {
  SuiteKernel* kernel = nullptr;  // set up (inputs on the GPU)
  int threads = 0;
  std::int64_t blocks = 0;
  TimeNs arrival = 0;
  std::vector<std::size_t> predecessors;
  std::string id;  // for messages
};

struct ExecutorOptions {
  double timeout_s = 60;          // watchdog: the whole execution; past it the process ends (exit 1)
  TimeNs regrid_wait_ns = 20000;  // least time between two grids of one launch
  int streams_per_launch = 4;     // grids of one launch that may be in flight at once
  // Workers leave after this many entries (0: persistent, they leave when their SM's queue is empty); a grid then
  // has room for a fresh worker per that many entries besides the resident ones, and the hardware places them as
  // the leaving ones make room. Persistent workers keep their warps' age, and the SM's warp schedulers starve the
  // youngest: docs/validation.md, "Workers that leave". 8 predicted best on both recorded workloads (H100).
  int entries_per_worker = 8;
  std::string inject_fault;  // tests: "hang" or "error": a faulty kernel ahead of the first grid
  // Where set, a launch the plan confines to part of the GPU runs its worker grids in a green context of the SM
  // groups holding its planned SMs (green_contexts.h); null: every grid may be placed on any SM.
  GreenPartitions* green = nullptr;
  // A launch with the GPU to itself that the plan fills to the hardware's residency on every SM is placed by the
  // hardware (plan.h, hardware_placed); false: per-SM queues for every launch.
  bool hardware_placement = true;
  // The fused worker: a narrow kernel's blocks (128 threads) run two to a worker, one per half (docs/validation.md,
  // "Lanes"); false: one block per worker whatever its width.
  bool lanes = true;
  // The fused worker: an entry starts only after the SM's earlier entries (in the plan's start order) have started,
  // so that a piece whose launch has not arrived yet is not overtaken by later pieces that the count of ended pieces
  // lets through when the execution runs ahead of the plan. Off by default: measured no better, and mpmax on
  // bursts-h100 much worse (docs/validation.md, "Lanes").
  bool in_order_starts = false;
};

struct ExecutionResult {
  Schedule schedule;                    // the pieces the GPU ran; times from the execution's origin on the GPU clock
  std::vector<std::size_t> plan_piece;  // per piece of `schedule`: the plan's piece it carried out (block plans)
  // Fused worker: per planned piece, who carried it out (fused_types.h's entry_worker word; -1: not run, or another
  // executor). Empty for the other executors.
  std::vector<std::int32_t> worker_of_plan_piece;
  // Fused worker: per planned piece, how long after its conditions held it started (fused_plan.h's
  // entry_ready_latency; kNoLatency where it did not run). Empty for the other executors.
  std::vector<std::int64_t> ready_latency_of_plan_piece;
  std::vector<int> grids;           // worker grids started per launch
  std::vector<int> workers_per_sm;  // residency of each launch's worker kernel
  bool lanes = false;               // fused worker: narrow kernels' blocks ran two to a worker (ExecutorOptions)
  std::vector<int> green_sms;       // per launch: the SMs of its green context (0: none, any SM)
  std::int64_t skipped = 0;         // entries whose block had already run to its end
  TimeNs wall_ns = 0;               // host time of the whole execution
  std::vector<std::string> notes;   // what could not be carried out as planned (a stop on a kernel without safe points)
  // Time-sharing: state copied to the GPU (restores) and back to host memory (saves).
  std::int64_t bytes_to_device = 0, bytes_to_host = 0;
  TimeNs restore_copy_ns = 0, save_copy_ns = 0;  // the copies' own time (CUDA events around them)
};

// Grids: a launch's first grid is started at its release; a launch placed by the hardware has that grid only (one
// worker per entry), and has finished when it ends. While it has entries left, the host watches every
// launch's per-SM counters (copied back continuously); a launch with an SM whose next entry can be taken (its gate is
// open) and no live worker there gets another grid (at most one per regrid_wait_ns, on a free one of its streams).
// The origin is a %globaltimer stamp queued just before the first launch is released, lined up with the host's clock
// read just before it was queued; a launch is released on the host when its arrival (from the origin) has passed and
// its predecessors have finished. Throws LiveError on a
// CUDA error; ends the process (exit 1) when the execution outlives the watchdog.
ExecutionResult execute_plan(const ExecutionPlan& plan, const std::vector<ExecLaunch>& launches,
                             const ExecutorOptions& options);

// The piece an entry's device record stands for (times from the origin stamp), or nullopt when the entry was
// skipped (its block had already run to its end). Throws LiveError when the entry left no record.
std::optional<BlockPiece> executed_piece(const ExecRecord& r, std::uint64_t origin_ns, std::int32_t launch,
                                         std::int32_t block, const std::string& launch_id, std::size_t entry);
// Puts the executed pieces (each with the plan's piece it carried out) into result.schedule and result.plan_piece,
// ordered by end (ties by SM, launch, block).
void set_executed_pieces(ExecutionResult& result, std::vector<std::pair<BlockPiece, std::size_t>> executed);

// Ends the process at once with a message (exit 1): a kernel that outlived its time limit cannot be stopped, and
// unwinding (freeing device memory) or the runtime's exit-time teardown would wait for it.
[[noreturn]] void exit_hung(const std::string& what, double timeout_s);

}  // namespace gpusched::live
