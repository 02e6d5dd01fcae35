// gpusched-live preempt: how long each preemption technique takes on the GPU (docs/validation.md, "Preemption on
// the GPU"). A kernel runs alone under the executor, every SM full; at a set moment on the GPU clock every worker is
// told to stop: drain (take no more blocks; running ones finish), flush (running blocks abandon their work at their
// next safe point) or switch (running blocks save their loop state at their next safe point). An SM's latency is
// from that moment to its last worker's exit. Beside it, Chimera's estimates (seed 003, Figure 2) for the same
// kernel: switch = the SM's resident contexts over its share of DRAM bandwidth, drain = the mean block time x
// R / (R + 1) (the last of R blocks at uniformly random progress), flush = 0.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "core/duration_format.h"
#include "core/kernel_profile.h"
#include "live/commands.h"
#include "live/cuda_check.h"
#include "live/device_spec.h"
#include "live/executor/executor.h"
#include "live/suite_binding.h"

namespace gpusched::live {
namespace {

struct PreemptArgs {
  std::vector<std::string> kernels{"all"};
  std::vector<std::string> techniques{"drain", "flush", "switch"};
  std::string size = "s2";
  double at = 0.5;  // of the kernel's time alone
  int repeats = 5;
  double timeout_s = 60;
};

struct Stop {
  double median_sm_ns = 0, max_sm_ns = 0;
  int busy_sms = 0;
  int stopped_blocks = 0;  // flushed or switched out
};

Stop run_with_stop(SuiteKernel& k, const LaunchShape& shape, const LaunchQueues& queues, int workers_per_sm, int sms,
                   EntryKind kind, TimeNs after_ns, double timeout_s, cudaStream_t stream, TimeNs* alone_ns = nullptr,
                   double* mean_block_ns = nullptr) {
  DeviceQueues dq(queues, shape.blocks, shape.threads, k.switch_values_per_thread(), kind == EntryKind::Switch);
  const std::size_t workers = static_cast<std::size_t>(workers_per_sm) * static_cast<std::size_t>(sms);
  std::uint64_t* exits = nullptr;
  std::uint32_t* at_sm = nullptr;
  GPUSCHED_CUDA(cudaMalloc(&exits, workers * sizeof *exits));
  GPUSCHED_CUDA(cudaMalloc(&at_sm, workers * sizeof *at_sm));
  GPUSCHED_CUDA(cudaMemset(exits, 0, workers * sizeof *exits));
  GPUSCHED_CUDA(cudaMemset(at_sm, 0, workers * sizeof *at_sm));
  auto& v = dq.view();
  v.worker_exit = exits;
  v.worker_sm = at_sm;
  const std::uint64_t origin = gpu_clock_now();
  if (after_ns >= 0) {
    v.stop_at_ns = origin + static_cast<std::uint64_t>(after_ns);
    v.stop_kind = static_cast<std::int32_t>(kind);
  }
  k.execute(v, static_cast<int>(workers), 0, stream);
  wait_for(stream, timeout_s, k.name());
  std::vector<std::uint64_t> exit_host(workers);
  std::vector<std::uint32_t> sm_host(workers);
  GPUSCHED_CUDA(cudaMemcpy(exit_host.data(), exits, workers * sizeof *exits, cudaMemcpyDeviceToHost));
  GPUSCHED_CUDA(cudaMemcpy(sm_host.data(), at_sm, workers * sizeof *at_sm, cudaMemcpyDeviceToHost));
  cudaFree(exits);
  cudaFree(at_sm);
  const auto records = dq.records();
  Stop s;
  std::uint64_t first = ~0ull, last = 0;
  double block_sum = 0;
  int blocks = 0;
  for (const auto& r : records) {
    const auto o = static_cast<ExecOutcome>(r.outcome);
    s.stopped_blocks += o == ExecOutcome::Flushed || o == ExecOutcome::SwitchedOut;
    if (o == ExecOutcome::Completed || o == ExecOutcome::Drained) {
      first = std::min(first, r.start_ns);
      last = std::max(last, r.end_ns);
      block_sum += static_cast<double>(r.end_ns - r.start_ns);
      ++blocks;
    }
  }
  if (alone_ns) *alone_ns = last > first ? static_cast<TimeNs>(last - (origin)) : 0;
  if (mean_block_ns) *mean_block_ns = blocks ? block_sum / blocks : 0;
  if (after_ns < 0) return s;
  std::vector<std::uint64_t> last_exit(static_cast<std::size_t>(sms), 0);
  for (std::size_t w = 0; w < workers; ++w)
    if (sm_host[w]) last_exit[sm_host[w] - 1] = std::max(last_exit[sm_host[w] - 1], exit_host[w]);
  std::vector<double> latencies;
  for (const auto e : last_exit)
    if (e > v.stop_at_ns) latencies.push_back(static_cast<double>(e - v.stop_at_ns));
  s.busy_sms = static_cast<int>(latencies.size());
  if (!latencies.empty()) {
    s.median_sm_ns = median(latencies);
    s.max_sm_ns = *std::max_element(latencies.begin(), latencies.end());
  }
  return s;
}

int preempt_command(const PreemptArgs& a) {
  const auto devices = list_devices();
  const auto& gpu = devices.front().spec;
  const int sms = gpu.sm_count;
  const auto names = suite_kernel_names(a.kernels);
  for (const auto& t : a.techniques)
    if (t != "drain" && t != "flush" && t != "switch")
      throw std::invalid_argument("--technique expects drain, flush or switch, found \"" + t + "\"");
  cudaStream_t stream;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  fmt::print("{:<13} {:>3} {:>11} {:>11} | {:<7} {:>11} {:>11} {:>5} {:>7} | {:>12}\n", "kernel", "R", "block", "alone",
             "stop", "median SM", "max SM", "SMs", "stopped", "Chimera est.");
  for (const auto& name : names) {
    auto k = make_suite_kernel(name);
    k->setup(a.size, 1);
    const LaunchShape shape = k->shape(a.size);
    // Workers per SM: the variant with safe points (flush, switch) may have fewer than the one without (drain).
    const int r = k->executor_occupancy(shape.threads, 0, false),
              r_stops = k->executor_occupancy(shape.threads, 0, true);
    const auto queues = alone_queues(shape.blocks, sms, r), queues_stops = alone_queues(shape.blocks, sms, r_stops);
    TimeNs alone = 0;
    double block_ns = 0;
    run_with_stop(*k, shape, queues, r, sms, EntryKind::Run, -1, a.timeout_s, stream, &alone, &block_ns);  // warm-up
    run_with_stop(*k, shape, queues, r, sms, EntryKind::Run, -1, a.timeout_s, stream, &alone, &block_ns);
    const auto attrs = k->attributes();
    const double context = static_cast<double>(
        default_context_bytes(attrs.registers_per_thread, shape.threads, attrs.static_smem + shape.dynamic_smem));
    const double sm_bytes_per_ns = gpu.dram_bandwidth_gbps / sms;  // GB/s = bytes per ns
    for (const auto& t : a.techniques) {
      const EntryKind kind = t == "drain" ? EntryKind::Run : t == "flush" ? EntryKind::Flush : EntryKind::Switch;
      const int resident = kind == EntryKind::Run ? r : r_stops;
      const double estimate = t == "drain"   ? block_ns * resident / (resident + 1.0)
                              : t == "flush" ? 0.0
                                             : resident * context / sm_bytes_per_ns;
      if (kind != EntryKind::Run && k->switch_values_per_thread() < 0) {
        fmt::print("{:<13} {:>3} {:>11} {:>11} | {:<7} {:>11} {:>11} {:>5} {:>7} | {:>12}\n", name, r,
                   format_duration(static_cast<TimeNs>(block_ns)), format_duration(alone), t, "no safe point", "-", "-",
                   "-", format_duration(static_cast<TimeNs>(estimate)));
        continue;
      }
      std::vector<double> med, mx;
      int busy = 0, stopped = 0;
      for (int i = 0; i < a.repeats; ++i) {
        // The stop comes at `at` of the kernel's time alone from the origin stamp (the grid starts a few
        // microseconds after it).
        const bool stops = kind != EntryKind::Run;
        const auto s = run_with_stop(*k, shape, stops ? queues_stops : queues, stops ? r_stops : r, sms, kind,
                                     static_cast<TimeNs>(a.at * static_cast<double>(alone)), a.timeout_s, stream);
        med.push_back(s.median_sm_ns);
        mx.push_back(s.max_sm_ns);
        busy += s.busy_sms;
        stopped += s.stopped_blocks;
      }
      fmt::print("{:<13} {:>3} {:>11} {:>11} | {:<7} {:>11} {:>11} {:>5} {:>7} | {:>12}\n", name, r,
                 format_duration(static_cast<TimeNs>(block_ns)), format_duration(alone), t,
                 format_duration(static_cast<TimeNs>(median(med))), format_duration(static_cast<TimeNs>(median(mx))),
                 busy / a.repeats, stopped / a.repeats, format_duration(static_cast<TimeNs>(estimate)));
    }
  }
  cudaStreamDestroy(stream);
  fmt::print(
      "size {}, stop at {:.2f} of the kernel's time alone, median of {} repeats; R: worker blocks per SM; SMs: "
      "SMs busy at the stop; stopped: blocks flushed or switched out\n",
      a.size, a.at, a.repeats);
  return 0;
}

}  // namespace

void add_preempt_command(CLI::App& app, int& result) {
  auto a = std::make_shared<PreemptArgs>();
  auto* cmd = app.add_subcommand("preempt", "Measure drain, flush and context-switch latency per kernel on the GPU");
  cmd->add_option("--kernel,-k", a->kernels, "Suite kernels, or 'all'")->expected(1, -1);
  cmd->add_option("--technique", a->techniques, "drain, flush, switch")->expected(1, -1);
  cmd->add_option("--size", a->size, "Problem size (s1, s2)");
  cmd->add_option("--at", a->at, "When the stop comes, as a fraction of the kernel's time alone")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--repeats", a->repeats, "Repeats per technique (median)")->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", a->timeout_s, "Watchdog per run, in seconds");
  cmd->callback([a, &result] { result = preempt_command(*a); });
}

}  // namespace gpusched::live
