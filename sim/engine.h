// The discrete-event engine: owns time, the event queue and every SM's resource accounting; policies own
// the decisions (DESIGN, "Engine and policies"). Time is integer nanoseconds; ties are broken by stable
// ids, so the same inputs and seed give the same Schedule byte for byte.
#pragma once
#include <climits>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/occupancy.h"
#include "core/schedule.h"
#include "core/time.h"
#include "sim/duration_model.h"

namespace gpusched::sim {

class Policy;
class Actions;

// A policy asked for something the engine cannot do (a block that does not fit, a flush after the
// idempotence point, ...). Always thrown: a refused action is a bug in the policy.
class ActionError : public std::logic_error {
  using std::logic_error::logic_error;
};

// One launch as the engine sees it.
struct LaunchSpec {
  const KernelProfile* kernel = nullptr;
  std::string id;
  TimeNs arrival = 0;
  int priority = 0;
  std::optional<TimeNs> deadline;
  std::vector<std::size_t> predecessors;  // launches that must finish first
  std::uint64_t draw_key = 0;             // identifies the launch's random draws (its workload index)
  TimeNs alone = 0;                       // time alone (oracle), 0 when unknown
};

// Costs of the preemption mechanisms (the Chimera issue refines the estimates).
struct PreemptionCosts {
  // Bandwidth one SM has to save or restore a context, bytes per ns (= GB/s). 0: its share of DRAM
  // bandwidth (dram_bandwidth / sm_count), as Chimera section 2.4 assumes.
  double switch_bandwidth_gbps_per_sm = 0.0;
  TimeNs flush_latency = 0;  // time to clear an SM's blocks when flushing (Chimera: about zero)
};

struct EngineConfig {
  GpuSpec gpu;
  int gpu_count = 1;
  std::uint64_t seed = 1;
  const DurationModel* durations = nullptr;  // nullptr: recorded durations unchanged
  PreemptionCosts costs;
};

enum class EventKind : std::uint8_t {
  LaunchReleased,   // arrived and its dependencies are done
  BlockFinished,    // a block (or its last piece) completed
  LaunchFinished,   // all blocks of a launch completed
  Timer,            // a timer the policy set
  SmDrained,        // an SM being drained has no resident blocks left
  BlockSaved,       // a context switch finished saving a block; its resources are free
  BlockFlushed,     // a block was flushed; its resources are free
};

struct EngineEvent {
  EventKind kind;
  std::int32_t launch = -1;
  std::int32_t block = -1;
  std::int32_t sm = -1;  // global SM id (gpu * sm_count + sm)
  std::int64_t tag = 0;  // timers: the policy's tag
};

enum class LaunchPhase : std::uint8_t { Waiting, Released, Finished };

// A block preempted by a context switch: it resumes with `done` ns of work behind it.
struct SuspendedBlock {
  std::int32_t block;
  TimeNs done;   // work done so far (ns at the duration it was dispatched with)
  TimeNs total;  // its full duration
};

struct LaunchState {
  std::int32_t index = 0;
  const KernelProfile* kernel = nullptr;
  BlockFootprint footprint;
  int residency = 0;  // occupancy limit of its kernel on the GPU (blocks per SM)
  std::int64_t total_blocks = 0;
  std::int64_t next_block = 0;      // next never-issued block
  std::int64_t dispatch_limit = 0;  // slice end: fresh blocks below this index may issue
  std::vector<std::int32_t> flushed;        // flushed blocks, issued first (from their start)
  std::vector<SuspendedBlock> suspended;    // switched-out blocks, issued first (resumed)
  std::int64_t resident = 0;
  std::int64_t completed = 0;
  int residency_cap = INT_MAX;       // per SM, set by the policy
  std::vector<char> allowed_sms;     // empty: every SM; else allowed_sms[sm] != 0
  int gpu = -1;                      // the GPU its blocks run on, once the first is dispatched
  LaunchPhase phase = LaunchPhase::Waiting;
  int unfinished_predecessors = 0;
  TimeNs arrival = 0, release = -1, first_dispatch = -1, finish = -1;
  TimeNs alone = 0;
  std::vector<int> resident_per_sm;  // blocks resident on each SM

  std::int64_t issuable() const {
    return static_cast<std::int64_t>(flushed.size() + suspended.size()) + (dispatch_limit - next_block);
  }
  std::int64_t unissued() const {  // blocks not yet issued, slice limit ignored
    return static_cast<std::int64_t>(flushed.size() + suspended.size()) + (total_blocks - next_block);
  }
};

struct SmState {
  int gpu = 0;
  int index = 0;  // within its GPU
  int threads = 0, warps = 0, registers = 0, shared_memory = 0, blocks = 0;  // in use
  bool draining = false;
  std::vector<std::int32_t> residents;  // resident block slots
  // Statistics for utilisation and occupancy over time.
  TimeNs busy_since = 0, busy_time = 0, last_change = 0;
  double warp_time = 0.0;  // integral of resident warps over time (warp-ns)
};

enum class BlockState : std::uint8_t { Free, Running, Saving };

struct ResidentBlock {
  std::int32_t launch = -1;
  std::int32_t block = -1;
  std::int32_t sm = -1;
  BlockState state = BlockState::Free;
  bool resumed = false;
  std::uint32_t generation = 0;  // invalidates events of a slot that was reused
  TimeNs start = 0;       // piece start
  TimeNs end = 0;         // when it completes if left alone (for Saving: when saving ends)
  TimeNs done_before = 0; // work done in earlier pieces
  TimeNs total = 0;       // full duration of the block
  TimeNs restore = 0;     // context-restore time at the start of this piece
};

// Observers receive engine signals; the engine itself writes nothing (DESIGN).
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void on_piece(const BlockPiece& piece) = 0;
  virtual void on_launch_finished(const LaunchState& /*launch*/, TimeNs /*now*/) {}
};

// Read-only view of the state for policies.
class EngineView {
 public:
  explicit EngineView(const class Engine& e) : e_(e) {}
  TimeNs now() const;
  const GpuSpec& gpu() const;
  int gpu_count() const;
  int sm_count() const;  // all SMs of all GPUs
  int sms_per_gpu() const;
  const SmState& sm(int id) const;
  const LaunchState& launch(std::int32_t i) const;
  std::int32_t launch_count() const;
  // Released, unfinished launches in release order (ties by launch index).
  const std::vector<std::int32_t>& active() const;
  // SMs that freed resources in the current batch of events (each once).
  const std::vector<std::int32_t>& freed_sms() const;
  const ResidentBlock& resident(std::int32_t slot) const;
  // How many more blocks of launch `l` the engine would accept on SM `sm` right now (resources, block
  // slots, residency cap, allowed SMs, draining, the launch's GPU and its issuable blocks).
  std::int64_t room_for(std::int32_t l, int sm) const;
  // Resource room only (ignores caps, masks and the issuable count): blocks of `l` that would fit.
  int resource_room(std::int32_t l, int sm) const;
  // Free warps on an SM (the measure most-free placement ranks SMs by).
  int free_warps(int sm) const;
  std::uint64_t seed() const;
  TimeNs switch_time(std::int32_t l) const;  // time to save (or restore) one block's context
  // Fraction of the block's work done at `now`.
  double progress(std::int32_t slot) const;

 private:
  const Engine& e_;
};

class Actions {
 public:
  explicit Actions(Engine& e) : e_(e) {}
  // Dispatches `count` blocks of launch `l` to SM `sm`: preempted blocks first, then fresh blocks in
  // index order. Throws ActionError if they do not all fit.
  void dispatch(std::int32_t l, int sm, std::int64_t count = 1);
  void set_residency_cap(std::int32_t l, int blocks_per_sm);
  void restrict_to_sms(std::int32_t l, const std::vector<int>& sms);
  void allow_all_sms(std::int32_t l);
  // Only fresh blocks with index < end may issue until the slice is extended (end <= total blocks).
  void set_slice_end(std::int32_t l, std::int64_t end);
  void drain_sm(int sm);    // stop accepting blocks; SmDrained once empty
  void undrain_sm(int sm);  // accept blocks again
  void flush(std::int32_t slot);           // drop a still-idempotent block; it reruns from its start
  void context_switch(std::int32_t slot);  // save a block's context; it resumes later, maybe elsewhere
  void set_timer(TimeNs at, std::int64_t tag);

 private:
  Engine& e_;
};

struct EngineStats {
  std::int64_t events = 0;
  std::int64_t preemptions = 0;
  TimeNs wasted_work = 0;
  std::vector<TimeNs> preemption_latencies;  // drain request to SM empty; switch request to saved
};

class Engine {
 public:
  Engine(EngineConfig config, std::vector<LaunchSpec> launches);
  void add_observer(EngineObserver* o) { observers_.push_back(o); }
  // Runs to completion. Throws ActionError for refused actions and std::runtime_error when the policy
  // leaves work undone with nothing left to happen.
  void run(Policy& policy);

  const std::vector<LaunchState>& launches() const { return launches_; }
  const std::vector<SmState>& sms() const { return sms_; }
  const EngineStats& stats() const { return stats_; }
  const EngineConfig& config() const { return config_; }
  TimeNs now() const { return now_; }
  const LaunchSpec& spec(std::int32_t l) const { return specs_[static_cast<std::size_t>(l)]; }

 private:
  friend class EngineView;
  friend class Actions;

  struct QueuedEvent {
    TimeNs time;
    std::uint64_t order;  // kind in the top bits, then a sequence number: a strict, stable order
    std::int64_t payload;
    std::uint32_t generation;
  };
  struct Later {
    bool operator()(const QueuedEvent& a, const QueuedEvent& b) const {
      return a.time != b.time ? a.time > b.time : a.order > b.order;
    }
  };
  enum QueuedKind : std::uint64_t { QBlockEnd = 0, QSaved = 1, QArrival = 2, QTimer = 3 };

  void push(TimeNs t, QueuedKind kind, std::int64_t payload, std::uint32_t generation = 0);
  void apply(const QueuedEvent& ev);
  void release(std::int32_t l);
  void finish_block(std::int32_t slot, PieceOutcome outcome, TimeNs end);
  void account(SmState& sm);  // integrates statistics up to now_
  void take(SmState& sm, const BlockFootprint& f, int sign);
  void mark_freed(int sm);
  void check_drained(int sm);
  std::int32_t alloc_slot();
  void emit(const BlockPiece& p);
  TimeNs block_duration(const LaunchState& l, std::int32_t block, int sm) const;
  [[noreturn]] void refuse(const std::string& what) const;

  // Actions.
  void do_dispatch(std::int32_t l, int sm, std::int64_t count);
  void do_flush(std::int32_t slot);
  void do_switch(std::int32_t slot);

  EngineConfig config_;
  std::vector<LaunchSpec> specs_;
  std::vector<LaunchState> launches_;
  std::vector<std::vector<std::int32_t>> successors_;
  std::vector<SmState> sms_;
  std::vector<ResidentBlock> slots_;
  std::vector<std::int32_t> free_slots_;
  std::vector<QueuedEvent> heap_;
  std::uint64_t sequence_ = 0;
  TimeNs now_ = 0;
  std::vector<std::int32_t> active_;
  std::vector<std::int32_t> freed_;
  std::vector<char> freed_mark_;
  std::vector<EngineEvent> batch_;
  std::vector<TimeNs> drain_requested_;  // per SM, -1 when not draining
  std::vector<EngineObserver*> observers_;
  EngineStats stats_;
  std::string policy_name_;
  std::int64_t finished_launches_ = 0;
};

}  // namespace gpusched::sim
