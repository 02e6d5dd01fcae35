// The discrete-event engine: owns time, the event queue and every SM's resource accounting; policies own
// the decisions (DESIGN, "Engine and policies"). Time is integer nanoseconds; ties are broken by stable
// ids, so the same inputs and seed give the same Schedule byte for byte.
#pragma once
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
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
#include "sim/event_queue.h"

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
  // The predecessor that is the previous launch of the same stream (released launch_gap after it ends; the
  // others completion_latency after), or -1.
  std::int64_t stream_predecessor = -1;
  std::uint64_t draw_key = 0;    // identifies the launch's random draws (its workload index)
  TimeNs alone = 0;              // time alone (oracle), 0 when unknown
  bool block_coalesced = false;  // see Launch::block_coalesced
  std::string tenant;            // "" = a tenant of its own
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
  LaunchReleased,  // arrived and its dependencies are done
  BlockFinished,   // a block (or its last piece) completed
  LaunchFinished,  // all blocks of a launch completed
  Timer,           // a timer the policy set
  SmDrained,       // an SM being drained has no resident blocks left
  BlockSaved,      // a context switch finished saving a block; its resources are free
  BlockFlushed,    // a block was flushed; its resources are free
};

struct EngineEvent {
  EventKind kind;
  std::int32_t launch = -1;
  std::int32_t block = -1;
  std::int32_t sm = -1;  // global SM id (gpu * sm_count + sm)
  // Timers: the policy's tag. BlockFinished, BlockSaved, BlockFlushed: when the piece that ended started
  // (kept in one field so the event stays 24 bytes: the engine appends one per block).
  std::int64_t tag = 0;
};

enum class LaunchPhase : std::uint8_t { Waiting, Released, Finished };

// A block preempted by a context switch: it resumes with `done` ns of work behind it.
struct SuspendedBlock {
  std::int32_t block;
  TimeNs done;   // work done so far (ns at the duration it was dispatched with)
  TimeNs total;  // its full duration
};

// Blocks waiting to be issued again, in the order they joined: a vector read from a moving head, so that taking the
// first is O(1) (erasing a vector's front moved every other entry: under srtf-chimera on a long queue a launch
// holds hundreds of switched-out blocks, and that move was 7 % of the run). Taken entries are dropped when the list
// empties or when they are half of it.
template <typename T>
class FifoList {
 public:
  std::size_t size() const { return items_.size() - head_; }
  bool empty() const { return head_ == items_.size(); }
  const T& front() const { return items_[head_]; }
  void push_back(const T& x) { items_.push_back(x); }
  void pop_front() {
    if (++head_ == items_.size()) {
      clear();
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {  // a list that never empties: amortised O(1)
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

struct LaunchState {
  std::int32_t index = 0;
  const KernelProfile* kernel = nullptr;
  BlockFootprint footprint;
  int residency = 0;  // occupancy limit of its kernel on the GPU (blocks per SM)
  std::int64_t total_blocks = 0;
  std::int64_t next_block = 0;         // next never-issued block
  std::int64_t dispatch_limit = 0;     // slice end: fresh blocks below this index may issue
  FifoList<std::int32_t> flushed;      // flushed blocks, issued first (from their start)
  FifoList<SuspendedBlock> suspended;  // switched-out blocks, issued first (resumed)
  std::int64_t resident = 0;
  std::int64_t completed = 0;
  int residency_cap = INT_MAX;    // per SM, set by the policy
  std::vector<char> allowed_sms;  // empty: every SM; else allowed_sms[sm] != 0
  int gpu = -1;                   // the GPU its blocks run on, once the first is dispatched
  // The GPU on which it holds one of the resident grids (GpuSpec::max_resident_grids): from its first block's
  // dispatch until it finishes, or, sliced, until a slice has ended with nothing resident (the next slice takes one
  // again); -1 while it holds none.
  int grid_gpu = -1;
  bool any_gpu = false;           // its blocks may run on several GPUs (Actions::allow_any_gpu)
  bool block_coalesced = false;   // from its LaunchSpec
  std::int32_t tenant = 0;        // dense tenant id (launches with equal LaunchSpec::tenant share one)
  LaunchPhase phase = LaunchPhase::Waiting;
  bool killed = false;  // finished by Actions::kill, not by completing its blocks
  int unfinished_predecessors = 0;
  TimeNs ready_at = 0;  // the latest predecessor's finish plus its gap (GpuSpec timing)
  // When the launch could first have started: its arrival, or its last predecessor's finish if later. Its
  // turnaround runs from here, so the front end's latencies and gaps (release - this) count in it.
  TimeNs submitted = 0;
  TimeNs deadline = -1;  // absolute, -1: none (policies may act on it; the engine does not)
  TimeNs arrival = 0, release = -1, first_dispatch = -1, finish = -1;
  TimeNs alone = 0;
  std::uint64_t draw_base = 0;       // seeds the draws of its unrecorded blocks
  std::vector<int> resident_per_sm;  // blocks resident on each SM
  // Where the next fresh block's recorded duration lies (Engine::recorded_fresh_duration), loaded ahead so
  // that its cache miss overlaps other work; -1 when nothing is ahead.
  std::int64_t ahead_block = -1;
  const TimeNs* ahead = nullptr;

  std::int64_t issuable() const {
    return static_cast<std::int64_t>(flushed.size() + suspended.size()) + (dispatch_limit - next_block);
  }
  std::int64_t unissued() const {  // blocks not yet issued, slice limit ignored
    return static_cast<std::int64_t>(flushed.size() + suspended.size()) + (total_blocks - next_block);
  }
};

// A list of block slots that the engine appends to and removes from once per block: a vector whose
// appends stay inline (GCC outlined std::vector::push_back on this path: 3% of the engine benchmark).
class SlotList {
 public:
  const std::int32_t* begin() const { return items_.data(); }
  const std::int32_t* end() const { return items_.data() + count_; }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::int32_t operator[](std::size_t i) const { return items_[i]; }
  std::int32_t& operator[](std::size_t i) { return items_[i]; }
  std::int32_t back() const { return items_[count_ - 1]; }
  void reserve(std::size_t n) {
    if (items_.size() < n) items_.resize(n);
  }
  [[gnu::always_inline]] void push_back(std::int32_t x) {
    if (count_ == items_.size()) items_.resize(2 * count_ + 8);
    items_[count_++] = x;
  }
  void pop_back() { --count_; }
  void clear() { count_ = 0; }

 private:
  std::vector<std::int32_t> items_;
  std::size_t count_ = 0;
};

struct SmState {
  int gpu = 0;
  int index = 0;                                                             // within its GPU
  int threads = 0, warps = 0, registers = 0, shared_memory = 0, blocks = 0;  // in use
  bool draining = false;
  // Over-life models only: how many launches have blocks here, and whether any running block here has a rate other
  // than 1 (while neither holds, a change on the SM cannot change a rate: Engine::retime_sm returns at once).
  bool rated = false;
  int launches_here = 0;
  // Over-life models only: the kernels of the launches with blocks here, each with how many of those launches.
  std::vector<std::pair<const KernelProfile*, int>> kernels_here;
  // Context saves and restores of one SM share its bandwidth: they queue one after another on this channel.
  TimeNs switch_channel_free = 0;
  SlotList residents;  // resident block slots (no particular order)
  // Statistics for utilisation and occupancy over time.
  TimeNs busy_since = 0, busy_time = 0, last_change = 0;
  std::int64_t warp_time =
      0;  // integral of resident warps over time (warp-ns; exact, where a double sum rounds past 2^53)
};

enum class BlockState : std::uint8_t { Free, Running, Saving };

struct ResidentBlock {
  std::int32_t launch = -1;
  std::int32_t block = -1;
  std::int32_t sm = -1;
  BlockState state = BlockState::Free;
  bool resumed = false;
  std::uint32_t generation = 0;  // invalidates events of a slot that was reused (30 bits used)
  std::int32_t next_free = -1;   // for a free slot, the next free slot (-1: none)
  TimeNs start = 0;              // piece start
  TimeNs end = 0;                // when it completes if left alone (for Saving: when saving ends)
  TimeNs done_before = 0;        // work done in earlier pieces
  TimeNs total = 0;              // full duration of the block
  TimeNs restore = 0;            // context-restore time at the start of this piece
};

// Observers receive engine signals; the engine itself writes nothing (DESIGN).
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void on_piece(const BlockPiece& piece) = 0;
  virtual void on_launch_finished(const LaunchState& /*launch*/, TimeNs /*now*/) {}
  virtual void on_phase(const PhaseSpan& /*span*/) {}
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
  const LaunchSpec& spec(std::int32_t i) const;  // the launch as given (priority, deadline, tenant, ...)
  std::int32_t launch_count() const;
  // Released, unfinished launches in release order (ties by launch index).
  const std::vector<std::int32_t>& active() const;
  // SMs that freed resources in the current batch of events (each once).
  std::span<const std::int32_t> freed_sms() const;
  const ResidentBlock& resident(std::int32_t slot) const;
  // How many more blocks of launch `l` the engine would accept on SM `sm` right now (resources, block
  // slots, residency cap, allowed SMs, draining, the launch's GPU, its issuable blocks, and a resident grid: a
  // launch holding none, not started or between slices, gets none while the GPU holds GpuSpec::max_resident_grids
  // others).
  std::int64_t room_for(std::int32_t l, int sm) const;
  // Resource room only (ignores caps, masks and the issuable count): blocks of `l` that would fit.
  int resource_room(std::int32_t l, int sm) const;
  // True if `count` more blocks of `l` fit the SM's resources (no caps or masks considered).
  bool resources_fit(std::int32_t l, int sm, std::int64_t count) const;
  // Launches holding a resident grid on a GPU (started and not finished; GpuSpec::max_resident_grids).
  int grids_held(int gpu) const;
  // True if launch l holds a resident grid or could take one now (on its GPU, or on any when it has none yet).
  bool can_start(std::int32_t l) const;
  // Grids a GPU could still hand to launches holding none (INT_MAX when the GPU has no limit).
  int free_grids(int gpu) const;
  // Free warps on an SM (the measure most-free placement ranks SMs by).
  int free_warps(int sm) const;
  std::uint64_t seed() const;
  const std::string& tenant_name(std::int32_t tenant) const;  // LaunchState::tenant's name (or the launch id)
  const EngineConfig& config() const;                         // the GPU, seed, duration model and costs of this run
  TimeNs switch_time(std::int32_t l) const;                   // time to save (or restore) one block's context
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
  // Dispatches as many blocks of `l` as SM `sm` accepts now, at most `max_count`; returns how many. The
  // engine works out the room itself, so policies need not call room_for first.
  std::int64_t fill(std::int32_t l, int sm, std::int64_t max_count = INT64_MAX);
  void set_residency_cap(std::int32_t l, int blocks_per_sm);
  void restrict_to_sms(std::int32_t l, const std::vector<int>& sms);
  void allow_all_sms(std::int32_t l);
  // Only fresh blocks with index < end may issue until the slice is extended (end <= total blocks).
  void set_slice_end(std::int32_t l, std::int64_t end);
  void drain_sm(int sm);          // stop accepting blocks; SmDrained once empty
  void undrain_sm(int sm);        // accept blocks again
  void flush(std::int32_t slot);  // drop a still-idempotent block; it reruns from its start
  // Saves a block's context; it resumes later, maybe elsewhere. Saves and restores on one SM queue on its
  // bandwidth (switch_time each), so switching k blocks of an SM takes k x switch_time in all.
  void context_switch(std::int32_t slot);
  // Ends a launch now: its resident blocks are dropped (outcome killed), nothing more of it issues, and it
  // finishes (LaunchFinished) with `killed` set; its successors are released as after a normal finish.
  void kill(std::int32_t l);
  void set_timer(TimeNs at, std::int64_t tag);
  // Lets the launch's blocks run on any GPU, not only the GPU of its first block (time-sharing moves a
  // launch between GPUs with its state; block-coalesced launches run on several at once).
  void allow_any_gpu(std::int32_t l);
  // Records that launch `l` is now in `state` on `gpu` (-1: none); nullopt ends its current state. The
  // engine closes the previous state of the same (launch, gpu) and hands observers the span: the Schedule
  // keeps them beside the pieces. States still open when the run ends are closed then.
  void set_phase(std::int32_t l, int gpu, std::optional<PhaseState> state);

 private:
  Engine& e_;
};

struct EngineStats {
  std::int64_t events = 0;
  std::int64_t preemptions = 0;
  TimeNs wasted_work = 0;
  // Drain request to SM empty; for a context switch on an SM that is not being drained, switch request to
  // saved (policies that preempt whole SMs drain them and get one latency per SM).
  std::vector<TimeNs> preemption_latencies;
  std::int64_t killed_launches = 0;
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

  // 16 bytes, like a bare priority queue's (time, id) pair. The key orders events of equal time: kind
  // (2 bits), then a 30-bit generation, then a 32-bit payload (block slot, launch or timer index), all
  // deterministic, so ties break the same way every run.
  struct QueuedEvent {
    TimeNs time;
    std::uint64_t key;
  };
  enum QueuedKind : std::uint64_t { QBlockEnd = 0, QSaved = 1, QArrival = 2, QTimer = 3 };
  static constexpr std::uint32_t kGenerationMask = (1u << 30) - 1;

  void push(TimeNs t, QueuedKind kind, std::uint32_t payload, std::uint32_t generation = 0);
  void apply(const QueuedEvent& ev);
  void release(std::int32_t l);
  TimeNs dispatch_start(int gpu);  // when the GPU's dispatcher starts a block placed now
  void finish_block(std::int32_t slot, PieceOutcome outcome, TimeNs end);
  void finish_launch(std::int32_t l);
  void account(SmState& sm);  // integrates statistics up to now_
  // Adds (sign +1) or releases (-1) one block's resources on an SM: twice per block, so kept inline.
  [[gnu::always_inline]] void take(SmState& sm, const BlockFootprint& f, int sign);
  void mark_freed(int sm);
  void check_drained(int sm);
  std::int32_t alloc_slot();
  void emit(const BlockPiece& p);
  TimeNs block_duration(const LaunchState& l, std::int32_t block, int sm, TimeNs start) const;
  // Models applied over a block's life (DurationModel::over_life): asks the model for each launch's rate on the SM
  // and re-times the end of every running block there from the work it has left.
  void retime_sm(int sm);
  void retime_one_sm(int sm);
  static void count_kernel_here(SmState& s, const KernelProfile* kernel, int delta);
  // GPU-wide models only (DurationModel::gpu_wide): one more (+1) or one fewer (-1) resident block of `kernel` on
  // `gpu`.
  void count_kernel_on_gpu(int gpu, const KernelProfile* kernel, int delta);
  // Work (ns at rate 1) a running block has done in its current piece by now.
  double life_work_done(std::int32_t slot) const;
  // recorded_duration of a fresh block (blocks issue in index order), with the next one's prefetched.
  TimeNs recorded_fresh_duration(LaunchState& l, std::int32_t block) const;
  [[noreturn]] void refuse(const std::string& what) const;

  // Actions.
  void do_dispatch(std::int32_t l, int sm, std::int64_t count);
  void place_blocks(std::int32_t l, int sm, std::int64_t count);  // after the checks
  bool accepts(const LaunchState& launch, int sm, std::int64_t count) const;
  void release_idle_grid(LaunchState& launch);
  void release_grid(LaunchState& launch);
  void do_flush(std::int32_t slot);
  void do_switch(std::int32_t slot);
  void do_kill(std::int32_t l);
  void do_set_phase(std::int32_t l, int gpu, std::optional<PhaseState> state);
  void close_phases();

  EngineConfig config_;
  std::vector<LaunchSpec> specs_;
  std::vector<LaunchState> launches_;
  std::vector<std::vector<std::int32_t>> successors_;
  std::vector<SmState> sms_;
  std::vector<ResidentBlock> slots_;
  mutable std::vector<CoRunner> co_runner_scratch_;  // block_duration's co-runners (markov model)
  // Over-life models only: per slot, the work its current piece has left (ns at rate 1) as of `since` (a time >= the
  // piece's start and restore), and the rate it runs at since then. Kept apart from the slots so that the engine's
  // usual path (no such model) does not carry them.
  struct LifeState {
    double left = 0;
    double rate = 1;
    TimeNs since = 0;
    TimeNs work = 0;  // the piece's work when placed (total - done_before)
  };
  bool over_life_ = false;
  bool lone_at_one_ = true;         // DurationModel::lone_launch_at_rate_one
  bool one_kernel_at_one_ = false;  // DurationModel::one_kernel_at_rate_one
  bool gpu_wide_ = false;           // DurationModel::gpu_wide
  // GPU-wide models only: per GPU, each kernel's resident blocks there (a few kernels: a linear search).
  std::vector<std::vector<SmGroup>> gpu_load_;
  std::vector<char> gpu_kernels_changed_;  // per GPU: a kernel came or left since the last re-timing there
  std::vector<LifeState> life_;
  std::vector<SmGroup> group_scratch_;
  std::vector<std::int32_t> group_launch_scratch_;
  std::vector<double> rate_scratch_;
  mutable std::vector<std::int32_t> co_runner_owner_scratch_;
  std::int32_t free_slot_ = -1;  // first free slot, the rest linked through ResidentBlock::next_free
  // Where each slot is in its SM's `residents`: removing it swaps the last one in without a search. Kept
  // apart from the slots (4 bytes each, cache-resident) because the swapped-in slot is otherwise untouched.
  std::vector<std::int32_t> slot_position_;
  RadixEventQueue<QueuedEvent> heap_;
  std::vector<std::int64_t> timer_tags_;
  TimeNs now_ = 0;
  std::vector<std::int32_t> active_;
  SlotList freed_;  // SMs that freed resources in this batch
  std::vector<char> freed_mark_;
  // The events of the current batch. A hand-rolled append keeps the hot path inline (GCC outlined
  // std::vector::push_back here: 6% of the engine's time in tests/bench).
  struct EventBatch {
    std::vector<EngineEvent> items = std::vector<EngineEvent>(64);
    std::size_t count = 0;
    [[gnu::always_inline]] void push(const EngineEvent& e) {
      if (count == items.size()) items.resize(2 * items.size());
      items[count++] = e;
    }
    bool empty() const { return count == 0; }
    std::span<const EngineEvent> view() const { return {items.data(), count}; }
  };
  EventBatch batch_, delivered_;
  std::vector<TimeNs> drain_requested_;  // per SM, -1 when not draining
  // The GPU-wide block dispatcher (GpuSpec::block_dispatch_ns): per GPU, when it can dispatch the next block, in
  // picoseconds (a dispatch takes a fraction of a ns on recent GPUs). Unused when the time is 0.
  std::int64_t dispatch_ps_ = 0;
  std::vector<std::int64_t> dispatcher_free_ps_;
  struct OpenPhase {
    std::int32_t launch;
    int gpu;
    PhaseState state;
    TimeNs since;
  };
  std::vector<OpenPhase> open_phases_;
  std::vector<std::string> tenant_names_;  // few at a time (the tenants of a time-shared GPU)
  std::vector<EngineObserver*> observers_;
  EngineStats stats_;
  std::string policy_name_;
  std::int64_t finished_launches_ = 0;
  // Per GPU, the launches holding a resident grid there; GpuSpec::max_resident_grids (0: no limit).
  std::vector<int> grids_held_;
  int grid_limit_ = 0;
  // True while launch `launch` may not start on `gpu`: it holds no grid and every grid there is held.
  bool grid_refused(const LaunchState& launch, int gpu) const {
    return grid_limit_ > 0 && launch.grid_gpu < 0 && grids_held_[static_cast<std::size_t>(gpu)] >= grid_limit_;
  }
};

// EngineView is on every policy's hot path: its accessors are inline.
inline TimeNs EngineView::now() const {
  return e_.now_;
}
inline const GpuSpec& EngineView::gpu() const {
  return e_.config_.gpu;
}
inline int EngineView::gpu_count() const {
  return e_.config_.gpu_count;
}
inline int EngineView::sm_count() const {
  return static_cast<int>(e_.sms_.size());
}
inline int EngineView::sms_per_gpu() const {
  return e_.config_.gpu.sm_count;
}
inline const SmState& EngineView::sm(int id) const {
  return e_.sms_[static_cast<std::size_t>(id)];
}
inline const LaunchState& EngineView::launch(std::int32_t i) const {
  return e_.launches_[static_cast<std::size_t>(i)];
}
inline const LaunchSpec& EngineView::spec(std::int32_t i) const {
  return e_.spec(i);
}
inline std::int32_t EngineView::launch_count() const {
  return static_cast<std::int32_t>(e_.launches_.size());
}
inline const std::vector<std::int32_t>& EngineView::active() const {
  return e_.active_;
}
inline std::span<const std::int32_t> EngineView::freed_sms() const {
  return {e_.freed_.begin(), e_.freed_.size()};
}
inline const ResidentBlock& EngineView::resident(std::int32_t slot) const {
  return e_.slots_[static_cast<std::size_t>(slot)];
}
inline std::uint64_t EngineView::seed() const {
  return e_.config_.seed;
}
inline const std::string& EngineView::tenant_name(std::int32_t t) const {
  return e_.tenant_names_[static_cast<std::size_t>(t)];
}
inline const EngineConfig& EngineView::config() const {
  return e_.config_;
}

inline bool EngineView::resources_fit(std::int32_t l, int sm, std::int64_t count) const {
  const auto& f = e_.launches_[static_cast<std::size_t>(l)].footprint;
  const auto& s = e_.sms_[static_cast<std::size_t>(sm)];
  const auto& g = e_.config_.gpu;
  const auto n = static_cast<int>(count);
  return s.blocks + n <= g.max_blocks_per_sm && s.threads + n * f.threads <= g.max_threads_per_sm &&
         s.warps + n * f.warps <= g.max_warps_per_sm && s.registers + n * f.registers <= g.registers_per_sm &&
         s.shared_memory + n * f.shared_memory <= g.shared_memory_per_sm;
}

inline int EngineView::resource_room(std::int32_t l, int sm) const {
  // Usually an SM has room for none or one more block: two comparisons settle it without dividing.
  if (!resources_fit(l, sm, 1)) return 0;
  if (!resources_fit(l, sm, 2)) return 1;
  const auto& f = e_.launches_[static_cast<std::size_t>(l)].footprint;
  const auto& s = e_.sms_[static_cast<std::size_t>(sm)];
  const auto& g = e_.config_.gpu;
  int room = g.max_blocks_per_sm - s.blocks;
  room = std::min(room, (g.max_threads_per_sm - s.threads) / f.threads);
  room = std::min(room, (g.max_warps_per_sm - s.warps) / f.warps);
  if (f.registers > 0) room = std::min(room, (g.registers_per_sm - s.registers) / f.registers);
  if (f.shared_memory > 0) room = std::min(room, (g.shared_memory_per_sm - s.shared_memory) / f.shared_memory);
  return std::max(room, 0);
}

inline std::int64_t EngineView::room_for(std::int32_t l, int sm) const {
  const auto& launch = e_.launches_[static_cast<std::size_t>(l)];
  const auto& s = e_.sms_[static_cast<std::size_t>(sm)];
  if (launch.phase != LaunchPhase::Released || s.draining) return 0;
  if (!launch.allowed_sms.empty() && !launch.allowed_sms[static_cast<std::size_t>(sm)]) return 0;
  if (launch.gpu >= 0 && launch.gpu != s.gpu && !launch.any_gpu) return 0;
  if (e_.grid_refused(launch, s.gpu)) return 0;
  const int resident_here = launch.resident_per_sm[static_cast<std::size_t>(sm)];
  // Never more of one kernel than the occupancy calculator allows it alone (register sub-partitions make
  // the per-SM sum rule slightly optimistic for a single kernel).
  const int cap = std::min(launch.residency_cap, launch.residency) - resident_here;
  const std::int64_t wanted = std::min<std::int64_t>(cap, launch.issuable());
  if (wanted <= 0) return 0;
  // Most calls settle at zero or one block: the resource check for one block is all they need.
  if (wanted == 1) return resources_fit(l, sm, 1) ? 1 : 0;
  return std::min<std::int64_t>(resource_room(l, sm), wanted);
}

inline int EngineView::grids_held(int gpu) const {
  return e_.grids_held_[static_cast<std::size_t>(gpu)];
}

inline int EngineView::free_grids(int gpu) const {
  if (e_.grid_limit_ == 0) return std::numeric_limits<int>::max();
  return std::max(0, e_.grid_limit_ - e_.grids_held_[static_cast<std::size_t>(gpu)]);
}

inline bool EngineView::can_start(std::int32_t l) const {
  const auto& launch = e_.launches_[static_cast<std::size_t>(l)];
  if (e_.grid_limit_ == 0 || launch.grid_gpu >= 0) return true;
  if (launch.gpu >= 0 && !launch.any_gpu) return !e_.grid_refused(launch, launch.gpu);
  for (int g = 0; g < e_.config_.gpu_count; ++g)
    if (!e_.grid_refused(launch, g)) return true;
  return false;
}

inline int EngineView::free_warps(int sm) const {
  return e_.config_.gpu.max_warps_per_sm - e_.sms_[static_cast<std::size_t>(sm)].warps;
}

}  // namespace gpusched::sim
