#include "sim/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/random.h"
#include "sim/policy.h"

namespace gpusched::sim {

std::uint64_t draw_base(std::uint64_t seed, std::uint64_t draw_key) {
  return splitmix64(splitmix64(seed) ^ draw_key);
}

namespace {
// Where block `block`'s duration lies: its own record, else one drawn from the records by its hash; nullptr
// without records. The engine's fresh blocks look it up one block ahead (Engine::recorded_fresh_duration).
const TimeNs* recorded_duration_at(const RecordSet* set, std::int64_t block, std::uint64_t draw_base) {
  if (!set || set->sorted_durations.empty()) return nullptr;
  if (block < static_cast<std::int64_t>(set->duration_by_block.size())) {
    const TimeNs* d = &set->duration_by_block[static_cast<std::size_t>(block)];
    if (*d >= 0) return d;
  }
  const auto i = bounded(splitmix64(draw_base ^ static_cast<std::uint64_t>(block)), set->sorted_durations.size());
  return &set->sorted_durations[static_cast<std::size_t>(i)];
}
}  // namespace

TimeNs recorded_duration(const KernelProfile& k, std::int64_t block, std::uint64_t draw_base) {
  const TimeNs* at = recorded_duration_at(k.primary_records(), block, draw_base);
  if (!at) throw std::invalid_argument(fmt::format("kernel '{}' has no block records to take durations from", k.name));
  return *at;
}

// ---------------------------------------------------------------------------------------------------
// Construction

Engine::Engine(EngineConfig config, std::vector<LaunchSpec> launches)
    : config_(std::move(config)), specs_(std::move(launches)) {
  const int per_gpu = config_.gpu.sm_count;
  const int total = per_gpu * config_.gpu_count;
  sms_.resize(static_cast<std::size_t>(total));
  for (int i = 0; i < total; ++i) {
    sms_[static_cast<std::size_t>(i)].gpu = i / per_gpu;
    sms_[static_cast<std::size_t>(i)].index = i % per_gpu;
    sms_[static_cast<std::size_t>(i)].residents.reserve(
        static_cast<std::size_t>(std::max(config_.gpu.max_blocks_per_sm, 0)));
  }
  freed_.reserve(static_cast<std::size_t>(total));
  freed_mark_.assign(static_cast<std::size_t>(total), 0);
  dispatch_ps_ = static_cast<std::int64_t>(std::llround(config_.gpu.block_dispatch_ns * 1000.0));
  over_life_ = config_.durations && config_.durations->over_life();
  lone_at_one_ = !over_life_ || config_.durations->lone_launch_at_rate_one();
  one_kernel_at_one_ = over_life_ && config_.durations->one_kernel_at_rate_one();
  gpu_wide_ = over_life_ && config_.durations->gpu_wide();
  if (gpu_wide_) {
    gpu_load_.assign(static_cast<std::size_t>(config_.gpu_count), {});
    gpu_kernels_changed_.assign(static_cast<std::size_t>(config_.gpu_count), 0);
  }
  dispatcher_free_ps_.assign(static_cast<std::size_t>(config_.gpu_count), 0);
  grids_held_.assign(static_cast<std::size_t>(config_.gpu_count), 0);
  grid_limit_ = std::max(config_.gpu.max_resident_grids, 0);
  drain_requested_.assign(static_cast<std::size_t>(total), -1);
  launches_.resize(specs_.size());
  std::unordered_map<std::string, std::int32_t> tenants;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const auto& s = specs_[i];
    auto& l = launches_[i];
    const std::string tenant = s.tenant.empty() ? "\x01" + s.id : s.tenant;  // unnamed: its own tenant
    const auto [it, added] = tenants.emplace(tenant, static_cast<std::int32_t>(tenants.size()));
    l.tenant = it->second;
    if (added) tenant_names_.push_back(s.tenant.empty() ? s.id : s.tenant);
    l.index = static_cast<std::int32_t>(i);
    l.kernel = s.kernel;
    const auto occ = compute_occupancy(config_.gpu, s.kernel->shape());
    if (occ.blocks_per_sm == 0)
      throw std::invalid_argument(fmt::format("launch '{}': kernel '{}' cannot run on {}: {}", s.id, s.kernel->name,
                                              config_.gpu.name, occ.reason));
    l.footprint = occ.footprint;
    l.residency = occ.blocks_per_sm;
    l.total_blocks = s.kernel->block_count();
    l.dispatch_limit = l.total_blocks;
    l.arrival = s.arrival;
    l.submitted = s.arrival;
    l.draw_base = draw_base(config_.seed, s.draw_key);
    l.alone = s.alone;
    l.unfinished_predecessors = static_cast<int>(s.predecessors.size());
    l.deadline = s.deadline.value_or(-1);
    l.block_coalesced = s.block_coalesced;
    l.resident_per_sm.assign(static_cast<std::size_t>(total), 0);
  }
  successors_.resize(specs_.size());
  for (std::size_t i = 0; i < specs_.size(); ++i)
    for (std::size_t p : specs_[i].predecessors) {
      if (p >= specs_.size())
        throw std::invalid_argument(fmt::format("launch '{}': unknown predecessor {}", specs_[i].id, p));
      successors_[p].push_back(static_cast<std::int32_t>(i));
    }
}

// ---------------------------------------------------------------------------------------------------
// Event queue

void Engine::push(TimeNs t, QueuedKind kind, std::uint32_t payload, std::uint32_t generation) {
  const std::uint64_t key = (static_cast<std::uint64_t>(kind) << 62) |
                            (static_cast<std::uint64_t>(generation & kGenerationMask) << 32) | payload;
  heap_.push(QueuedEvent{t, key});
}

void Engine::run(Policy& policy) {
  policy_name_ = policy.name();
  if (config_.durations) config_.durations->begin_run();
  // Launches without dependencies are released their launch latency after they arrive (the host's call);
  // queued in index order so that equal times release in workload order.
  for (std::size_t i = 0; i < launches_.size(); ++i)
    if (launches_[i].unfinished_predecessors == 0)
      push(launches_[i].arrival + config_.gpu.launch_latency_ns, QArrival, static_cast<std::uint32_t>(i));
  EngineView view(*this);
  Actions actions(*this);
  while (!heap_.empty()) {
    now_ = heap_.top().time;
    do {
      const QueuedEvent ev = heap_.pop();
      // The next block end's slot is a cache miss away (slots are touched once per block life): start the
      // load now, while this event is applied.
      if (const QueuedEvent* next = heap_.soon(); next && static_cast<std::uint32_t>(next->key) < slots_.size())
        __builtin_prefetch(&slots_[static_cast<std::uint32_t>(next->key)]);
      apply(ev);
      ++stats_.events;
    } while (heap_.has_current());
    // Actions may free resources at once (flush, drain of an empty SM): those events go to the policy in
    // a further call at the same time, until nothing new happens.
    for (int round = 0; !batch_.empty(); ++round) {
      if (round > 1'000'000)
        throw std::runtime_error(
            fmt::format("policy '{}' keeps reacting to its own actions at t={} ns", policy_name_, now_));
      std::swap(delivered_, batch_);
      batch_.count = 0;
      policy.on_events(view, delivered_.view(), actions);
      for (std::int32_t sm : freed_) freed_mark_[static_cast<std::size_t>(sm)] = 0;
      freed_.clear();
    }
  }
  close_phases();
  if (finished_launches_ != static_cast<std::int64_t>(launches_.size())) {
    std::string stuck;
    int shown = 0;
    for (const auto& l : launches_) {
      if (l.phase == LaunchPhase::Finished) continue;
      if (shown++ < 5)
        stuck += fmt::format("{}'{}' ({} of {} blocks done{})", stuck.empty() ? "" : ", ",
                             specs_[static_cast<std::size_t>(l.index)].id, l.completed, l.total_blocks,
                             l.phase == LaunchPhase::Waiting ? ", never released" : "");
    }
    throw std::runtime_error(fmt::format(
        "policy '{}' left launches unfinished with nothing left to happen at t={} ns: {}", policy_name_, now_, stuck));
  }
}

void Engine::apply(const QueuedEvent& ev) {
  const auto kind = static_cast<QueuedKind>(ev.key >> 62);
  const auto generation = static_cast<std::uint32_t>(ev.key >> 32) & kGenerationMask;
  const auto payload = static_cast<std::uint32_t>(ev.key);
  switch (kind) {
    case QBlockEnd: {
      const auto slot = static_cast<std::int32_t>(payload);
      const auto& b = slots_[static_cast<std::size_t>(slot)];
      if ((b.generation & kGenerationMask) != generation || b.state != BlockState::Running) return;  // preempted
      const bool draining = sms_[static_cast<std::size_t>(b.sm)].draining;
      finish_block(slot,
                   b.resumed  ? PieceOutcome::SwitchedIn
                   : draining ? PieceOutcome::Drained
                              : PieceOutcome::Completed,
                   now_);
      return;
    }
    case QSaved: {
      const auto slot = static_cast<std::int32_t>(payload);
      const auto& b = slots_[static_cast<std::size_t>(slot)];
      if ((b.generation & kGenerationMask) != generation || b.state != BlockState::Saving) return;
      finish_block(slot, PieceOutcome::SwitchedOut, now_);
      return;
    }
    case QArrival: {
      const auto l = static_cast<std::int32_t>(payload);
      auto& launch = launches_[static_cast<std::size_t>(l)];
      if (launch.phase == LaunchPhase::Waiting && launch.unfinished_predecessors == 0) release(l);
      return;
    }
    case QTimer:
      batch_.push(EngineEvent{EventKind::Timer, -1, -1, -1, timer_tags_[payload]});
      return;
  }
}

TimeNs Engine::dispatch_start(int gpu) {
  // One block after another: a block placed while the dispatcher is busy starts when it is free. The block
  // holds its slot from its placement (the hardware has committed it to the SM).
  auto& free_ps = dispatcher_free_ps_[static_cast<std::size_t>(gpu)];
  free_ps = std::max(free_ps, now_ * 1000);
  const TimeNs start = (free_ps + 999) / 1000;
  free_ps += dispatch_ps_;
  return start;
}

void Engine::release(std::int32_t l) {
  auto& launch = launches_[static_cast<std::size_t>(l)];
  launch.phase = LaunchPhase::Released;
  launch.release = now_;
  active_.push_back(l);
  batch_.push(EngineEvent{EventKind::LaunchReleased, l, -1, -1, 0});
}

// ---------------------------------------------------------------------------------------------------
// Resources and statistics

inline void Engine::account(SmState& sm) {
  sm.warp_time += sm.warps * (now_ - sm.last_change);
  sm.last_change = now_;
}

inline void Engine::take(SmState& sm, const BlockFootprint& f, int sign) {
  account(sm);
  const bool was_idle = sm.blocks == 0;
  sm.threads += sign * f.threads;
  sm.warps += sign * f.warps;
  sm.registers += sign * f.registers;
  sm.shared_memory += sign * f.shared_memory;
  sm.blocks += sign;
  if (was_idle && sm.blocks > 0) sm.busy_since = now_;
  if (!was_idle && sm.blocks == 0) sm.busy_time += now_ - sm.busy_since;
}

void Engine::mark_freed(int sm) {
  if (!freed_mark_[static_cast<std::size_t>(sm)]) {
    freed_mark_[static_cast<std::size_t>(sm)] = 1;
    freed_.push_back(sm);
  }
}

void Engine::check_drained(int sm) {
  auto& s = sms_[static_cast<std::size_t>(sm)];
  auto& requested = drain_requested_[static_cast<std::size_t>(sm)];
  if (s.draining && s.blocks == 0 && requested >= 0) {
    stats_.preemption_latencies.push_back(now_ - requested);
    requested = -1;
    batch_.push(EngineEvent{EventKind::SmDrained, -1, -1, sm, 0});
  }
}

std::int32_t Engine::alloc_slot() {
  if (free_slot_ >= 0) {
    const auto s = free_slot_;
    free_slot_ = slots_[static_cast<std::size_t>(s)].next_free;
    return s;
  }
  slots_.emplace_back();
  slot_position_.push_back(-1);
  if (over_life_) life_.emplace_back();
  return static_cast<std::int32_t>(slots_.size() - 1);
}

void Engine::emit(const BlockPiece& p) {
  for (auto* o : observers_) o->on_piece(p);
}

void Engine::finish_block(std::int32_t slot, PieceOutcome outcome, TimeNs end) {
  auto& b = slots_[static_cast<std::size_t>(slot)];
  auto& launch = launches_[static_cast<std::size_t>(b.launch)];
  auto& sm = sms_[static_cast<std::size_t>(b.sm)];
  emit(BlockPiece{std::min(b.start, end), end, b.launch, b.block, static_cast<std::int16_t>(sm.gpu),
                  static_cast<std::int16_t>(sm.index), outcome});
  take(sm, launch.footprint, -1);
  auto& res = sm.residents;  // unordered: swap the slot with the last one
  const std::int32_t moved = res.back();
  const std::int32_t position = slot_position_[static_cast<std::size_t>(slot)];
  res[static_cast<std::size_t>(position)] = moved;
  slot_position_[static_cast<std::size_t>(moved)] = position;
  res.pop_back();
  --launch.resident;
  const bool last_here = --launch.resident_per_sm[static_cast<std::size_t>(b.sm)] == 0;
  if (over_life_) {
    if (gpu_wide_) count_kernel_on_gpu(sm.gpu, launch.kernel, -1);
    if (last_here) {
      --sm.launches_here;
      count_kernel_here(sm, launch.kernel, -1);
    }
  }
  const int sm_id = b.sm;
  const TimeNs piece_start = b.start;
  const std::int32_t l = b.launch, block = b.block;
  b.state = BlockState::Free;
  b.next_free = free_slot_;
  free_slot_ = slot;
  mark_freed(sm_id);

  switch (outcome) {
    case PieceOutcome::Flushed:
      batch_.push(EngineEvent{EventKind::BlockFlushed, l, block, sm_id, piece_start});
      break;
    case PieceOutcome::SwitchedOut:
      launch.suspended.push_back(SuspendedBlock{block, b.done_before, b.total});
      if (!sm.draining) stats_.preemption_latencies.push_back(end - b.restore);  // b.restore: the request time
      batch_.push(EngineEvent{EventKind::BlockSaved, l, block, sm_id, piece_start});
      break;
    case PieceOutcome::Killed:
      break;  // do_kill finishes the launch
    default:
      ++launch.completed;
      batch_.push(EngineEvent{EventKind::BlockFinished, l, block, sm_id, piece_start});
      if (launch.completed == launch.total_blocks) finish_launch(l);
      break;
  }
  release_idle_grid(launch);
  if (over_life_) retime_sm(sm_id);
  check_drained(sm_id);
}

void Engine::release_idle_grid(LaunchState& launch) {
  // Between two slices (nothing resident, nothing to issue until the policy opens the next) a sliced launch holds no
  // grid: each of Kernelet's slices and each micro-kernel is a launch of its own on the GPU. A launch stopped with
  // blocks left to issue (waiting, preempted) keeps its grid, as the hardware keeps a launched grid.
  if (launch.resident == 0 && launch.issuable() == 0) release_grid(launch);
}

void Engine::release_grid(LaunchState& launch) {
  if (launch.grid_gpu < 0) return;
  --grids_held_[static_cast<std::size_t>(launch.grid_gpu)];
  launch.grid_gpu = -1;
}

void Engine::finish_launch(std::int32_t l) {
  auto& launch = launches_[static_cast<std::size_t>(l)];
  const bool was_released = launch.phase == LaunchPhase::Released;
  launch.phase = LaunchPhase::Finished;
  launch.finish = now_;
  // Its grid is free for a launch that holds none.
  release_grid(launch);
  if (launch.release < 0) launch.release = launch.submitted = now_;  // killed before its release
  ++finished_launches_;
  if (was_released) active_.erase(std::find(active_.begin(), active_.end(), l));
  batch_.push(EngineEvent{EventKind::LaunchFinished, l, -1, -1, launch.killed ? 1 : 0});
  for (auto* o : observers_) o->on_launch_finished(launch, now_);
  for (const std::int32_t s : successors_[static_cast<std::size_t>(l)]) {
    auto& succ = launches_[static_cast<std::size_t>(s)];
    // The next launch of a stream starts launch_gap after this one ends; one waiting on it through an event,
    // completion_latency after. Its own launch call still takes launch_latency from its arrival.
    const TimeNs gap = specs_[static_cast<std::size_t>(s)].stream_predecessor == l ? config_.gpu.launch_gap_ns
                                                                                   : config_.gpu.completion_latency_ns;
    succ.ready_at = std::max(succ.ready_at, now_ + gap);
    if (--succ.unfinished_predecessors == 0 && succ.phase == LaunchPhase::Waiting) {  // (a killed one stays)
      succ.submitted = std::max(succ.arrival, now_);
      const TimeNs at = std::max(succ.arrival + config_.gpu.launch_latency_ns, succ.ready_at);
      if (at <= now_)
        release(s);
      else
        push(at, QArrival, static_cast<std::uint32_t>(s));
    }
  }
}

TimeNs Engine::recorded_fresh_duration(LaunchState& l, std::int32_t block) const {
  const RecordSet* set = l.kernel->primary_records();
  const TimeNs* at = l.ahead_block == block ? l.ahead : recorded_duration_at(set, block, l.draw_base);
  if (!at) return recorded_duration(*l.kernel, block, l.draw_base);  // throws: no records
  const TimeNs d = *at;
  l.ahead_block = -1;
  if (block + 1 < l.total_blocks) {
    l.ahead = recorded_duration_at(set, block + 1, l.draw_base);
    l.ahead_block = block + 1;
    __builtin_prefetch(l.ahead);
  }
  return d;
}

TimeNs Engine::block_duration(const LaunchState& l, std::int32_t block, int sm, TimeNs start) const {
  if (!config_.durations) return recorded_duration(*l.kernel, block, l.draw_base);
  DurationQuery q;
  q.kernel = l.kernel;
  q.block = block;
  q.draw_base = l.draw_base;
  q.sm_resident_blocks = sms_[static_cast<std::size_t>(sm)].blocks;
  q.sm_same_kernel_blocks = l.resident_per_sm[static_cast<std::size_t>(sm)];
  q.gpu = &config_.gpu;
  q.start = start;
  if (config_.durations->needs_co_runners()) {
    // Blocks of other launches on this SM, grouped by launch (an SM holds at most a few dozen blocks).
    auto& co = co_runner_scratch_;
    std::vector<std::int32_t>& owners = co_runner_owner_scratch_;
    co.clear();
    owners.clear();
    const LaunchState* self = &l;
    for (const std::int32_t slot : sms_[static_cast<std::size_t>(sm)].residents) {
      const auto& rb = slots_[static_cast<std::size_t>(slot)];
      if (rb.launch < 0 || &launches_[static_cast<std::size_t>(rb.launch)] == self) continue;
      std::size_t i = 0;
      while (i < owners.size() && owners[i] != rb.launch) ++i;
      if (i == owners.size()) {
        owners.push_back(rb.launch);
        co.push_back({launches_[static_cast<std::size_t>(rb.launch)].kernel, 0});
      }
      ++co[i].blocks;
    }
    q.co_runners = co.data();
    q.co_runner_count = static_cast<int>(co.size());
  }
  return config_.durations->duration(q);
}

void Engine::refuse(const std::string& what) const {
  throw ActionError(fmt::format("policy '{}' at t={} ns: {}", policy_name_, now_, what));
}

// ---------------------------------------------------------------------------------------------------
// Actions

void Engine::do_dispatch(std::int32_t l, int sm, std::int64_t count) {
  if (l < 0 || l >= static_cast<std::int32_t>(launches_.size()))
    refuse(fmt::format("dispatch of unknown launch {}", l));
  if (sm < 0 || sm >= static_cast<int>(sms_.size())) refuse(fmt::format("dispatch to unknown SM {}", sm));
  auto& launch = launches_[static_cast<std::size_t>(l)];
  const auto& id = specs_[static_cast<std::size_t>(l)].id;
  if (launch.phase != LaunchPhase::Released)
    refuse(fmt::format("dispatch of launch '{}', which is {}", id,
                       launch.phase == LaunchPhase::Waiting ? "not released yet" : "finished"));
  if (count < 1) refuse(fmt::format("dispatch of {} blocks of launch '{}'", count, id));
  EngineView view(*this);
  if (!accepts(launch, sm, count)) {
    const std::int64_t room = view.room_for(l, sm);
    refuse(fmt::format(
        "dispatch of {} blocks of launch '{}' to SM {}: only {} accepted (issuable {}, resource room "
        "{}, cap {}, resident {}{}{}{})",
        count, id, sm, room, launch.issuable(), view.resource_room(l, sm), launch.residency_cap,
        launch.resident_per_sm[static_cast<std::size_t>(sm)],
        sms_[static_cast<std::size_t>(sm)].draining ? ", SM draining" : "",
        launch.gpu >= 0 && launch.gpu != sms_[static_cast<std::size_t>(sm)].gpu && !launch.any_gpu ? ", other GPU" : "",
        grid_refused(launch, sms_[static_cast<std::size_t>(sm)].gpu)
            ? fmt::format(", all {} resident grids held", grid_limit_)
            : ""));
  }
  place_blocks(l, sm, count);
}

void Engine::place_blocks(std::int32_t l, int sm, std::int64_t count) {
  auto& launch = launches_[static_cast<std::size_t>(l)];
  EngineView view(*this);
  auto& s = sms_[static_cast<std::size_t>(sm)];
  launch.gpu = s.gpu;
  if (launch.grid_gpu < 0) {  // its first block (of the launch, or of a slice): it takes one of the GPU's grids
    launch.grid_gpu = s.gpu;
    ++grids_held_[static_cast<std::size_t>(s.gpu)];
  }
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int32_t slot = alloc_slot();
    auto& b = slots_[static_cast<std::size_t>(slot)];
    const TimeNs start = dispatch_ps_ > 0 ? dispatch_start(s.gpu) : now_;
    if (launch.first_dispatch < 0) launch.first_dispatch = start;
    b.launch = l;
    b.sm = sm;
    b.state = BlockState::Running;
    b.start = start;
    ++b.generation;
    take(s, launch.footprint, +1);
    slot_position_[static_cast<std::size_t>(slot)] = static_cast<std::int32_t>(s.residents.size());
    s.residents.push_back(slot);
    ++launch.resident;
    if (over_life_) {
      if (gpu_wide_) count_kernel_on_gpu(s.gpu, launch.kernel, +1);
      if (launch.resident_per_sm[static_cast<std::size_t>(sm)] == 0) {
        ++s.launches_here;
        count_kernel_here(s, launch.kernel, +1);
      }
    }
    ++launch.resident_per_sm[static_cast<std::size_t>(sm)];
    if (!launch.suspended.empty()) {
      const SuspendedBlock sb = launch.suspended.front();
      launch.suspended.pop_front();
      b.block = sb.block;
      b.resumed = true;
      b.done_before = sb.done;
      b.total = sb.total;
      // The restore waits for the SM's channel (other saves or restores), then takes switch_time.
      const TimeNs channel = std::max(start, s.switch_channel_free) + view.switch_time(l);
      s.switch_channel_free = channel;
      b.restore = channel - start;
      b.end = start + b.restore + (b.total - b.done_before);
    } else {
      const bool fresh = launch.flushed.empty();
      if (!fresh) {
        b.block = launch.flushed.front();
        launch.flushed.pop_front();
      } else {
        b.block = static_cast<std::int32_t>(launch.next_block++);
      }
      b.resumed = false;
      b.done_before = 0;
      b.restore = 0;
      b.total = fresh && !config_.durations ? recorded_fresh_duration(launch, b.block)
                                            : block_duration(launch, b.block, sm, start);
      b.end = start + b.total;
    }
    if (over_life_) {  // at rate 1 until retime_sm below says otherwise
      const TimeNs work = b.total - b.done_before;
      life_[static_cast<std::size_t>(slot)] = LifeState{static_cast<double>(work), 1.0, start + b.restore, work};
    }
    push(b.end, QBlockEnd, static_cast<std::uint32_t>(slot), b.generation);
  }
  if (over_life_) retime_sm(sm);
}

namespace {
// The work a running piece has left at `now` (the rate has held since life.since).
template <class Life>
double left_at(const Life& life, TimeNs now) {
  return now > life.since ? std::max(0.0, life.left - static_cast<double>(now - life.since) * life.rate) : life.left;
}
}  // namespace

double Engine::life_work_done(std::int32_t slot) const {
  const LifeState& life = life_[static_cast<std::size_t>(slot)];
  return static_cast<double>(life.work) - left_at(life, now_);
}

void Engine::count_kernel_here(SmState& s, const KernelProfile* kernel, int delta) {
  auto& k = s.kernels_here;  // a few entries at most: a linear search
  auto it = std::find_if(k.begin(), k.end(), [&](const auto& e) { return e.first == kernel; });
  if (it == k.end()) it = k.insert(k.end(), {kernel, 0});
  if ((it->second += delta) == 0) {
    *it = k.back();
    k.pop_back();
  }
}

void Engine::count_kernel_on_gpu(int gpu, const KernelProfile* kernel, int delta) {
  auto& load = gpu_load_[static_cast<std::size_t>(gpu)];
  auto it = std::find_if(load.begin(), load.end(), [&](const SmGroup& e) { return e.kernel == kernel; });
  if (it == load.end()) {
    it = load.insert(load.end(), SmGroup{kernel, 0, 0});
    gpu_kernels_changed_[static_cast<std::size_t>(gpu)] = 1;
  }
  if ((it->blocks += delta) == 0) {
    *it = load.back();
    load.pop_back();
    gpu_kernels_changed_[static_cast<std::size_t>(gpu)] = 1;
  }
}

void Engine::retime_sm(int sm) {
  // A GPU-wide model's rates change everywhere when a kernel comes to the GPU or leaves it: every SM of the GPU is
  // re-timed then. A change in a kernel's count alone reaches other SMs at their own next change.
  if (gpu_wide_) {
    const int gpu = sms_[static_cast<std::size_t>(sm)].gpu;
    if (gpu_kernels_changed_[static_cast<std::size_t>(gpu)]) {
      gpu_kernels_changed_[static_cast<std::size_t>(gpu)] = 0;
      const int per_gpu = config_.gpu.sm_count;
      for (int i = gpu * per_gpu; i < (gpu + 1) * per_gpu; ++i) retime_one_sm(i);
      return;
    }
  }
  retime_one_sm(sm);
}

void Engine::retime_one_sm(int sm) {
  auto& s = sms_[static_cast<std::size_t>(sm)];
  // All at rate 1 and nothing that can change it: one launch (lone_launch_at_rate_one), or launches of one kernel
  // only (one_kernel_at_rate_one).
  if (!s.rated && ((lone_at_one_ && s.launches_here <= 1) || (one_kernel_at_one_ && s.kernels_here.size() <= 1)))
    return;
  auto& groups = group_scratch_;
  auto& owners = group_launch_scratch_;
  groups.clear();
  owners.clear();
  for (const std::int32_t slot : s.residents) {
    const auto& b = slots_[static_cast<std::size_t>(slot)];
    if (b.state != BlockState::Running) continue;
    std::size_t i = 0;
    while (i < owners.size() && owners[i] != b.launch) ++i;
    if (i == owners.size()) {
      const auto& launch = launches_[static_cast<std::size_t>(b.launch)];
      owners.push_back(b.launch);
      groups.push_back(SmGroup{launch.kernel, 0, launch.first_dispatch});
    }
    ++groups[i].blocks;
  }
  if (groups.empty()) {
    s.rated = false;
    return;
  }
  // Oldest first (first dispatch, then launch index): an SM holds few launches at once, so insertion sort.
  for (std::size_t i = 1; i < groups.size(); ++i)
    for (std::size_t j = i; j > 0; --j) {
      const bool older = groups[j].first_dispatch < groups[j - 1].first_dispatch ||
                         (groups[j].first_dispatch == groups[j - 1].first_dispatch && owners[j] < owners[j - 1]);
      if (!older) break;
      std::swap(groups[j], groups[j - 1]);
      std::swap(owners[j], owners[j - 1]);
    }
  rate_scratch_.assign(groups.size(), 1.0);
  if (gpu_wide_)
    config_.durations->group_rates_on_gpu(config_.gpu, groups, gpu_load_[static_cast<std::size_t>(s.gpu)],
                                          config_.gpu.sm_count, rate_scratch_);
  else
    config_.durations->group_rates(config_.gpu, groups, rate_scratch_);
  s.rated = false;
  for (const std::int32_t slot : s.residents) {
    auto& b = slots_[static_cast<std::size_t>(slot)];
    if (b.state != BlockState::Running) continue;
    std::size_t i = 0;
    while (owners[i] != b.launch) ++i;
    const double rate = std::clamp(rate_scratch_[i], 1e-3, 1e3);
    if (rate != 1.0) s.rated = true;
    LifeState& life = life_[static_cast<std::size_t>(slot)];
    if (now_ > life.since) {
      life.left = left_at(life, now_);
      life.since = now_;
    }
    life.rate = rate;
    const TimeNs end = life.since + static_cast<TimeNs>(std::ceil(life.left / rate - 1e-9));
    if (end == b.end) continue;
    b.end = end;
    ++b.generation;
    push(end, QBlockEnd, static_cast<std::uint32_t>(slot), b.generation);
  }
}

// The same rules as EngineView::room_for, as comparisons only: every dispatch is checked, so this is hot.
bool Engine::accepts(const LaunchState& launch, int sm, std::int64_t count) const {
  const auto& s = sms_[static_cast<std::size_t>(sm)];
  if (launch.phase != LaunchPhase::Released || s.draining || launch.issuable() < count) return false;
  if (!launch.allowed_sms.empty() && !launch.allowed_sms[static_cast<std::size_t>(sm)]) return false;
  if (launch.gpu >= 0 && launch.gpu != s.gpu && !launch.any_gpu) return false;
  if (grid_refused(launch, s.gpu)) return false;
  const std::int64_t here = launch.resident_per_sm[static_cast<std::size_t>(sm)] + count;
  if (here > launch.residency_cap || here > launch.residency) return false;
  const auto& f = launch.footprint;
  const auto& g = config_.gpu;
  const auto n = static_cast<int>(count);
  return s.blocks + n <= g.max_blocks_per_sm && s.threads + n * f.threads <= g.max_threads_per_sm &&
         s.warps + n * f.warps <= g.max_warps_per_sm && s.registers + n * f.registers <= g.registers_per_sm &&
         s.shared_memory + n * f.shared_memory <= g.shared_memory_per_sm;
}

void Engine::do_flush(std::int32_t slot) {
  if (slot < 0 || slot >= static_cast<std::int32_t>(slots_.size()) ||
      slots_[static_cast<std::size_t>(slot)].state != BlockState::Running)
    refuse(fmt::format("flush of block slot {}, which is not running", slot));
  auto& b = slots_[static_cast<std::size_t>(slot)];
  auto& launch = launches_[static_cast<std::size_t>(b.launch)];
  const double until = launch.kernel->idempotent_until;
  if (!launch.kernel->stoppable)
    refuse(fmt::format("flush of block {} of launch '{}', whose kernel cannot be stopped (stoppable = false)", b.block,
                       specs_[static_cast<std::size_t>(b.launch)].id));
  EngineView view(*this);
  const double progress = view.progress(slot);
  if (until < 1.0 && progress >= until)
    refuse(fmt::format("flush of block {} of launch '{}' at {:.3f} of its work, past its idempotence point {:.3f}",
                       b.block, specs_[static_cast<std::size_t>(b.launch)].id, progress, until));
  // A flushed block restarts from scratch: this piece and any work it resumed from are lost.
  stats_.wasted_work += std::max<TimeNs>(0, now_ - b.start) + b.done_before;
  ++stats_.preemptions;
  launch.flushed.push_back(b.block);
  finish_block(slot, PieceOutcome::Flushed, now_);
}

void Engine::do_switch(std::int32_t slot) {
  if (slot < 0 || slot >= static_cast<std::int32_t>(slots_.size()) ||
      slots_[static_cast<std::size_t>(slot)].state != BlockState::Running)
    refuse(fmt::format("context switch of block slot {}, which is not running", slot));
  auto& b = slots_[static_cast<std::size_t>(slot)];
  if (!launches_[static_cast<std::size_t>(b.launch)].kernel->stoppable)
    refuse(fmt::format("context switch of block {} of launch '{}', whose kernel cannot be stopped (stoppable = false)",
                       b.block, specs_[static_cast<std::size_t>(b.launch)].id));
  EngineView view(*this);
  const TimeNs worked = over_life_ ? static_cast<TimeNs>(std::llround(life_work_done(slot)))
                                   : std::max<TimeNs>(0, now_ - b.start - b.restore);
  b.done_before = std::min(b.total, b.done_before + worked);
  b.state = BlockState::Saving;
  b.restore = now_;  // remembered as the request time for the latency statistic
  auto& channel = sms_[static_cast<std::size_t>(b.sm)].switch_channel_free;
  b.end = std::max(now_, channel) + view.switch_time(b.launch);
  channel = b.end;
  ++stats_.preemptions;
  push(b.end, QSaved, static_cast<std::uint32_t>(slot), b.generation);
  if (over_life_) retime_sm(b.sm);  // it no longer runs: the others' rates change
}

void Engine::do_kill(std::int32_t l) {
  if (l < 0 || l >= static_cast<std::int32_t>(launches_.size())) refuse(fmt::format("kill of unknown launch {}", l));
  auto& launch = launches_[static_cast<std::size_t>(l)];
  if (launch.phase == LaunchPhase::Finished)
    refuse(fmt::format("kill of launch '{}', which has finished", specs_[static_cast<std::size_t>(l)].id));
  if (launch.resident > 0) {
    std::vector<std::int32_t> mine;
    for (std::size_t sm = 0; sm < sms_.size(); ++sm) {
      if (launch.resident_per_sm[sm] == 0) continue;
      for (const std::int32_t slot : sms_[sm].residents)
        if (slots_[static_cast<std::size_t>(slot)].launch == l) mine.push_back(slot);
    }
    for (const std::int32_t slot : mine) {
      const auto& b = slots_[static_cast<std::size_t>(slot)];
      stats_.wasted_work += std::max<TimeNs>(0, now_ - b.start) + b.done_before;
      finish_block(slot, PieceOutcome::Killed, now_);
    }
  }
  launch.flushed.clear();
  launch.suspended.clear();
  launch.next_block = launch.dispatch_limit = launch.total_blocks;
  launch.killed = true;
  ++stats_.killed_launches;
  finish_launch(l);
}

void Engine::do_set_phase(std::int32_t l, int gpu, std::optional<PhaseState> state) {
  if (l < 0 || l >= static_cast<std::int32_t>(launches_.size())) refuse(fmt::format("phase of unknown launch {}", l));
  if (gpu < -1 || gpu >= config_.gpu_count) refuse(fmt::format("phase of launch {} on unknown GPU {}", l, gpu));
  for (std::size_t i = 0; i < open_phases_.size(); ++i) {
    auto& o = open_phases_[i];
    if (o.launch != l || o.gpu != gpu) continue;
    if (state && *state == o.state) return;
    if (now_ > o.since)
      for (auto* obs : observers_) obs->on_phase(PhaseSpan{o.since, now_, l, static_cast<std::int16_t>(gpu), o.state});
    open_phases_.erase(open_phases_.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  if (state) open_phases_.push_back(OpenPhase{l, gpu, *state, now_});
}

void Engine::close_phases() {
  for (const auto& o : open_phases_)
    if (now_ > o.since)
      for (auto* obs : observers_)
        obs->on_phase(PhaseSpan{o.since, now_, o.launch, static_cast<std::int16_t>(o.gpu), o.state});
  open_phases_.clear();
}

// ---------------------------------------------------------------------------------------------------
// EngineView

TimeNs EngineView::switch_time(std::int32_t l) const {
  const auto& g = e_.config_.gpu;
  const double per_sm = e_.config_.costs.switch_bandwidth_gbps_per_sm > 0
                            ? e_.config_.costs.switch_bandwidth_gbps_per_sm
                            : g.dram_bandwidth_gbps / g.sm_count;  // GB/s == bytes per ns
  const auto bytes = static_cast<double>(e_.launches_[static_cast<std::size_t>(l)].kernel->context_bytes_per_block);
  return static_cast<TimeNs>(std::llround(bytes / per_sm));
}

double EngineView::progress(std::int32_t slot) const {
  const auto& b = e_.slots_[static_cast<std::size_t>(slot)];
  if (b.total <= 0) return 1.0;
  TimeNs worked = 0;
  if (b.state == BlockState::Running)
    worked = e_.over_life_ ? static_cast<TimeNs>(std::llround(e_.life_work_done(slot)))
                           : std::max<TimeNs>(0, e_.now_ - b.start - b.restore);
  return static_cast<double>(std::min(b.total, b.done_before + worked)) / static_cast<double>(b.total);
}

// ---------------------------------------------------------------------------------------------------
// Actions

void Actions::dispatch(std::int32_t l, int sm, std::int64_t count) {
  e_.do_dispatch(l, sm, count);
}

std::int64_t Actions::fill(std::int32_t l, int sm, std::int64_t max_count) {
  if (l < 0 || l >= static_cast<std::int32_t>(e_.launches_.size()))
    e_.refuse(fmt::format("fill of unknown launch {}", l));
  if (sm < 0 || sm >= static_cast<int>(e_.sms_.size())) e_.refuse(fmt::format("fill of unknown SM {}", sm));
  const std::int64_t n = std::min(EngineView(e_).room_for(l, sm), max_count);
  if (n > 0) e_.place_blocks(l, sm, n);
  return std::max<std::int64_t>(n, 0);
}

void Actions::set_residency_cap(std::int32_t l, int blocks_per_sm) {
  if (blocks_per_sm < 0) e_.refuse(fmt::format("residency cap {} for launch {}", blocks_per_sm, l));
  e_.launches_.at(static_cast<std::size_t>(l)).residency_cap = blocks_per_sm;
}

void Actions::restrict_to_sms(std::int32_t l, const std::vector<int>& sms) {
  auto& launch = e_.launches_.at(static_cast<std::size_t>(l));
  launch.allowed_sms.assign(e_.sms_.size(), 0);
  for (int sm : sms) {
    if (sm < 0 || sm >= static_cast<int>(e_.sms_.size())) e_.refuse(fmt::format("restriction to unknown SM {}", sm));
    launch.allowed_sms[static_cast<std::size_t>(sm)] = 1;
  }
}

void Actions::allow_all_sms(std::int32_t l) {
  e_.launches_.at(static_cast<std::size_t>(l)).allowed_sms.clear();
}

void Actions::set_slice_end(std::int32_t l, std::int64_t end) {
  auto& launch = e_.launches_.at(static_cast<std::size_t>(l));
  if (end < launch.next_block || end > launch.total_blocks)
    e_.refuse(
        fmt::format("slice end {} for launch {} outside [{}, {}]", end, l, launch.next_block, launch.total_blocks));
  launch.dispatch_limit = end;
  e_.release_idle_grid(launch);
}

void Actions::drain_sm(int sm) {
  if (sm < 0 || sm >= static_cast<int>(e_.sms_.size())) e_.refuse(fmt::format("drain of unknown SM {}", sm));
  auto& s = e_.sms_[static_cast<std::size_t>(sm)];
  if (s.draining) return;
  s.draining = true;
  e_.drain_requested_[static_cast<std::size_t>(sm)] = e_.now_;
  ++e_.stats_.preemptions;
  e_.check_drained(sm);
}

void Actions::undrain_sm(int sm) {
  if (sm < 0 || sm >= static_cast<int>(e_.sms_.size())) e_.refuse(fmt::format("undrain of unknown SM {}", sm));
  e_.sms_[static_cast<std::size_t>(sm)].draining = false;
  e_.drain_requested_[static_cast<std::size_t>(sm)] = -1;
}

void Actions::flush(std::int32_t slot) {
  e_.do_flush(slot);
}
void Actions::context_switch(std::int32_t slot) {
  e_.do_switch(slot);
}
void Actions::kill(std::int32_t l) {
  e_.do_kill(l);
}
void Actions::set_phase(std::int32_t l, int gpu, std::optional<PhaseState> state) {
  e_.do_set_phase(l, gpu, state);
}
void Actions::allow_any_gpu(std::int32_t l) {
  if (l < 0 || l >= static_cast<std::int32_t>(e_.launches_.size()))
    e_.refuse(fmt::format("allow_any_gpu of unknown launch {}", l));
  e_.launches_[static_cast<std::size_t>(l)].any_gpu = true;
}

void Actions::set_timer(TimeNs at, std::int64_t tag) {
  if (at < e_.now_) e_.refuse(fmt::format("timer at t={} ns, in the past", at));
  e_.timer_tags_.push_back(tag);
  e_.push(at, Engine::QTimer, static_cast<std::uint32_t>(e_.timer_tags_.size() - 1));
}

}  // namespace gpusched::sim
