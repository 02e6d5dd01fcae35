#include "live/timing/native_run.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <stdexcept>

#include "live/cuda_check.h"
#include "live/suite_binding.h"
#include "live/timing/timing_probe.h"

namespace gpusched::live {

NativeExecution run_native(const Workload& w, const std::vector<NativeLaunch>& launches,
                           const NativeRunOptions& options) {
  const double timeout_s = options.timeout_s;
  const std::vector<int>& priorities = options.priorities;
  const std::size_t n = w.launches.size();
  if (!options.parts.empty() && options.parts.size() != n) throw LiveError("native run: one list of parts per launch");
  if (!options.parts.empty() && !options.samples.empty())
    throw LiveError("native run: a launch's samples and its parts cannot go together");
  const auto partitioned = [&](std::size_t i) { return !options.parts.empty() && !options.parts[i].empty(); };
  // A launch whose parts run pieces (entries of the caller's queues), not blocks.
  const auto in_pieces = [&](std::size_t i) { return partitioned(i) && options.parts[i].front().pieces != nullptr; };
  for (std::size_t i = 0; i < n; ++i) {
    if (!partitioned(i)) continue;
    int next = 0;
    for (const auto& part : options.parts[i]) {
      if (!part.stream || part.first != next || part.blocks < 1 || (part.pieces != nullptr) != in_pieces(i))
        throw LiveError(fmt::format(
            "native run: the parts of launch '{}' are not its blocks in order, each on a stream", w.launches[i].id));
      next += part.blocks;
    }
    if (!in_pieces(i) && next != launches[i].shape.blocks)
      throw LiveError(fmt::format("native run: the parts of launch '{}' hold {} blocks, not its {}", w.launches[i].id,
                                  next, launches[i].shape.blocks));
  }
  // A launch can be issued once its arrival has come and every launch it waits on has been issued (an `after`
  // may name a later launch): the host issues in that order. A part is issued at its own time but not before its
  // launch; a launch waits for its predecessors' last parts (their done events are recorded there).
  std::vector<TimeNs> issue_at(n, 0), last_issue(n, 0);
  std::vector<std::size_t> rank(n, 0);
  {
    std::size_t r = 0;
    for (const std::size_t i : w.dag.release_order()) {
      rank[i] = r++;
      issue_at[i] = w.launches[i].arrival;
      for (const std::size_t p : w.dag.predecessors(i)) issue_at[i] = std::max(issue_at[i], last_issue[p]);
      last_issue[i] = issue_at[i];
      if (partitioned(i))
        for (const auto& part : options.parts[i]) last_issue[i] = std::max(last_issue[i], part.issue_at);
    }
  }
  // What the host issues, in time order: a launch (all of it, or its samples and the rest), or one of its parts.
  struct Item {
    TimeNs at;
    std::size_t launch;
    int part;  // -1: the whole launch
  };
  std::vector<Item> order;
  for (std::size_t i = 0; i < n; ++i) {
    if (!partitioned(i)) {
      order.push_back({issue_at[i], i, -1});
      continue;
    }
    for (std::size_t j = 0; j < options.parts[i].size(); ++j)
      order.push_back({std::max(issue_at[i], options.parts[i][j].issue_at), i, static_cast<int>(j)});
  }
  std::stable_sort(order.begin(), order.end(), [&](const Item& a, const Item& b) {
    if (a.at != b.at) return a.at < b.at;
    if (a.launch != b.launch) return rank[a.launch] < rank[b.launch];
    return a.part < b.part;
  });

  std::vector<DeviceBlockRecord*> records(n, nullptr);
  std::vector<cudaStream_t> stream_of(n, nullptr);
  std::vector<cudaEvent_t> done(n, nullptr);
  // A launch in parts that another launch waits for (a stream successor or an explicit dependant) counts its blocks
  // (or pieces) as they end in device memory, `done_count[i]`, and the waiting launch's streams wait for the count to
  // reach `done_target[i]` (cuStreamWaitValue32). No event is recorded behind a part: one held up every later part the
  // runtime had put on the same hardware queue until that part ended, so a plan of many parts ran a few dozen of them
  // at a time (chimera's bursts-h100 plan: first blocks 2.2 ms late; docs/validation.md, "Events behind parts").
  std::vector<char> awaited(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (const std::size_t p : w.dag.predecessors(i)) awaited[p] = 1;
  std::vector<std::uint32_t*> done_count(n, nullptr);
  std::vector<std::uint32_t> done_target(n, 0);
  // Planned samples: the first blocks alone on their stream, their own records, an event the rest waits on. With a
  // second sample stream, block 0 alone on the first (the event follows it: the plan's prediction is the first
  // sample block's end) and blocks 1..k-1 on the second.
  std::vector<cudaStream_t> sample_stream(n, nullptr), others_stream(n, nullptr);
  std::vector<int> sample_blocks(n, 0);
  std::vector<DeviceBlockRecord*> sample_record(n, nullptr), others_record(n, nullptr);
  std::vector<cudaEvent_t> sampled(n, nullptr), others_done(n, nullptr);
  if (!options.samples.empty() && options.samples.size() != n)
    throw LiveError("native run: one sample (or none) per launch");
  for (std::size_t i = 0; i < options.samples.size(); ++i) {
    const auto& x = options.samples[i];
    if (!x.stream || x.blocks < 1 || x.blocks >= launches[i].shape.blocks) continue;
    sample_stream[i] = static_cast<cudaStream_t>(x.stream);
    sample_blocks[i] = x.blocks;
    if (x.others && x.blocks > 1) others_stream[i] = static_cast<cudaStream_t>(x.others);
  }
  // Blocks [first, first + count) of launch i, with their records at `rec`, on `stream`.
  struct Part {
    int first, count;
    DeviceBlockRecord* rec;
    cudaStream_t stream;
  };
  std::vector<std::vector<DeviceBlockRecord*>> part_record(n);
  auto parts = [&](std::size_t i) {
    std::vector<Part> out;
    if (partitioned(i)) {
      for (std::size_t j = 0; j < options.parts[i].size(); ++j) {
        const auto& part = options.parts[i][j];
        out.push_back({part.first, part.blocks, part_record[i][j], static_cast<cudaStream_t>(part.stream)});
      }
      return out;
    }
    const int blocks = launches[i].shape.blocks;
    const int k = sample_blocks[i];
    if (others_stream[i]) {
      out.push_back({0, 1, sample_record[i], sample_stream[i]});
      out.push_back({1, k - 1, others_record[i], others_stream[i]});
    } else if (sample_stream[i]) {
      out.push_back({0, k, sample_record[i], sample_stream[i]});
    }
    out.push_back({k, blocks - k, records[i], stream_of[i]});
    return out;
  };
  std::map<std::string, cudaStream_t> streams;
  std::vector<cudaStream_t> owned;
  std::uint32_t* gate = nullptr;  // gated parts: the counter the host raises, in mapped host memory
  std::vector<void*> scratch;     // device memory of the warm-up's part kernels
  std::vector<std::vector<unsigned*>> part_counters(n);  // capped parts: per-SM admissions and the next block
  auto cleanup = [&] {
    if (gate) cudaFreeHost(gate);
    for (void* p : scratch) cudaFree(p);
    for (const auto& list : part_counters)
      for (auto* c : list) cudaFree(c);
    for (auto* r : records) cudaFree(r);
    for (auto* r : sample_record) cudaFree(r);
    for (auto* r : others_record) cudaFree(r);
    for (const auto& list : part_record)
      for (auto* r : list) cudaFree(r);
    for (auto* c : done_count) cudaFree(c);
    for (auto e : done)
      if (e) cudaEventDestroy(e);
    for (const auto* list : {&sampled, &others_done})
      for (auto e : *list)
        if (e) cudaEventDestroy(e);  // destroying a null event is an error that the next cudaGetLastError would report
    for (auto s : owned) cudaStreamDestroy(s);
  };
  int sm_count = 0;
  {
    int device = 0;
    GPUSCHED_CUDA(cudaGetDevice(&device));
    GPUSCHED_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  }
  const std::size_t counter_bytes = (static_cast<std::size_t>(sm_count) + 1) * sizeof(unsigned);
  try {
    for (std::size_t i = 0; i < n; ++i) {
      if (partitioned(i)) {
        for (const auto& part : options.parts[i]) {
          part_record[i].push_back(nullptr);
          GPUSCHED_CUDA(cudaMalloc(&part_record[i].back(), record_buffer_bytes(part.blocks)));
          GPUSCHED_CUDA(cudaMemset(part_record[i].back(), 0, record_buffer_bytes(part.blocks)));
          done_target[i] += static_cast<std::uint32_t>(part.blocks);
          part_counters[i].push_back(nullptr);
          if (part.cap > 0 && !part.pieces) {
            GPUSCHED_CUDA(cudaMalloc(&part_counters[i].back(), counter_bytes));
            GPUSCHED_CUDA(cudaMemset(part_counters[i].back(), 0, counter_bytes));
          }
        }
        if (awaited[i]) {
          GPUSCHED_CUDA(cudaMalloc(&done_count[i], sizeof(std::uint32_t)));
          GPUSCHED_CUDA(cudaMemset(done_count[i], 0, sizeof(std::uint32_t)));
        }
      } else {
        const int blocks = launches[i].shape.blocks - sample_blocks[i];
        GPUSCHED_CUDA(cudaMalloc(&records[i], record_buffer_bytes(blocks)));
        GPUSCHED_CUDA(cudaMemset(records[i], 0, record_buffer_bytes(blocks)));
      }
      // A launch in parts has no done event: one that waits for it waits for its count (above).
      if (!partitioned(i)) GPUSCHED_CUDA(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
      if (sample_stream[i]) {
        const int first = others_stream[i] ? 1 : sample_blocks[i];
        GPUSCHED_CUDA(cudaMalloc(&sample_record[i], record_buffer_bytes(first)));
        GPUSCHED_CUDA(cudaMemset(sample_record[i], 0, record_buffer_bytes(first)));
        GPUSCHED_CUDA(cudaEventCreateWithFlags(&sampled[i], cudaEventDisableTiming));
      }
      if (others_stream[i]) {
        GPUSCHED_CUDA(cudaMalloc(&others_record[i], record_buffer_bytes(sample_blocks[i] - 1)));
        GPUSCHED_CUDA(cudaMemset(others_record[i], 0, record_buffer_bytes(sample_blocks[i] - 1)));
        GPUSCHED_CUDA(cudaEventCreateWithFlags(&others_done[i], cudaEventDisableTiming));
      }
      if (!priorities.empty()) {  // a stream per launch at its priority; stream order through events (the DAG)
        cudaStream_t s = nullptr;
        GPUSCHED_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priorities.at(i)));
        owned.push_back(s);
        stream_of[i] = s;
        continue;
      }
      const auto& name = w.launches[i].stream;
      if (!name.empty() && streams.count(name)) {
        stream_of[i] = streams[name];
        continue;
      }
      cudaStream_t s = nullptr;
      GPUSCHED_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      owned.push_back(s);
      stream_of[i] = s;
      if (!name.empty()) streams[name] = s;
    }
    // Warm-up: every kernel once, in the instrumented variant the run launches (first-launch costs stay out of the
    // measurement), then the records cleared again.
    // The clocks are lined up first: the synchronisation's kernel, stream and mapped host memory are released
    // when it ends, and the next launch call after that took 15-21 us on an H100's host instead of 8-13 us
    // (docs/validation.md, "Launch latency on an idle GPU"); the warm-up launches below absorb that.
    const ClockSync sync = sync_clocks(500, timeout_s);
    struct {
      ExecEntry* entry = nullptr;
      ExecRecord* record = nullptr;
      std::int32_t* state = nullptr;
    } warm_scratch;
    if (std::any_of(options.parts.begin(), options.parts.end(),
                    [](const auto& list) { return !list.empty() && list.front().pieces; })) {
      GPUSCHED_CUDA(cudaMalloc(&warm_scratch.entry, sizeof(ExecEntry)));
      const ExecEntry run_block_0{};
      GPUSCHED_CUDA(cudaMemcpy(warm_scratch.entry, &run_block_0, sizeof run_block_0, cudaMemcpyHostToDevice));
      GPUSCHED_CUDA(cudaMalloc(&warm_scratch.record, sizeof(ExecRecord)));
      GPUSCHED_CUDA(cudaMalloc(&warm_scratch.state, 2 * sizeof(std::int32_t)));
      scratch.push_back(warm_scratch.entry);
      scratch.push_back(warm_scratch.record);
      scratch.push_back(warm_scratch.state);
    }
    // A sample's kernel is warmed in its green context as well (a context's first launch of a kernel loads it).
    std::vector<std::pair<const SuiteKernel*, cudaStream_t>> warmed;
    auto warm = [&](std::size_t i, cudaStream_t s, int blocks, DeviceBlockRecord* rec) {
      const bool in_sample_context = s == sample_stream[i] || s == others_stream[i] || partitioned(i);
      if (partitioned(i)) blocks = 1;  // a part's stream is in a context of its own: one block loads the kernel there
      const auto key = std::make_pair(static_cast<const SuiteKernel*>(launches[i].kernel),
                                      in_sample_context ? s : cudaStream_t{nullptr});
      if (std::find(warmed.begin(), warmed.end(), key) != warmed.end()) return;
      warmed.push_back(key);
      LaunchShape shape = launches[i].shape;
      shape.blocks = blocks;
      launches[i].kernel->launch(shape, 0, rec, s);
      if (partitioned(i) && !in_pieces(i) &&
          std::any_of(options.parts[i].begin(), options.parts[i].end(), [](const auto& p) { return p.cap > 0; })) {
        unsigned* c = nullptr;  // the capped kernel too, one worker on one block, on scratch counters
        GPUSCHED_CUDA(cudaMalloc(&c, counter_bytes));
        GPUSCHED_CUDA(cudaMemset(c, 0, counter_bytes));
        scratch.push_back(c);
        launches[i].kernel->launch_capped(shape, 0, 1, 1, sm_count, c, rec, nullptr, s);
      }
      if (in_pieces(i)) {  // and the part kernel, on a scratch entry (block 0 run whole) and scratch state
        ExecQueues q = *options.parts[i].front().pieces;
        q.entries = warm_scratch.entry;
        q.records = warm_scratch.record;
        q.block_state = warm_scratch.state;
        q.saved_step = warm_scratch.state + 1;
        GPUSCHED_CUDA(cudaMemset(warm_scratch.state, 0, 2 * sizeof(std::int32_t)));
        // Both variants: parts that claim their blocks and parts that need not (parts_needing_claims) run different
        // kernels, each loaded at its first launch.
        q.claims = 1;
        q.part_first_block = -1;
        launches[i].kernel->execute_part(q, 1, shape.dynamic_smem, s);
        q.claims = 0;
        launches[i].kernel->execute_part(q, 1, shape.dynamic_smem, s);
      }
    };
    for (std::size_t i = 0; i < n; ++i) {
      for (const Part& part : parts(i)) warm(i, part.stream, part.count, part.rec);
    }
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    for (std::size_t i = 0; i < n; ++i)
      for (const Part& part : parts(i)) GPUSCHED_CUDA(cudaMemset(part.rec, 0, record_buffer_bytes(part.count)));
    GPUSCHED_CUDA(cudaDeviceSynchronize());

    NativeExecution out;
    out.clock_uncertainty = sync.rtt_ns / 2;
    out.called.assign(n, 0);
    out.part_called.resize(n);
    for (std::size_t i = 0; i < n && i < options.parts.size(); ++i)
      out.part_called[i].assign(options.parts[i].size(), 0);
    // `stream` waits for launch p: for its blocks' count where it runs in parts, else for its done event.
    decltype(&::cuStreamWaitValue32) wait_value_entry = nullptr;  // looked up at its first use
    auto wait_value = [&](cudaStream_t stream, CUdeviceptr at, std::uint32_t value, unsigned flags) {
      if (!wait_value_entry) wait_value_entry = stream_wait_value32();
      return wait_value_entry(stream, at, value, flags);
    };
    auto await_launch = [&](cudaStream_t stream, std::size_t p) {
      if (!done_count[p]) {
        if (!done[p]) throw std::logic_error("native run: a launch in parts waited for without its count");
        GPUSCHED_CUDA(cudaStreamWaitEvent(stream, done[p], 0));
        return;
      }
      const CUresult r =
          wait_value(stream, reinterpret_cast<CUdeviceptr>(done_count[p]), done_target[p], CU_STREAM_WAIT_VALUE_GEQ);
      if (r != CUDA_SUCCESS) throw LiveError(fmt::format("native run: cuStreamWaitValue32 failed ({})", int(r)));
    };
    // One part of a partitioned launch on its stream: its predecessors' waits, `before` (a gate's wait, or nothing)
    // and its grid, whose blocks count themselves where another launch waits for this one.
    auto issue_part = [&](const Item& item, const auto& before) {
      const std::size_t i = item.launch;
      const auto j = static_cast<std::size_t>(item.part);
      const auto& part = options.parts[i][j];
      const auto stream = static_cast<cudaStream_t>(part.stream);
      const std::int64_t called = host_now_ns();
      for (const std::size_t p : w.dag.predecessors(i)) await_launch(stream, p);
      before(stream);
      LaunchShape shape = launches[i].shape;
      shape.blocks = part.blocks;
      if (part.pieces) {
        ExecQueues q = *part.pieces;
        q.done = done_count[i];
        launches[i].kernel->execute_part(q, part.blocks, shape.dynamic_smem, stream);
      } else if (part.cap > 0) {
        launches[i].kernel->launch_capped(shape, part.first, std::max(1, part.workers), part.cap, sm_count,
                                          part_counters[i][j], part_record[i][j], done_count[i], stream);
      } else if (done_count[i]) {
        launches[i].kernel->launch_counted(shape, part.first, part_record[i][j], done_count[i], stream);
      } else {
        launches[i].kernel->launch(shape, part.first, part_record[i][j], stream);
      }
      out.call_ns.push_back(host_now_ns() - called);
    };
    // Gated parts: every part with a stream wait on the counter reaching its rank, all before t = 0 in the order of
    // their times, the order in which the host raises the counter (a successor's wait for its predecessors' counts
    // needs no order: the counts are in device memory before the run).
    if (!options.inject_fault.empty()) {
      check_fault_kind(options.inject_fault);
      const Item& first = order.front();
      launch_fault_kernel(options.inject_fault,
                          first.part >= 0 ? options.parts[first.launch][static_cast<std::size_t>(first.part)].stream
                                          : static_cast<void*>(stream_of[first.launch]));
    }
    out.gated = options.gate_parts && !options.parts.empty();
    for (std::size_t i = 0; i < n && out.gated; ++i) out.gated = partitioned(i);
    if (out.gated) {
      GPUSCHED_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&gate), 64, cudaHostAllocMapped));
      std::atomic_ref<std::uint32_t>(*gate).store(0, std::memory_order_release);
      void* gate_device = nullptr;
      GPUSCHED_CUDA(cudaHostGetDevicePointer(&gate_device, gate, 0));
      std::uint32_t gate_rank = 0;
      for (const Item& item : order)
        issue_part(item, [&](cudaStream_t stream) {
          const CUresult r =
              wait_value(stream, reinterpret_cast<CUdeviceptr>(gate_device), ++gate_rank, CU_STREAM_WAIT_VALUE_GEQ);
          if (r != CUDA_SUCCESS) throw LiveError(fmt::format("native run: cuStreamWaitValue32 failed ({})", int(r)));
        });
    }
    // The launches went in above: t = 0 after them, with the same lead-in.
    const std::int64_t t0 = host_now_ns() + options.lead_in_ns;  // the host's t = 0, a little ahead to get going
    if (options.origin_device) {  // before any part runs: gates open from t = 0 on, the lead-in is 300 us
      const auto at = static_cast<std::uint64_t>(t0 + sync.offset_ns);
      GPUSCHED_CUDA(cudaMemcpy(options.origin_device, &at, sizeof at, cudaMemcpyHostToDevice));
    }
    std::uint32_t raised = 0;
    for (const Item& item : order) {
      const std::size_t i = item.launch;
      const std::int64_t due = t0 + item.at;
      while (host_now_ns() < due) {
      }
      const std::int64_t called = host_now_ns();
      if (item.part >= 0) {  // one part of a partitioned launch: a grid of its own, on its own stream
        out.max_issue_lag = std::max<TimeNs>(out.max_issue_lag, called - due);
        if (item.part == 0) out.called[i] = called - t0;
        out.part_called[i][static_cast<std::size_t>(item.part)] = called - t0;
        if (out.gated)  // in its stream already: open its gate
          std::atomic_ref<std::uint32_t>(*gate).store(++raised, std::memory_order_release);
        else
          issue_part(item, [](cudaStream_t) {});
        continue;
      }
      out.max_issue_lag = std::max<TimeNs>(out.max_issue_lag, called - due);
      out.called[i] = called - t0;
      for (const std::size_t p : w.dag.predecessors(i)) {
        if (stream_of[p] != stream_of[i] || done_count[p]) await_launch(stream_of[i], p);
        for (cudaStream_t s : {sample_stream[i], others_stream[i]})
          if (s) await_launch(s, p);
      }
      // The sample first (the event after its first grid), then the rest behind it.
      for (const Part& part : parts(i)) {
        LaunchShape shape = launches[i].shape;
        shape.blocks = part.count;
        if (part.stream == stream_of[i] && sampled[i]) GPUSCHED_CUDA(cudaStreamWaitEvent(stream_of[i], sampled[i], 0));
        launches[i].kernel->launch(shape, part.first, part.rec, part.stream);
        if (part.first == 0 && sampled[i]) GPUSCHED_CUDA(cudaEventRecord(sampled[i], part.stream));
      }
      out.call_ns.push_back(host_now_ns() - called);
      if (others_done[i]) {  // the launch is done when blocks 1..k-1 of its sample are too
        GPUSCHED_CUDA(cudaEventRecord(others_done[i], others_stream[i]));
        GPUSCHED_CUDA(cudaStreamWaitEvent(stream_of[i], others_done[i], 0));
      }
      GPUSCHED_CUDA(cudaEventRecord(done[i], stream_of[i]));
    }
    for (auto s : owned) wait_for(s, timeout_s, "native run of " + w.name);
    for (const auto* list : {&sample_stream, &others_stream})
      for (auto s : *list)
        if (s) wait_for(s, timeout_s, "native run of " + w.name);
    for (std::size_t i = 0; i < n; ++i)
      if (partitioned(i))
        for (const auto& part : options.parts[i])
          wait_for(static_cast<cudaStream_t>(part.stream), timeout_s, "native run of " + w.name);

    const std::int64_t origin = t0 + sync.offset_ns;  // the host's t = 0 on the GPU clock
    out.origin_ns = origin;
    for (std::size_t i = 0; i < n; ++i) {
      if (in_pieces(i)) continue;  // its pieces' records are the caller's
      std::vector<DeviceBlockRecord> host(static_cast<std::size_t>(launches[i].shape.blocks));
      for (const Part& part : parts(i))
        GPUSCHED_CUDA(cudaMemcpy(host.data() + part.first, part.rec,
                                 static_cast<std::size_t>(part.count) * sizeof(DeviceBlockRecord),
                                 cudaMemcpyDeviceToHost));
      for (std::size_t b = 0; b < host.size(); ++b) {
        const auto& r = host[b];
        if (r.end_ns == 0 || r.end_ns < r.start_ns)
          throw LiveError(fmt::format("native run: block {} of launch '{}' has no stamps", b, w.launches[i].id));
        BlockPiece p;
        p.start = static_cast<TimeNs>(static_cast<std::int64_t>(r.start_ns) - origin);
        p.end = static_cast<TimeNs>(static_cast<std::int64_t>(r.end_ns) - origin);
        p.launch = static_cast<std::int32_t>(i);
        p.block = static_cast<std::int32_t>(b);
        p.gpu = 0;
        p.sm = static_cast<std::int16_t>(r.smid);
        p.outcome = PieceOutcome::Completed;
        out.schedule.pieces.push_back(p);
      }
    }
    cleanup();
    return out;
  } catch (...) {
    cleanup();
    throw;
  }
}

}  // namespace gpusched::live
