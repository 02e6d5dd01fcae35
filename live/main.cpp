// gpusched-live: the suite of real CUDA kernels on a real GPU. Commands: devices (the GPUs and their specs
// against the presets), check (every kernel against its CPU reference), occupancy-check (the project's
// occupancy calculator against cudaOccupancyMaxActiveBlocksPerMultiprocessor), record (a kernel alone at one
// or more residencies, every block stamped, written as a kernel profile), validate (a workload's predictions
// executed on the GPU and compared), preempt (drain/flush/switch latency), overhead (the executor's cost).
// docs/live.md, docs/validation.md.
// Exit codes: 0 success, 1 a CUDA or GPU failure (no GPU, an error, a time-out), 2 bad input, 3 a check failed.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "core/error.h"
#include "core/kernel_profile.h"
#include "core/occupancy.h"
#include "core/profile_io.h"
#include "core/store/store.h"
#include "live/commands.h"
#include "live/cuda_check.h"
#include "live/device_spec.h"
#include "live/executor_check.h"
#include "live/suite/suite.h"
#include "live/suite_binding.h"

namespace gpusched::live {
namespace {

constexpr int kExitCheckFailed = 3;

void devices_command() {
  for (const auto& d : list_devices()) {
    fmt::print("device {}: {} (compute {}.{}), driver {}, runtime {}\n", d.index, d.name, d.spec.compute_major,
               d.spec.compute_minor, d.driver, d.runtime);
    fmt::print(
        "  {} SMs, {} threads/SM, {} blocks/SM, {} registers/SM, {} B shared/SM ({} B/block opt-in, {} B "
        "reserved/block), {:.0f} MHz, {:.0f} GB/s, {:.1f} GiB\n",
        d.spec.sm_count, d.spec.max_threads_per_sm, d.spec.max_blocks_per_sm, d.spec.registers_per_sm,
        d.spec.shared_memory_per_sm, d.spec.max_shared_memory_per_block, d.spec.reserved_shared_memory_per_block,
        d.spec.clock_mhz, d.spec.dram_bandwidth_gbps, static_cast<double>(d.spec.memory_bytes) / (1 << 30));
    if (!d.preset) {
      fmt::print("  no matching preset\n");
    } else if (d.differences.empty()) {
      fmt::print("  matches preset {}\n", d.preset->name);
    } else {
      fmt::print("  preset {} differs:\n", d.preset->name);
      for (const auto& diff : d.differences) fmt::print("    {}\n", diff);
    }
  }
}

int check_command(double timeout_s) {
  const auto devices = list_devices();
  const int sms = devices.front().spec.sm_count;
  auto suite = make_suite();
  int failed = 0;
  for (auto& k : suite) {
    const std::string problem = k->check();
    fmt::print("{:<12} {}\n", k->name(), problem.empty() ? "ok (matches the CPU reference)" : problem);
    failed += !problem.empty();
  }
  // The same outputs from the executor's persistent workers, and with every block stopped and run again.
  for (auto& k : suite) {
    std::vector<EntryKind> kinds{EntryKind::Run};
    if (k->switch_values_per_thread() >= 0) kinds = {EntryKind::Run, EntryKind::Flush, EntryKind::Switch};
    for (std::size_t i = 0; i <= kinds.size(); ++i) {
      // Last: the launch placed by the hardware (one worker per block, no queues).
      const bool placed = i == kinds.size();
      const EntryKind kind = placed ? EntryKind::Run : kinds[i];
      const auto c = check_under_executor(*k, sms, kind, timeout_s, placed);
      const char* how = placed                     ? "placed by the hardware"
                        : kind == EntryKind::Run   ? "executor"
                        : kind == EntryKind::Flush ? "flushed"
                                                   : "switched";
      if (!c.problem.empty()) {
        fmt::print("{:<12} {}: {}\n", k->name(), how, c.problem);
        ++failed;
      } else {
        fmt::print("{:<12} {}: ok ({} pieces stopped, {} resumed)\n", k->name(), how, c.stopped, c.resumed);
      }
    }
  }
  // The fused worker: every kernel at once from shared per-SM queues, then stopped and resumed (safe points only).
  {
    std::vector<SuiteKernel*> all, stoppable;
    for (auto& k : suite) {
      all.push_back(k.get());
      if (k->switch_values_per_thread() >= 0) stoppable.push_back(k.get());
    }
    // With lanes (blackscholes' 128-thread blocks two to a worker, beside the others' joins) and without.
    for (const bool lanes : {true, false})
      for (const EntryKind kind : {EntryKind::Run, EntryKind::Flush, EntryKind::Switch}) {
        ExecutorCheck counts;
        const auto problem =
            check_under_fused(kind == EntryKind::Run ? all : stoppable, sms, kind, timeout_s, lanes, &counts);
        const char* how = kind == EntryKind::Run     ? "every kernel at once"
                          : kind == EntryKind::Flush ? "flushed"
                                                     : "switched";
        const char* variant = lanes ? "lanes" : "no lanes";
        if (!problem.empty()) {
          fmt::print("fused worker, {}, {}: {}\n", variant, how, problem);
          ++failed;
        } else {
          fmt::print("fused worker, {}, {}: ok ({} pieces stopped, {} resumed)\n", variant, how, counts.stopped,
                     counts.resumed);
        }
      }
  }
  // Time-sharing: micro-kernels with the state swapped to host memory and back (overwritten on the GPU between).
  for (auto& k : suite) {
    const std::string problem = check_time_shared(*k, 3, timeout_s);
    fmt::print("{:<12} time-shared: {}\n", k->name(),
               problem.empty() ? "ok (3 micro-kernels, state swapped through host memory)" : problem);
    failed += !problem.empty();
  }
  return failed ? kExitCheckFailed : 0;
}

int occupancy_command() {
  const auto devices = list_devices();
  const GpuSpec& gpu = devices.front().spec;
  auto suite = make_suite();
  int compared = 0, differ = 0;
  for (auto& k : suite) {
    const auto a = k->attributes();
    k->allow_dynamic_smem(gpu.max_shared_memory_per_block - a.static_smem);
    for (int threads : {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024}) {
      if (threads > a.max_threads_per_block) continue;
      for (int dyn : {0, 1024, 4096, 12288, 32768, 49152, 65536, 100000, 150000, 200000}) {
        if (a.static_smem + dyn > gpu.max_shared_memory_per_block) continue;
        const int cuda = k->occupancy(threads, dyn);
        const auto ours = compute_occupancy(gpu, KernelShape{threads, a.registers_per_thread, a.static_smem + dyn});
        ++compared;
        if (cuda != ours.blocks_per_sm) {
          ++differ;
          fmt::print("{} threads={} registers={} smem={}+{}: CUDA {} blocks/SM, gpusched {} (limit {})\n", k->name(),
                     threads, a.registers_per_thread, a.static_smem, dyn, cuda, ours.blocks_per_sm,
                     to_string(ours.limit));
        }
      }
    }
  }
  fmt::print("occupancy: {} configurations compared on {}, {} differ\n", compared, gpu.name, differ);
  // The kernels the hardware places as the plan's blocks (a launch left to the hardware, a part of a plan that stops
  // and resumes blocks) must hold as many blocks an SM as the recorded kernel at each size's shape: a kernel that holds
  // fewer carries the plan out on fewer slots than it was planned on (mriq's part kernel with safe points held 7 where
  // the recording holds 8, docs/validation.md "Safe points, samples and what a piece costs").
  int fewer = 0;
  for (auto& k : suite)
    for (const char* size : {"s1", "s2"}) {
      const int threads = k->shape(size).threads;
      const int recorded = k->occupancy(threads, 0);
      // Parts with safe points run only for kernels that have them: the plans drain the others, whose pieces then
      // each run their block whole and claim nothing (parts_needing_claims).
      const bool stoppable = k->switch_values_per_thread() >= 0;
      const int placed = k->hardware_placed_occupancy(threads, 0), part = k->part_occupancy(threads, 0, false),
                part_stops = stoppable ? k->part_occupancy(threads, 0, true) : recorded;
      if (std::min({placed, part, part_stops}) < recorded) {
        ++fewer;
        fmt::print("{} {} ({} threads): {} blocks/SM recorded, hardware-placed {}, part {}, part with safe points {}\n",
                   k->name(), size, threads, recorded, placed, part,
                   stoppable ? std::to_string(part_stops) : std::string("-"));
      }
    }
  fmt::print("placed kernels: {} of {} kernel sizes hold fewer blocks an SM than the recorded kernel\n", fewer,
             2 * suite.size());
  return differ || fewer ? kExitCheckFailed : 0;
}

struct RecordArgs {
  std::string kernel, size = "s1", out;
  std::vector<int> residencies;
  int repeats = 21;
  double timeout_s = 60;
  std::uint64_t seed = 1;
  std::string stamping = "barrier";
  std::string inject_fault;  // tests of the error paths: hang or error, at the second recording
  int batch = 0;             // launches per timed batch in the cost measurement (0: about 2 ms worth)
};

// Dynamic shared memory that brings the kernel's residency down to `r` blocks per SM.
int padding_for(SuiteKernel& k, const GpuSpec& gpu, int threads, int r) {
  const auto a = k.attributes();
  const int limit = gpu.max_shared_memory_per_block - a.static_smem;
  k.allow_dynamic_smem(limit);
  if (k.occupancy(threads, 0) <= r) return 0;
  int lo = 0, hi = limit;  // occupancy(lo) > r, find the smallest s with occupancy(s) <= r
  if (k.occupancy(threads, hi) > r)
    throw LiveError(fmt::format("{}: residency {} is out of reach by padding", k.name(), r));
  while (hi - lo > 128) {
    const int mid = (lo + hi) / 2;
    if (k.occupancy(threads, mid) <= r)
      hi = mid;
    else
      lo = mid;
  }
  if (k.occupancy(threads, hi) != r)
    throw LiveError(fmt::format("{}: no padding gives exactly {} blocks per SM", k.name(), r));
  return hi;
}

int record_command(const RecordArgs& a) {
  const auto devices = list_devices();
  const auto& dev = devices.front();
  auto kernel = make_suite_kernel(a.kernel);
  SuiteKernel& k = *kernel;
  if (a.stamping != "last-warp" && a.stamping != "barrier" && a.stamping != "per-warp")
    throw std::invalid_argument("--stamping expects barrier, last-warp or per-warp, found \"" + a.stamping + "\"");
  const Stamping stamping = a.stamping == "barrier"     ? Stamping::Barrier
                            : a.stamping == "last-warp" ? Stamping::LastWarp
                                                        : Stamping::PerWarp;
  k.set_stamping(stamping);
  k.setup(a.size, a.seed);
  const LaunchShape base = k.shape(a.size);
  const auto attrs = k.attributes();
  const int full = k.occupancy(base.threads, 0);
  // Default: one block per SM, half the full residency, and the full residency.
  std::vector<int> residencies =
      a.residencies.empty() ? std::vector<int>{1, std::max(1, full / 2), full} : a.residencies;
  std::sort(residencies.begin(), residencies.end());
  residencies.erase(std::unique(residencies.begin(), residencies.end()), residencies.end());
  for (int r : residencies)
    if (r < 1 || r > full)
      throw std::invalid_argument(
          fmt::format("--residency {}: {} allows 1..{} blocks per SM at {} threads", r, k.name(), full, base.threads));
  cudaStream_t stream;
  GPUSCHED_CUDA(cudaStreamCreate(&stream));
  DeviceBlockRecord* records = nullptr;
  const std::size_t record_bytes = record_buffer_bytes(base.blocks);
  GPUSCHED_CUDA(cudaMalloc(&records, record_bytes));

  KernelProfile profile;
  profile.name = k.name() + "-" + a.size;
  profile.gpu = dev.preset ? dev.preset->name : "";
  profile.grid = {base.blocks, 1, 1};
  profile.block = {base.threads, 1, 1};
  profile.registers_per_thread = attrs.registers_per_thread;
  profile.shared_memory_per_block = attrs.static_smem;
  profile.context_bytes_per_block = default_context_bytes(attrs.registers_per_thread, base.threads, attrs.static_smem);
  profile.memory_footprint_bytes = k.footprint_bytes();
  profile.dirty_bytes = k.dirty_bytes();
  std::vector<std::vector<BlockRecord>> sets;
  std::vector<double> points;
  for (int r : residencies) {
    LaunchShape s = base;
    s.dynamic_smem = r == full ? 0 : padding_for(k, dev.spec, base.threads, r);
    k.launch(s, 0, nullptr, stream);  // warm-up
    wait_for(stream, a.timeout_s, k.name());
    k.setup(a.size, a.seed);  // fresh inputs (the histogram accumulates)
    GPUSCHED_CUDA(cudaMemsetAsync(records, 0, record_bytes, stream));
    if (!a.inject_fault.empty() && !sets.empty())
      launch_fault_kernel(a.inject_fault, stream);
    else
      k.launch(s, 0, records, stream);
    wait_for(stream, a.timeout_s, k.name());
    std::vector<DeviceBlockRecord> host(static_cast<std::size_t>(base.blocks));
    GPUSCHED_CUDA(cudaMemcpy(host.data(), records, host.size() * sizeof(DeviceBlockRecord), cudaMemcpyDeviceToHost));
    if (stamping == Stamping::PerWarp) {  // a block ends when its last warp does
      std::vector<std::uint64_t> ends(host.size() * kMaxWarpsPerBlock);
      GPUSCHED_CUDA(cudaMemcpy(ends.data(), warp_end_slots(records, base.blocks), ends.size() * sizeof(std::uint64_t),
                               cudaMemcpyDeviceToHost));
      const int warps = (base.threads + 31) / 32;
      for (std::size_t b = 0; b < host.size(); ++b)
        for (int w = 0; w < warps; ++w)
          host[b].end_ns =
              std::max<std::uint64_t>(host[b].end_ns, ends[b * kMaxWarpsPerBlock + static_cast<std::size_t>(w)]);
    }
    std::uint64_t t0 = ~0ull;
    for (const auto& h : host) t0 = std::min(t0, h.start_ns);
    std::vector<BlockRecord> set;
    for (std::size_t b = 0; b < host.size(); ++b) {
      const auto& h = host[b];
      if (h.end_ns < h.start_ns || h.start_ns == 0)
        throw LiveError(fmt::format("{}: block {} has no record", k.name(), b));
      set.push_back({static_cast<std::int64_t>(b), static_cast<int>(h.smid), static_cast<TimeNs>(h.start_ns - t0),
                     static_cast<TimeNs>(h.end_ns - t0)});
      if (h.point_ns && h.end_ns > h.start_ns)
        points.push_back(static_cast<double>(h.point_ns - h.start_ns) / static_cast<double>(h.end_ns - h.start_ns));
    }
    RecordSet rs;
    rs.residency = r;
    profile.record_sets.push_back(rs);
    sets.push_back(std::move(set));
    fmt::print("{} {} residency {} (dynamic smem {} B): {} blocks recorded\n", k.name(), a.size, r, s.dynamic_smem,
               base.blocks);
  }
  profile.idempotent_until = points.empty() ? k.idempotent_until() : median(points);
  profile.stoppable = k.switch_values_per_thread() >= 0;  // the executor stops a block only at its body's safe points

  // Instrumentation cost: instrumented against plain launches at full residency, median of repeats. Each
  // repeat times a batch of back-to-back launches (enough for about 2 ms): a single launch of a short kernel
  // (blackscholes s1: 40 us) is within the launch-to-launch jitter of the GPU. With the barrier stamping the
  // records need no reset between launches; the other stampings reset them outside the timed batch, so a
  // batch of those repeats the first launch's record work only approximately (their counts are not reset).
  BatchTimer timer(stream, a.timeout_s, k.name());
  auto time_batch = [&](bool instrumented, int n) {
    if (instrumented) GPUSCHED_CUDA(cudaMemsetAsync(records, 0, record_bytes, stream));  // outside the timing
    return timer.ms_per_launch(n, [&](int) { k.launch(base, 0, instrumented ? records : nullptr, stream); });
  };
  const double one = time_batch(false, 1);
  const int batch = a.batch > 0 ? a.batch : launches_per_batch(one, 200);
  std::vector<double> plain, inst;
  for (int i = 0; i < a.repeats; ++i)
    for (bool instrumented : {i % 2 == 1, i % 2 == 0})  // alternate which goes first
      (instrumented ? inst : plain).push_back(time_batch(instrumented, batch));
  const double overhead = median(inst) / median(plain) - 1.0;
  const auto resolution = measure_globaltimer_resolution();
  cudaFree(records);
  cudaStreamDestroy(stream);

  profile.provenance["device"] = dev.name;
  profile.provenance["driver"] = dev.driver;
  profile.provenance["cuda_runtime"] = dev.runtime;
  profile.provenance["globaltimer_resolution_ns"] = std::to_string(resolution);
  profile.provenance["instrumentation_overhead"] = fmt::format("{:.4f}", overhead);
  profile.provenance["instrumentation"] = a.stamping == "barrier"     ? "end stamped after a block barrier"
                                          : a.stamping == "last-warp" ? "end stamped by the block's last warp"
                                                                      : "end = latest of the warps' own stamps";
  profile.provenance["recorded_at"] = store::utc_now_iso8601();
  profile.provenance["command"] =
      fmt::format("gpusched-live record --kernel {} --size {} --seed {}", a.kernel, a.size, a.seed);
  write_kernel_profile(a.out, profile, sets);
  fmt::print(
      "{}: wrote {}/{}.kernel.toml; plain {:.4f} ms, instrumented {:.4f} ms (median of {} batches of {}): overhead "
      "{:+.2f}%; %globaltimer resolution {} ns\n",
      k.name(), a.out, profile.name, median(plain), median(inst), a.repeats, batch, 100 * overhead, resolution);
  return 0;
}

}  // namespace
}  // namespace gpusched::live

int main(int argc, char** argv) {
  using namespace gpusched::live;
  // Every kernel loaded when the context is created, not at its first launch: with lazy loading (CUDA's default since
  // 12.2) the first grid of each worker, micro-kernel or instrumented kernel waited milliseconds for its module, inside
  // the first execution's timing (measured: a time-shared execution's micro-kernels took 65.6 ms the first time and
  // 7.3 ms the next). A value the user set is kept.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  CLI::App app{"gpusched-live: real CUDA kernels, recorded on a real GPU"};
  app.require_subcommand(1);
  int result = 0;
  app.add_subcommand("devices", "The GPUs present, their specs, and how they differ from the presets")->callback([&] {
    devices_command();
  });
  double check_timeout = 60;
  auto* check = app.add_subcommand(
      "check", "Run every suite kernel at a small size against its CPU reference, plainly and under the executor");
  check->add_option("--timeout", check_timeout, "Watchdog per kernel, in seconds");
  check->callback([&] { result = check_command(check_timeout); });
  app.add_subcommand("occupancy-check",
                     "Compare gpusched's occupancy calculator with cudaOccupancyMaxActiveBlocksPerMultiprocessor")
      ->callback([&] { result = occupancy_command(); });
  auto ra = std::make_shared<RecordArgs>();
  auto* rec = app.add_subcommand("record", "Run a kernel alone and write its kernel profile with per-block records");
  rec->add_option("--kernel", ra->kernel, "Suite kernel")->required();
  rec->add_option("--size", ra->size, "Problem size (s1, s2, small)");
  rec->add_option("--residency", ra->residencies, "Blocks per SM to record at (repeatable; default: 1, half and full)");
  rec->add_option("--out", ra->out, "Output folder")->required();
  rec->add_option("--repeats", ra->repeats, "Repeats for the instrumentation-cost measurement")
      ->check(CLI::Range(1, 1000));
  rec->add_option("--timeout", ra->timeout_s, "Seconds a kernel may run before the command fails")
      ->check(CLI::PositiveNumber);
  rec->add_option("--seed", ra->seed, "Seed for the generated inputs");
  rec->add_option("--batch", ra->batch, "Launches per timed batch in the cost measurement (default: ~2 ms worth)")
      ->check(CLI::Range(0, 100000));
  rec->add_option(
      "--stamping", ra->stamping,
      "How a block's end is stamped: barrier (default: thread 0 after a block barrier), last-warp or per-warp");
  rec->add_option("--inject-fault", ra->inject_fault,
                  "Test the error paths: replace the second recording by a kernel that hangs or faults (hang, error)");
  rec->callback([&] { result = record_command(*ra); });
  add_validate_command(app, result);
  add_preempt_command(app, result);
  add_overhead_command(app, result);
  add_calibrate_command(app, result);
  add_native_command(app, result);
  add_record_pairs_command(app, result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : gpusched::kExitInputError;
  } catch (const gpusched::InputError& e) {
    std::fprintf(stderr, "gpusched-live: error: %s\n", e.what());
    return gpusched::kExitInputError;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gpusched-live: error: %s\n", e.what());
    return gpusched::kExitInputError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusched-live: error: %s\n", e.what());
    return 1;
  }
  return result;
}
