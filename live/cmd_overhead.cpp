// gpusched-live overhead: one kernel alone under the executor against its plain launch (docs/performance.md).
// Each repeat times a batch of back-to-back launches (about 2 ms worth, as the recording's cost measurement):
// plain launches, or executor grids each with its own fresh queues (so no reset sits between them).
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

int overhead_command(const OverheadArgs& a) {
  const auto devices = list_devices();
  const int sms = devices.front().spec.sm_count;
  const auto names = suite_kernel_names(a.kernels);
  cudaStream_t stream;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  fmt::print("{:<13} {:>7} {:>9} {:>9} {:>11} {:>11} {:>9} {:>6}\n", "kernel", "blocks", "plain/SM", "exec/SM", "plain",
             "executor", "overhead", "batch");
  double worst = 0;
  for (const auto& name : names) {
    auto k = make_suite_kernel(name);
    k->setup(a.size, 1);
    const LaunchShape shape = k->shape(a.size);
    const int plain_res = k->occupancy(shape.threads, 0), exec_res = k->executor_occupancy(shape.threads, 0, false);
    const auto queues = alone_queues(shape.blocks, sms, exec_res);
    // Persistent workers (no entries_per_worker): one grid must run every block, and no host starts another
    // where fresh workers would have landed on SMs with nothing left.
    const int grid = worker_grid_blocks(exec_res, sms, queues.entries.size(), 0);
    auto make_queues = [&] {
      return std::make_unique<DeviceQueues>(queues, shape.blocks, shape.threads, k->switch_values_per_thread());
    };
    BatchTimer timer(stream, a.timeout_s, k->name());
    auto time_batch = [&](bool executor, int n, std::vector<std::unique_ptr<DeviceQueues>>* fresh) {
      return timer.ms_per_launch(n, [&](int j) {
        if (executor)
          k->execute((*fresh)[static_cast<std::size_t>(j)]->view(), grid, 0, stream);
        else
          k->launch(shape, 0, nullptr, stream);
      });
    };
    const double one = time_batch(false, 1, nullptr);
    const int batch = launches_per_batch(one, 50);
    std::vector<double> plain, exec;
    for (int i = 0; i < a.repeats; ++i) {
      std::vector<std::unique_ptr<DeviceQueues>> fresh;  // allocated outside the timed batch
      for (int j = 0; j < batch; ++j) {
        fresh.push_back(make_queues());
      }
      GPUSCHED_CUDA(cudaDeviceSynchronize());
      for (bool executor : {i % 2 == 1, i % 2 == 0})
        (executor ? exec : plain).push_back(time_batch(executor, batch, &fresh));
      // Every block ran: each SM's queue was emptied by the workers (a grid whose workers missed an SM would not).
      for (const auto& q : fresh) {
        const auto records = q->records();
        for (const auto& r : records)
          if (r.outcome != static_cast<std::uint32_t>(ExecOutcome::Completed))
            throw LiveError(fmt::format("{}: an executor grid left blocks unrun (the workers missed an SM)", name));
      }
    }
    if (a.breakdown) {
      DeviceBlockRecord* d = nullptr;
      GPUSCHED_CUDA(cudaMalloc(&d, record_buffer_bytes(shape.blocks)));
      k->launch(shape, 0, d, stream);
      GPUSCHED_CUDA(cudaStreamSynchronize(stream));
      std::vector<DeviceBlockRecord> stamps(static_cast<std::size_t>(shape.blocks));
      GPUSCHED_CUDA(cudaMemcpy(stamps.data(), d, stamps.size() * sizeof(DeviceBlockRecord), cudaMemcpyDeviceToHost));
      cudaFree(d);
      const auto q = make_queues();
      k->execute(q->view(), grid, 0, stream);
      GPUSCHED_CUDA(cudaStreamSynchronize(stream));
      const auto p = summarize(stamps, sms), e = summarize(q->records(), sms);
      fmt::print(
          "  stamped: block {:.2f} us plain, {:.2f} us executor; span {:.1f} us plain, {:.1f} us executor; "
          "SMs finish within {:.1f} us plain, {:.1f} us executor\n",
          p.mean_block_ns / 1e3, e.mean_block_ns / 1e3, p.span_ns / 1e3, e.span_ns / 1e3, p.sm_finish_spread_ns / 1e3,
          e.sm_finish_spread_ns / 1e3);
    }
    const double overhead = median(exec) / median(plain) - 1.0;
    worst = std::max(worst, overhead);
    fmt::print("{:<13} {:>7} {:>9} {:>9} {:>9.4f}ms {:>9.4f}ms {:>+8.2f}% {:>6}\n", name, shape.blocks, plain_res,
               exec_res, median(plain), median(exec), 100 * overhead, batch);
  }
  cudaStreamDestroy(stream);
  fmt::print("size {}, median of {} batches each; largest overhead {:+.2f}%\n", a.size, a.repeats, 100 * worst);
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
