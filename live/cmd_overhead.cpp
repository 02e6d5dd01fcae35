// gpusched-live overhead: one kernel alone under the executor against its plain launch (docs/performance.md): as
// the executor runs a kernel alone (placed by the hardware, plan.h) and with per-SM queues (what a launch sharing
// the GPU pays). Each repeat times a batch of back-to-back launches (about 2 ms worth, as the recording's cost
// measurement): plain launches, or executor grids each with its own fresh queues (so no reset sits between them).
// It also times the kernel as one part of a plan in pieces runs it (part_pieces_kernel: one worker per block, each
// counted done for a waiting launch), with and without the claims a plan that stops blocks makes: what each piece of
// such a plan pays over a plain block.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "live/commands.h"
#include "live/cuda_check.h"
#include "live/device_spec.h"
#include "live/executor/executor.h"
#include "live/suite_binding.h"

namespace gpusched::live {
namespace {

struct OverheadArgs {
  std::vector<std::string> kernels{"all"};
  std::string size = "s1";
  int repeats = 11;
  double timeout_s = 60;
  bool breakdown = false;  // also stamp one plain and one executor launch and compare where the time goes
};

// Where a launch's time goes, from its blocks' stamps: the mean block time, the span from the first block's start
// to the last block's end, and how unevenly the SMs finish (latest SM's last end less the earliest SM's).
struct StampSummary {
  double mean_block_ns = 0, span_ns = 0, sm_finish_spread_ns = 0;
};

template <class Stamp>
StampSummary summarize(const std::vector<Stamp>& stamps, int sms) {
  StampSummary s;
  if (stamps.empty()) return s;
  std::uint64_t first = ~0ull, last = 0;
  std::vector<std::uint64_t> sm_last(static_cast<std::size_t>(sms), 0);
  double total = 0;
  for (const auto& r : stamps) {
    first = std::min<std::uint64_t>(first, r.start_ns);
    last = std::max<std::uint64_t>(last, r.end_ns);
    total += static_cast<double>(r.end_ns - r.start_ns);
    if (r.smid < sm_last.size()) sm_last[r.smid] = std::max<std::uint64_t>(sm_last[r.smid], r.end_ns);
  }
  std::uint64_t earliest = ~0ull;
  for (auto t : sm_last)
    if (t) earliest = std::min(earliest, t);
  s.mean_block_ns = total / static_cast<double>(stamps.size());
  s.span_ns = static_cast<double>(last - first);
  s.sm_finish_spread_ns = static_cast<double>(last - earliest);
  return s;
}

void print_breakdown(const char* what, const StampSummary& p, const StampSummary& e) {
  fmt::print(
      "  {}: block {:.2f} us plain, {:.2f} us executor; span {:.1f} us plain, {:.1f} us executor; SMs finish within "
      "{:.1f} us plain, {:.1f} us executor\n",
      what, p.mean_block_ns / 1e3, e.mean_block_ns / 1e3, p.span_ns / 1e3, e.span_ns / 1e3, p.sm_finish_spread_ns / 1e3,
      e.sm_finish_spread_ns / 1e3);
}

int overhead_command(const OverheadArgs& a) {
  const auto devices = list_devices();
  const int sms = devices.front().spec.sm_count;
  const auto names = suite_kernel_names(a.kernels);
  cudaStream_t stream;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::uint32_t* done_count = nullptr;  // the parts' done count (what a waiting launch's stream would wait for)
  GPUSCHED_CUDA(cudaMalloc(&done_count, sizeof(std::uint32_t)));
  fmt::print("{:<13} {:>6} {:>5} {:>10} | {:>5} {:>10} {:>8} | {:>5} {:>10} {:>8} | {:>5} {:>8} {:>8} | {:>5}\n",
             "kernel", "blocks", "/SM", "plain", "/SM", "executor", "overhead", "/SM", "queues", "overhead", "/SM",
             "part", "claims", "batch");
  double worst = 0, worst_queues = 0;
  for (const auto& name : names) {
    auto k = make_suite_kernel(name);
    k->setup(a.size, 1);
    const LaunchShape shape = k->shape(a.size);
    const int plain_res = k->occupancy(shape.threads, 0);
    // A kernel alone on the GPU is placed by the hardware (plan.h, hardware_placed): one worker per block. Per-SM
    // queues are what it pays where it shares the GPU: persistent workers (no entries_per_worker), since one grid
    // must run every block and no host starts another where fresh workers would have landed on SMs with nothing left.
    const int placed_res = k->hardware_placed_occupancy(shape.threads, 0);
    const int queue_res = k->executor_occupancy(shape.threads, 0, false);
    const auto placed = alone_queues(shape.blocks, sms, placed_res);
    const auto queues = alone_queues(shape.blocks, sms, queue_res);
    // Where the hardware may not place it (fewer blocks than SMs), the executor runs it from queues: both columns do.
    const bool by_hardware = hardware_placed(placed, placed_res);
    const int queue_grid = worker_grid_blocks(queue_res, sms, queues.entries.size(), 0);
    const int placed_grid = by_hardware ? static_cast<int>(placed.entries.size()) : queue_grid;
    auto make_queues = [&](bool hardware) {
      hardware &= by_hardware;
      auto q = std::make_unique<DeviceQueues>(hardware ? placed : queues, shape.blocks, shape.threads,
                                              k->switch_values_per_thread());
      if (hardware) q->place_by_hardware(placed);
      return q;
    };
    // One part of a plan in pieces (part_pieces_kernel), one worker per block in block order (worker w runs entry w;
    // the queues' SM-after-SM order would cost kernels that share data between neighbouring blocks, stencil-s2 +29 %),
    // each counting itself done for a waiting launch; with claims (a plan that stops blocks) or without (each piece
    // its block's only one).
    LaunchQueues in_block_order = placed;
    std::sort(in_block_order.entries.begin(), in_block_order.entries.end(),
              [](const ExecEntry& x, const ExecEntry& y) { return x.block < y.block; });
    auto make_part = [&](bool claims) {
      auto q =
          std::make_unique<DeviceQueues>(in_block_order, shape.blocks, shape.threads, k->switch_values_per_thread());
      q->view().claims = claims ? 1 : 0;
      q->view().done = done_count;
      return q;
    };
    enum Way { Plain, Placed, Queues, Part, PartClaims, kWays };
    BatchTimer timer(stream, a.timeout_s, k->name());
    auto time_batch = [&](Way way, int n, std::vector<std::unique_ptr<DeviceQueues>>* fresh) {
      return timer.ms_per_launch(n, [&](int j) {
        if (way == Plain)
          k->launch(shape, 0, nullptr, stream);
        else if (way == Part || way == PartClaims)
          k->execute_part((*fresh)[static_cast<std::size_t>(j)]->view(), static_cast<int>(placed.entries.size()), 0,
                          stream);
        else
          k->execute((*fresh)[static_cast<std::size_t>(j)]->view(), way == Placed ? placed_grid : queue_grid, 0,
                     stream);
      });
    };
    const double one = time_batch(Plain, 1, nullptr);
    const int batch = launches_per_batch(one, 50);
    std::vector<double> times[kWays];
    for (int i = 0; i < a.repeats; ++i) {
      std::vector<std::unique_ptr<DeviceQueues>> fresh[kWays];  // allocated outside the timed batches
      for (int j = 0; j < batch; ++j) {
        fresh[Placed].push_back(make_queues(true));
        fresh[Queues].push_back(make_queues(false));
        fresh[Part].push_back(make_part(false));
        fresh[PartClaims].push_back(make_part(true));
      }
      GPUSCHED_CUDA(cudaDeviceSynchronize());
      // The order of the ways rotates from repeat to repeat.
      for (int w = 0; w < kWays; ++w) {
        const Way way = static_cast<Way>((i + w) % kWays);
        times[way].push_back(time_batch(way, batch, &fresh[way]));
      }
      // Every block ran: each entry has its record (a grid whose workers missed an SM would leave some unrun).
      for (const Way way : {Placed, Queues, Part, PartClaims})
        for (const auto& q : fresh[way])
          for (const auto& r : q->records())
            if (r.outcome != static_cast<std::uint32_t>(ExecOutcome::Completed))
              throw LiveError(fmt::format("{}: an executor grid left blocks unrun (the workers missed an SM)", name));
    }
    if (a.breakdown) {
      DeviceBlockRecord* d = nullptr;
      GPUSCHED_CUDA(cudaMalloc(&d, record_buffer_bytes(shape.blocks)));
      k->launch(shape, 0, d, stream);
      GPUSCHED_CUDA(cudaStreamSynchronize(stream));
      std::vector<DeviceBlockRecord> stamps(static_cast<std::size_t>(shape.blocks));
      GPUSCHED_CUDA(cudaMemcpy(stamps.data(), d, stamps.size() * sizeof(DeviceBlockRecord), cudaMemcpyDeviceToHost));
      cudaFree(d);
      const auto plain = summarize(stamps, sms);
      for (const Way way : {Placed, Queues}) {
        const auto q = make_queues(way == Placed);
        k->execute(q->view(), way == Placed ? placed_grid : queue_grid, 0, stream);
        GPUSCHED_CUDA(cudaStreamSynchronize(stream));
        print_breakdown(way == Placed ? "placed by the hardware" : "per-SM queues", plain,
                        summarize(q->records(), sms));
      }
    }
    const double plain = median(times[Plain]), executor = median(times[Placed]), queued = median(times[Queues]),
                 part = median(times[Part]), part_claims = median(times[PartClaims]);
    worst = std::max(worst, executor / plain - 1.0);
    worst_queues = std::max(worst_queues, queued / plain - 1.0);
    fmt::print(
        "{:<13} {:>6} {:>5} {:>8.4f}ms | {:>5} {:>8.4f}ms {:>+7.2f}% | {:>5} {:>8.4f}ms {:>+7.2f}% | {:>5} {:>+7.2f}% "
        "{:>+7.2f}% | {:>5}\n",
        name, shape.blocks, plain_res, plain, by_hardware ? fmt::format("{}", placed_res) : "queue", executor,
        100 * (executor / plain - 1.0), queue_res, queued, 100 * (queued / plain - 1.0),
        k->part_occupancy(shape.threads, 0, true), 100 * (part / plain - 1.0), 100 * (part_claims / plain - 1.0),
        batch);
  }
  cudaStreamDestroy(stream);
  cudaFree(done_count);
  fmt::print(
      "size {}, median of {} batches each; largest overhead {:+.2f}% (a kernel alone: placed by the hardware), "
      "{:+.2f}% with per-SM queues\n",
      a.size, a.repeats, 100 * worst, 100 * worst_queues);
  return 0;
}

}  // namespace

void add_overhead_command(CLI::App& app, int& result) {
  auto a = std::make_shared<OverheadArgs>();
  auto* cmd = app.add_subcommand("overhead", "Time each kernel alone under the executor against its plain launch");
  cmd->add_option("--kernel,-k", a->kernels, "Suite kernels, or 'all'")->expected(1, -1);
  cmd->add_option("--size", a->size, "Problem size (s1, s2)");
  cmd->add_option("--repeats", a->repeats, "Batches timed of each (median)");
  cmd->add_option("--timeout", a->timeout_s, "Watchdog per batch, in seconds");
  cmd->add_flag("--breakdown", a->breakdown,
                "Also stamp one plain and one executor launch of each kernel: mean block time, span, how unevenly the "
                "SMs finish");
  cmd->callback([a, &result] { result = overhead_command(*a); });
}

}  // namespace gpusched::live
