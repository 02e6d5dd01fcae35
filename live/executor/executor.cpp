#include "live/executor/executor.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "live/cuda_check.h"
#include "live/executor/device_alloc.h"
#include "live/executor/entry_rows.h"
#include "live/executor/green_cover.h"

namespace gpusched::live {

void exit_hung(const std::string& what, double timeout_s) {
  std::fprintf(stderr, "gpusched-live: error: %s did not finish within %g s (time limit: --timeout)\n", what.c_str(),
               timeout_s);
  std::fflush(stderr);
  std::_Exit(1);
}

std::optional<BlockPiece> executed_piece(const ExecRecord& r, std::uint64_t origin_ns, std::int32_t launch,
                                         std::int32_t block, const std::string& launch_id, std::size_t entry) {
  const auto outcome = static_cast<ExecOutcome>(r.outcome);
  if (outcome == ExecOutcome::Skipped) return std::nullopt;
  if (outcome == ExecOutcome::None || r.end_ns < r.start_ns || r.start_ns < origin_ns)
    throw LiveError(
        fmt::format("launch '{}': entry {} (block {}) has no record after the execution", launch_id, entry, block));
  BlockPiece p;
  p.start = static_cast<TimeNs>(r.start_ns - origin_ns);
  p.end = static_cast<TimeNs>(r.end_ns - origin_ns);
  p.launch = launch;
  p.block = block;
  p.gpu = 0;
  p.sm = static_cast<std::int16_t>(r.smid);
  p.outcome = executed_outcome(outcome);
  return p;
}

void set_executed_pieces(ExecutionResult& result, std::vector<std::pair<BlockPiece, std::size_t>> executed) {
  std::sort(executed.begin(), executed.end(), [](const auto& x, const auto& y) {
    const BlockPiece &a = x.first, &b = y.first;
    return std::tie(a.end, a.sm, a.launch, a.block) < std::tie(b.end, b.sm, b.launch, b.block);
  });
  for (const auto& [p, planned] : executed) {
    result.schedule.pieces.push_back(p);
    result.plan_piece.push_back(planned);
  }
}

DeviceQueues::DeviceQueues(const LaunchQueues& q, std::int64_t blocks, int threads, int values_per_thread,
                           bool save_space, std::int32_t* shared_next, std::int32_t* shared_workers) {
  entries_ = q.entries.size();
  const auto sms = q.sm_quota.size();
  view_.entries = device_copy(q.entries, allocations_);
  view_.sm_begin = device_copy(q.sm_begin, allocations_);
  view_.sm_quota = device_copy(q.sm_quota, allocations_);
  view_.sm_next = shared_next ? shared_next : device_zeros<std::int32_t>(sms, allocations_);
  view_.sm_workers = shared_workers ? shared_workers : device_zeros<std::int32_t>(sms, allocations_);
  view_.records = device_zeros<ExecRecord>(entries_, allocations_);
  view_.block_state = device_zeros<std::int32_t>(static_cast<std::size_t>(blocks), allocations_);
  view_.saved_step = device_zeros<std::int32_t>(static_cast<std::size_t>(blocks), allocations_);
  view_.values_per_thread = std::max(0, values_per_thread);
  if ((q.switches || save_space) && values_per_thread > 0)
    view_.saved_values = device_zeros<float>(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(threads) *
                                                 static_cast<std::size_t>(values_per_thread),
                                             allocations_);
  view_.threads = threads;
  view_.claims = q.stops || save_space;
  view_.gated = std::any_of(q.entries.begin(), q.entries.end(), [](const ExecEntry& e) { return e.gate_launch >= 0; });
  view_.sm_count = static_cast<std::int32_t>(sms);
}

void DeviceQueues::place_by_hardware(const LaunchQueues& q) {
  if (q.start_order.size() != entries_) throw LiveError("place_by_hardware: the start order does not cover the queues");
  start_order_ = q.start_order;
  std::vector<std::int32_t> blocks(entries_);
  bool block_order = true;
  for (std::size_t w = 0; w < entries_; ++w) {
    blocks[w] = q.entries[static_cast<std::size_t>(q.start_order[w])].block;
    block_order &= blocks[w] == static_cast<std::int32_t>(w);
  }
  view_.hardware_placed = 1;
  view_.start_block = block_order ? nullptr : device_copy(blocks, allocations_);
}

DeviceQueues::~DeviceQueues() {
  for (void* p : allocations_) cudaFree(p);
}

std::vector<ExecRecord> DeviceQueues::records() const {
  std::vector<ExecRecord> out(entries_);
  if (entries_)
    GPUSCHED_CUDA(cudaMemcpy(out.data(), view_.records, entries_ * sizeof(ExecRecord), cudaMemcpyDeviceToHost));
  if (start_order_.empty()) return out;
  std::vector<ExecRecord> by_entry(entries_);  // placed by the hardware: records are in start order
  for (std::size_t w = 0; w < entries_; ++w) by_entry[static_cast<std::size_t>(start_order_[w])] = out[w];
  return by_entry;
}

ExecutionResult execute_plan(const ExecutionPlan& plan, const std::vector<ExecLaunch>& launches,
                             const ExecutorOptions& options) {
  const std::size_t n = launches.size();
  if (plan.launches.size() != n) throw LiveError("execute_plan: the plan and the launches differ in number");
  ExecutionResult result;
  result.grids.assign(n, 0);
  result.workers_per_sm.assign(n, 0);
  result.green_sms.assign(n, 0);
  const int sm_count = plan.sm_count;
  const std::size_t sms = static_cast<std::size_t>(sm_count);

  struct Live {
    std::unique_ptr<DeviceQueues> queues;
    std::vector<cudaStream_t> streams;
    std::vector<cudaEvent_t> done;  // per stream: its last grid ended
    std::vector<bool> busy;
    enum { Waiting, Running, Finished } state = Waiting;
    int workers = 0;
    int grid_sms = 0;              // SMs a grid's workers may land on: the GPU's, or its green context's
    int grid_workers = 0;          // worker blocks per grid
    bool hardware_placed = false;  // one grid, one worker per entry, no queues
    TimeNs last_grid = -1;
  };
  std::vector<Live> live(n);
  // Every launch's next-entry counters, then every launch's live-worker counters, per SM: one allocation on the
  // GPU (gates read them) and its pinned mirror on the host.
  std::vector<void*> owned;
  auto* counters = device_zeros<std::int32_t>(2 * n * sms, owned);
  std::int32_t* mirror = nullptr;
  cudaStream_t copier = nullptr;
  cudaEvent_t copied = nullptr;
  struct Cleanup {
    std::vector<Live>& l;
    std::vector<void*>& owned;
    std::int32_t*& mirror;
    cudaStream_t& copier;
    cudaEvent_t& copied;
    ~Cleanup() {
      for (auto& x : l) {
        for (auto e : x.done) cudaEventDestroy(e);
        for (auto st : x.streams) cudaStreamDestroy(st);
        x.queues.reset();
      }
      if (copied) cudaEventDestroy(copied);
      if (copier) cudaStreamDestroy(copier);
      if (mirror) cudaFreeHost(mirror);
      for (void* p : owned) cudaFree(p);
    }
  } cleanup{live, owned, mirror, copier, copied};
  GPUSCHED_CUDA(cudaMallocHost(&mirror, 2 * n * sms * sizeof(std::int32_t)));
  std::fill(mirror, mirror + 2 * n * sms, 0);
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&copier, cudaStreamNonBlocking));
  GPUSCHED_CUDA(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
  auto next_of = [&](std::size_t l) { return mirror + l * sms; };
  auto workers_of = [&](std::size_t l) { return mirror + (n + l) * sms; };

  for (std::size_t i = 0; i < n; ++i) {
    auto& x = live[i];
    const auto& l = launches[i];
    const bool stops = plan.launches[i].stops;
    x.queues =
        std::make_unique<DeviceQueues>(plan.launches[i], l.blocks, l.threads, l.kernel->switch_values_per_thread(),
                                       false, counters + i * sms, counters + (n + i) * sms);
    x.queues->view().all_next = counters;
    x.queues->view().all_workers = counters + n * sms;
    x.queues->view().entries_per_worker = std::max(0, options.entries_per_worker);
    // A launch with the GPU to itself, filled to the hardware's residency: one grid of one worker per entry, placed by
    // the hardware (plan.h); it needs one stream and no green context.
    const int placed_residency = l.kernel->hardware_placed_occupancy(l.threads, 0);
    x.hardware_placed = options.hardware_placement && hardware_placed(plan.launches[i], placed_residency);
    // A launch the plan keeps to part of the GPU: its grids go to a green context of the groups holding its SMs
    // (made before the execution starts: creating one takes about 2 ms).
    const GreenContext* green = nullptr;
    if (options.green && !x.hardware_placed) {
      const auto groups = covering_groups(options.green->group_sms(), planned_sms(plan.launches[i]));
      if (!groups.empty()) green = &options.green->context(groups);
    }
    x.grid_sms = green ? static_cast<int>(green->sms.size()) : sm_count;
    result.green_sms[i] = green ? x.grid_sms : 0;
    for (int s = 0; s < (x.hardware_placed ? 1 : std::max(1, options.streams_per_launch)); ++s) {
      cudaStream_t st;
      if (green)
        st = options.green->create_stream(*green);
      else
        GPUSCHED_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
      x.streams.push_back(st);
      cudaEvent_t e;
      GPUSCHED_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      x.done.push_back(e);
      x.busy.push_back(false);
    }
    if (x.hardware_placed) {
      x.queues->place_by_hardware(plan.launches[i]);
      x.workers = result.workers_per_sm[i] = placed_residency;
      x.grid_workers = static_cast<int>(x.queues->entries());
      result.notes.push_back(fmt::format(
          "launch '{}' has the GPU to itself in the plan: the hardware placed its blocks, in the plan's start order "
          "(--plan-placement keeps them on the plan's SMs)",
          l.id));
      continue;
    }
    x.workers = l.kernel->executor_occupancy(l.threads, 0, stops);
    if (x.workers < 1) throw LiveError(fmt::format("launch '{}': the executor's worker kernel cannot run", l.id));
    result.workers_per_sm[i] = x.workers;
    x.grid_workers = worker_grid_blocks(x.workers, x.grid_sms, x.queues->entries(), options.entries_per_worker);

    if (stops && l.kernel->switch_values_per_thread() < 0)
      result.notes.push_back(fmt::format(
          "kernel {} has no safe point: where a plan flushes, switches out or kills its blocks, they run to their end",
          l.kernel->name()));
  }
  GPUSCHED_CUDA(cudaDeviceSynchronize());
  bool fault_pending = !options.inject_fault.empty();
  if (fault_pending) check_fault_kind(options.inject_fault);

  // Starts a grid on a free stream of the launch; false when all are busy.
  auto start_grid = [&](std::size_t i, TimeNs now) {
    auto& x = live[i];
    for (std::size_t s = 0; s < x.streams.size(); ++s) {
      if (x.busy[s]) continue;
      // Tests of the error paths: a kernel that hangs or faults ahead of the execution's first grid, on its stream
      // (kept out of the worker kernel, whose registers it would raise).
      if (fault_pending) launch_fault_kernel(options.inject_fault, x.streams[s]);
      fault_pending = false;
      launches[i].kernel->execute(x.queues->view(), x.grid_workers, 0, x.streams[s]);
      GPUSCHED_CUDA(cudaEventRecord(x.done[s], x.streams[s]));
      x.busy[s] = true;
      x.last_grid = now;
      ++result.grids[i];
      x.state = Live::Running;
      return true;
    }
    return false;
  };
  // Entries left on an SM whose next one can be taken now (its gate is open) and no live worker of the launch there.
  auto needs_grid = [&](std::size_t i) {
    const auto& lq = plan.launches[i];
    const std::int32_t* next = next_of(i);
    const std::int32_t* workers = workers_of(i);
    for (std::size_t s = 0; s < sms; ++s) {
      const std::int32_t count = lq.sm_begin[s + 1] - lq.sm_begin[s];
      if (next[s] >= count || workers[s] > 0) continue;
      const auto& e = lq.entries[static_cast<std::size_t>(lq.sm_begin[s] + next[s])];
      if (e.gate_launch < 0 || next_of(static_cast<std::size_t>(e.gate_launch))[s] > e.gate_entry) return true;
    }
    return false;
  };
  auto all_taken = [&](std::size_t i) {
    const auto& lq = plan.launches[i];
    const std::int32_t* next = next_of(i);
    for (std::size_t s = 0; s < sms; ++s)
      if (next[s] < lq.sm_begin[s + 1] - lq.sm_begin[s]) return false;
    return true;
  };

  // The origin on both clocks: the host's just before a %globaltimer stamp is queued, and the stamp, read back after
  // the execution. A grid the host launches a time d after t0 starts about d after the stamp (both launches pay the
  // same latency), and the first launch is released right behind the stamp: taking the host's time after the stamp
  // had been copied back put every release about 40 us late on the GPU clock.
  auto* origin_stamp = device_zeros<std::uint64_t>(1, owned);
  GPUSCHED_CUDA(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  stamp_gpu_clock_async(origin_stamp, copier);
  auto now_ns = [&] {
    return static_cast<TimeNs>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  };
  std::size_t finished = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (plan.launches[i].entries.empty()) {  // nothing planned (killed before it started)
      live[i].state = Live::Finished;
      ++finished;
    }
  const auto limit_ns = static_cast<TimeNs>(options.timeout_s * 1e9);
  bool copy_in_flight = false, fresh_copy = false;
  while (finished < n) {
    const TimeNs now = now_ns();
    if (now > limit_ns) exit_hung("the execution", options.timeout_s);
    // The counters, copied back continuously: a copy is read once it has landed, and the next one started.
    if (copy_in_flight) {
      const cudaError_t q = cudaEventQuery(copied);
      if (q == cudaSuccess) {
        copy_in_flight = false;
        fresh_copy = true;
      } else if (q != cudaErrorNotReady) {
        cuda_fail(q, "cudaEventQuery", __FILE__, __LINE__);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      auto& x = live[i];
      if (x.state == Live::Finished) continue;
      for (std::size_t s = 0; s < x.streams.size(); ++s) {
        if (!x.busy[s]) continue;
        const cudaError_t q = cudaEventQuery(x.done[s]);
        if (q == cudaSuccess)
          x.busy[s] = false;
        else if (q != cudaErrorNotReady)
          cuda_fail(q, "cudaEventQuery", __FILE__, __LINE__);
      }
      if (x.state == Live::Waiting) {
        if (launches[i].arrival > now) continue;
        bool ready = true;
        for (const std::size_t p : launches[i].predecessors) ready &= live[p].state == Live::Finished;
        if (ready) start_grid(i, now);
        continue;
      }
      const bool idle = std::none_of(x.busy.begin(), x.busy.end(), [](bool b) { return b; });
      if (x.hardware_placed) {  // its one grid ran every entry
        if (idle) {
          x.state = Live::Finished;
          ++finished;
        }
        continue;
      }
      if (!fresh_copy) continue;
      if (all_taken(i)) {
        if (idle) {  // every entry taken and every grid ended: its pieces have all ended
          x.state = Live::Finished;
          ++finished;
        }
      } else if (needs_grid(i) && now - x.last_grid >= options.regrid_wait_ns) {
        start_grid(i, now);
      }
    }
    if (fresh_copy) fresh_copy = false;
    if (!copy_in_flight) {
      GPUSCHED_CUDA(
          cudaMemcpyAsync(mirror, counters, 2 * n * sms * sizeof(std::int32_t), cudaMemcpyDeviceToHost, copier));
      GPUSCHED_CUDA(cudaEventRecord(copied, copier));
      copy_in_flight = true;
    }
  }
  result.wall_ns = now_ns();
  GPUSCHED_CUDA(cudaDeviceSynchronize());
  std::uint64_t origin = 0;
  GPUSCHED_CUDA(cudaMemcpy(&origin, origin_stamp, sizeof origin, cudaMemcpyDeviceToHost));

  std::vector<std::pair<BlockPiece, std::size_t>> executed;  // with the plan's piece it carried out
  for (std::size_t i = 0; i < n; ++i) {
    const auto records = live[i].queues->records();
    const auto& lq = plan.launches[i];
    for (std::size_t e = 0; e < records.size(); ++e) {
      const auto piece =
          executed_piece(records[e], origin, static_cast<std::int32_t>(i), lq.entries[e].block, launches[i].id, e);
      if (!piece) {
        ++result.skipped;
        continue;
      }
      executed.emplace_back(*piece, lq.plan_piece[e]);
    }
  }
  set_executed_pieces(result, std::move(executed));
  return result;
}

}  // namespace gpusched::live
