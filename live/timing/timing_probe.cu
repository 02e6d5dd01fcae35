#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "live/cuda_check.h"
#include "live/suite/device_clock.cuh"
#include "live/suite_binding.h"
#include "live/timing/timing_probe.h"

namespace gpusched::live {

// From live/executor/executor.h, whose C++20 headers nvcc's C++17 does not read.
[[noreturn]] void exit_hung(const std::string& what, double timeout_s);

namespace {

// Ping-pong: the host writes round i into `flag`; the kernel stamps %globaltimer and acknowledges with i.
__global__ void pingpong_kernel(volatile unsigned int* flag, volatile unsigned int* ack,
                                volatile unsigned long long* stamps, int rounds) {
  *ack = 0xffffffffu;  // ready
  __threadfence_system();
  for (int i = 1; i <= rounds; ++i) {
    while (*flag != static_cast<unsigned int>(i)) {
    }
    stamps[i] = globaltimer_ns();
    __threadfence_system();
    *ack = static_cast<unsigned int>(i);
    __threadfence_system();
  }
}

__global__ void stamp_start_kernel(unsigned long long* out) {
  if (threadIdx.x == 0) *out = globaltimer_ns();
}

// Spins for `ns`, then stamps its end.
__global__ void spin_kernel(unsigned long long ns, unsigned long long* end) {
  const unsigned long long t0 = globaltimer_ns();
  while (globaltimer_ns() - t0 < ns) {
  }
  if (threadIdx.x == 0) *end = globaltimer_ns();
}

__global__ void empty_kernel() {}

// Spins for `ns` from its block's start; stamps[0] gets the earliest block start, stamps[1] the latest block end.
// Its dynamic shared memory only takes room on the SM.
__global__ void race_kernel(unsigned long long ns, unsigned long long* stamps) {
  const unsigned long long t0 = globaltimer_ns();
  if (threadIdx.x == 0) atomicMin(stamps, t0);
  while (globaltimer_ns() - t0 < ns) {
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(stamps + 1, globaltimer_ns());
}

// A filler for the busy-GPU launch probe: each block spins for base_ns plus a pseudo-random part of spread_ns, so
// that after a few waves the blocks of every SM end at scattered times and room appears all the time; stamps[0]
// gets the earliest block start, stamps[1] the latest block end.
__global__ void filler_kernel(unsigned long long base_ns, unsigned long long spread_ns, unsigned long long* stamps) {
  const unsigned long long t0 = globaltimer_ns();
  if (threadIdx.x == 0) atomicMin(stamps, t0);
  const unsigned int h = (blockIdx.x * 2654435761u) >> 22;  // 0..1023
  const unsigned long long ns = base_ns + spread_ns * h / 1024;
  while (globaltimer_ns() - t0 < ns) {
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(stamps + 1, globaltimer_ns());
}

// Waits on the host, ending the process when the GPU takes longer than the timeout (a hung probe cannot be
// stopped otherwise).
void sync_device(double timeout_s, const char* what) {
  wait_for(nullptr, timeout_s, what);
}

unsigned long long read_back(const unsigned long long* d) {
  unsigned long long v = 0;
  GPUSCHED_CUDA(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

std::int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ClockSync sync_clocks(int rounds, double timeout_s) {
  unsigned int *flag = nullptr, *ack = nullptr;
  unsigned long long* stamps = nullptr;
  GPUSCHED_CUDA(cudaHostAlloc(&flag, sizeof *flag, cudaHostAllocMapped));
  GPUSCHED_CUDA(cudaHostAlloc(&ack, sizeof *ack, cudaHostAllocMapped));
  GPUSCHED_CUDA(cudaHostAlloc(&stamps, sizeof *stamps * static_cast<std::size_t>(rounds + 1), cudaHostAllocMapped));
  *flag = 0;
  *ack = 0;
  unsigned int *d_flag = nullptr, *d_ack = nullptr;
  unsigned long long* d_stamps = nullptr;
  GPUSCHED_CUDA(cudaHostGetDevicePointer(&d_flag, flag, 0));
  GPUSCHED_CUDA(cudaHostGetDevicePointer(&d_ack, ack, 0));
  GPUSCHED_CUDA(cudaHostGetDevicePointer(&d_stamps, stamps, 0));
  cudaStream_t s = nullptr;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  pingpong_kernel<<<1, 1, 0, s>>>(d_flag, d_ack, d_stamps, rounds);
  GPUSCHED_CUDA(cudaGetLastError());
  volatile unsigned int* vflag = flag;
  volatile unsigned int* vack = ack;
  const std::int64_t deadline = host_now_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  while (*vack != 0xffffffffu)
    if (host_now_ns() > deadline) exit_hung("clock synchronisation (kernel never started)", timeout_s);
  ClockSync best{0, INT64_MAX};
  for (int i = 1; i <= rounds; ++i) {
    const std::int64_t h1 = host_now_ns();
    *vflag = static_cast<unsigned int>(i);
    while (*vack != static_cast<unsigned int>(i))
      if (host_now_ns() > deadline) exit_hung("clock synchronisation", timeout_s);
    const std::int64_t h2 = host_now_ns();
    const auto g = static_cast<std::int64_t>(static_cast<volatile unsigned long long*>(stamps)[i]);
    if (h2 - h1 < best.rtt_ns) best = {g - (h1 + (h2 - h1) / 2), h2 - h1};
  }
  wait_for(s, timeout_s, "clock synchronisation");
  cudaStreamDestroy(s);
  cudaFreeHost(flag);
  cudaFreeHost(ack);
  cudaFreeHost(stamps);
  return best;
}

std::vector<std::int64_t> probe_launch_latency(const ClockSync& sync, int samples, double timeout_s) {
  unsigned long long* d = nullptr;
  GPUSCHED_CUDA(cudaMalloc(&d, sizeof *d));
  std::vector<std::int64_t> out;
  for (int i = 0; i < samples + 1; ++i) {
    sync_device(timeout_s, "launch-latency probe");
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // an idle GPU, as a fresh launch finds it
    const std::int64_t h = host_now_ns();
    stamp_start_kernel<<<1, 32>>>(d);
    GPUSCHED_CUDA(cudaGetLastError());
    sync_device(timeout_s, "launch-latency probe");
    if (i > 0) out.push_back(static_cast<std::int64_t>(read_back(d)) - (h + sync.offset_ns));  // first: warm-up
  }
  cudaFree(d);
  return out;
}

std::vector<std::int64_t> probe_launch_gap(int samples, double timeout_s) {
  unsigned long long* d = nullptr;
  GPUSCHED_CUDA(cudaMalloc(&d, 2 * sizeof *d));
  cudaStream_t s = nullptr;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<std::int64_t> out;
  for (int i = 0; i < samples + 1; ++i) {
    spin_kernel<<<1, 32, 0, s>>>(50'000, d);  // 50 us: the second launch is queued long before it ends
    stamp_start_kernel<<<1, 32, 0, s>>>(d + 1);
    GPUSCHED_CUDA(cudaGetLastError());
    wait_for(s, timeout_s, "launch-gap probe");
    if (i > 0) out.push_back(static_cast<std::int64_t>(read_back(d + 1)) - static_cast<std::int64_t>(read_back(d)));
  }
  cudaStreamDestroy(s);
  cudaFree(d);
  return out;
}

std::vector<std::int64_t> probe_completion_latency(int samples, double timeout_s) {
  unsigned long long* d = nullptr;
  GPUSCHED_CUDA(cudaMalloc(&d, 2 * sizeof *d));
  cudaStream_t a = nullptr, b = nullptr;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaEvent_t done = nullptr;
  GPUSCHED_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  std::vector<std::int64_t> out;
  for (int i = 0; i < samples + 1; ++i) {
    spin_kernel<<<1, 32, 0, a>>>(50'000, d);
    GPUSCHED_CUDA(cudaEventRecord(done, a));
    GPUSCHED_CUDA(cudaStreamWaitEvent(b, done, 0));
    stamp_start_kernel<<<1, 32, 0, b>>>(d + 1);
    GPUSCHED_CUDA(cudaGetLastError());
    wait_for(b, timeout_s, "completion-latency probe");
    wait_for(a, timeout_s, "completion-latency probe");
    if (i > 0) out.push_back(static_cast<std::int64_t>(read_back(d + 1)) - static_cast<std::int64_t>(read_back(d)));
  }
  cudaEventDestroy(done);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  cudaFree(d);
  return out;
}

decltype(&::cuStreamWaitValue32) stream_wait_value32() {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &p, CUDART_VERSION, cudaEnableDefault, &found);
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !p)
    throw LiveError("the driver has no cuStreamWaitValue32 (gated parts, counted parts, the grid-start probe)");
  return reinterpret_cast<decltype(&::cuStreamWaitValue32)>(p);
}

std::vector<double> probe_grid_start_interval(int grids, int samples, double timeout_s) {
  if (grids < 2) throw LiveError("grid-start probe: at least two grids");
  const auto wait_value = stream_wait_value32();
  unsigned long long* d = nullptr;
  GPUSCHED_CUDA(cudaMalloc(&d, static_cast<std::size_t>(grids) * sizeof *d));
  std::uint32_t* gate = nullptr;
  GPUSCHED_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&gate), 64, cudaHostAllocMapped));
  void* gate_device = nullptr;
  GPUSCHED_CUDA(cudaHostGetDevicePointer(&gate_device, gate, 0));
  std::vector<cudaStream_t> streams(static_cast<std::size_t>(grids), nullptr);
  for (auto& s : streams) GPUSCHED_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // The kernel is loaded before any grid waits behind the gate: a lazy load there waits for the device (and for the
  // gate) and never returns.
  stamp_start_kernel<<<1, 32, 0, streams[0]>>>(d);
  wait_for(streams[0], timeout_s, "grid-start probe");
  std::vector<unsigned long long> starts(static_cast<std::size_t>(grids));
  std::vector<double> out;
  for (int i = 0; i < samples; ++i) {
    __atomic_store_n(gate, 0u, __ATOMIC_RELEASE);
    for (int k = 0; k < grids; ++k) {
      const CUresult r = wait_value(reinterpret_cast<CUstream>(streams[static_cast<std::size_t>(k)]),
                                    reinterpret_cast<CUdeviceptr>(gate_device), 1, CU_STREAM_WAIT_VALUE_GEQ);
      if (r != CUDA_SUCCESS) throw LiveError("grid-start probe: cuStreamWaitValue32 failed");
      stamp_start_kernel<<<1, 32, 0, streams[static_cast<std::size_t>(k)]>>>(d + k);
    }
    GPUSCHED_CUDA(cudaGetLastError());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // every grid is at its gate
    __atomic_store_n(gate, 1u, __ATOMIC_RELEASE);
    for (auto s : streams) wait_for(s, timeout_s, "grid-start probe");
    GPUSCHED_CUDA(cudaMemcpy(starts.data(), d, starts.size() * sizeof *d, cudaMemcpyDeviceToHost));
    const auto [lo, hi] = std::minmax_element(starts.begin(), starts.end());
    out.push_back(static_cast<double>(*hi - *lo) / (grids - 1));
  }
  for (auto s : streams) cudaStreamDestroy(s);
  cudaFreeHost(gate);
  cudaFree(d);
  return out;
}

std::vector<RaceSample> probe_successor_race(const ClockSync& sync, int samples, std::int64_t spread_ns,
                                             double timeout_s) {
  int device = 0, sms = 0, smem_sm = 0, smem_optin = 0;
  GPUSCHED_CUDA(cudaGetDevice(&device));
  GPUSCHED_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GPUSCHED_CUDA(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  GPUSCHED_CUDA(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // More than half an SM's shared memory: one such block per SM, and two never share one.
  const int big = std::min(smem_optin, smem_sm / 2 + 8 * 1024);
  GPUSCHED_CUDA(cudaFuncSetAttribute(race_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  constexpr unsigned long long kPredecessorNs = 60'000, kFillerExtraNs = 200'000, kRacerNs = 20'000;
  constexpr std::int64_t kLaunchToStartNs = 10'000;  // about a launch's latency: P's expected start
  unsigned long long* d = nullptr;  // [P first, P last, S first, S last, C first, C last, filler first, last]
  GPUSCHED_CUDA(cudaMalloc(&d, 8 * sizeof *d));
  cudaStream_t a = nullptr, b = nullptr, f = nullptr;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&f, cudaStreamNonBlocking));
  std::vector<RaceSample> out;
  for (int i = 0; i < samples + 1; ++i) {
    const unsigned long long init[8] = {~0ull, 0, ~0ull, 0, ~0ull, 0, ~0ull, 0};
    GPUSCHED_CUDA(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
    // Steps from -spread to +spread over the samples (the warm-up, i = 0, at -spread).
    const std::int64_t delta = samples > 1 ? -spread_ns + 2 * spread_ns * std::max(0, i - 1) / (samples - 1) : 0;
    const std::int64_t h0 = host_now_ns();
    race_kernel<<<sms, 1024, big, a>>>(kPredecessorNs, d);
    race_kernel<<<sms, 1024, 0, f>>>(kPredecessorNs + kFillerExtraNs, d + 6);
    race_kernel<<<sms, 1024, big, a>>>(kRacerNs, d + 2);
    GPUSCHED_CUDA(cudaGetLastError());
    const std::int64_t call_at = h0 + kLaunchToStartNs + static_cast<std::int64_t>(kPredecessorNs) + delta;
    while (host_now_ns() < call_at) {
    }
    const std::int64_t h3 = host_now_ns();
    race_kernel<<<sms, 1024, big, b>>>(kRacerNs, d + 4);
    GPUSCHED_CUDA(cudaGetLastError());
    // The streams do not synchronise with the legacy default stream: wait for each.
    for (cudaStream_t s : {a, b, f}) wait_for(s, timeout_s, "successor-race probe");
    unsigned long long st[8];
    GPUSCHED_CUDA(cudaMemcpy(st, d, sizeof st, cudaMemcpyDeviceToHost));
    if (i == 0) continue;  // warm-up
    RaceSample r;
    const auto p_end = static_cast<std::int64_t>(st[1]);
    r.x_ns = h3 + sync.offset_ns - p_end;
    r.competitor_first = st[4] < st[2];
    r.successor_after_ns = static_cast<std::int64_t>(st[2]) - p_end;
    out.push_back(r);
  }
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  cudaStreamDestroy(f);
  cudaFree(d);
  return out;
}

BusyLaunchSamples probe_busy_launch_latency(const ClockSync& sync, int samples, bool full, double timeout_s) {
  int device = 0, sms = 0, least = 0, greatest = 0;
  GPUSCHED_CUDA(cudaGetDevice(&device));
  GPUSCHED_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GPUSCHED_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  // full: blocks of 256 threads, 8 an SM (every thread slot), 5-15 us each, 40 waves (about 400 us); the probe's
  // block fits only where one of them has left. Room: one block of 32 threads an SM for 400 us.
  constexpr unsigned long long kBaseNs = 5'000, kSpreadNs = 10'000, kRoomNs = 400'000;
  constexpr std::int64_t kCallAfterNs = 150'000;  // well inside the filler's run, its waves scattered
  const int filler_blocks = full ? sms * 8 * 40 : sms;
  unsigned long long* d = nullptr;  // [filler first start, filler last end, probe start]
  GPUSCHED_CUDA(cudaMalloc(&d, 3 * sizeof *d));
  cudaStream_t f = nullptr, p = nullptr;
  GPUSCHED_CUDA(cudaStreamCreateWithPriority(&f, cudaStreamNonBlocking, least));
  GPUSCHED_CUDA(cudaStreamCreateWithPriority(&p, cudaStreamNonBlocking, greatest));
  BusyLaunchSamples out;
  for (int i = 0; i < samples + 1; ++i) {
    const unsigned long long init[3] = {~0ull, 0, 0};
    GPUSCHED_CUDA(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
    sync_device(timeout_s, "busy launch-latency probe");
    const std::int64_t h0 = host_now_ns();
    if (full)
      filler_kernel<<<filler_blocks, 256, 0, f>>>(kBaseNs, kSpreadNs, d);
    else
      filler_kernel<<<filler_blocks, 32, 0, f>>>(kRoomNs, 0, d);
    GPUSCHED_CUDA(cudaGetLastError());
    while (host_now_ns() < h0 + kCallAfterNs) {
    }
    const std::int64_t h = host_now_ns();
    stamp_start_kernel<<<1, 32, 0, p>>>(d + 2);
    GPUSCHED_CUDA(cudaGetLastError());
    for (cudaStream_t s : {f, p}) wait_for(s, timeout_s, "busy launch-latency probe");
    unsigned long long st[3];
    GPUSCHED_CUDA(cudaMemcpy(st, d, sizeof st, cudaMemcpyDeviceToHost));
    if (i == 0) continue;  // warm-up
    // Only a probe that started while the filler ran measured a busy GPU.
    if (st[2] <= st[0] || st[2] >= st[1]) {
      ++out.not_busy;
      continue;
    }
    out.latency_ns.push_back(static_cast<std::int64_t>(st[2]) - (h + sync.offset_ns));
  }
  cudaStreamDestroy(f);
  cudaStreamDestroy(p);
  cudaFree(d);
  return out;
}

std::vector<double> probe_dispatch_ns(int threads, int small, int large, int samples, double timeout_s) {
  cudaStream_t s = nullptr;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  GPUSCHED_CUDA(cudaEventCreate(&e0));
  GPUSCHED_CUDA(cudaEventCreate(&e1));
  auto time_ms = [&](int blocks) {
    GPUSCHED_CUDA(cudaEventRecord(e0, s));
    empty_kernel<<<blocks, threads, 0, s>>>();
    GPUSCHED_CUDA(cudaGetLastError());
    GPUSCHED_CUDA(cudaEventRecord(e1, s));
    wait_for(s, timeout_s, "dispatch-rate probe");
    float ms = 0;
    GPUSCHED_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    return static_cast<double>(ms);
  };
  (void)time_ms(large);  // warm-up
  std::vector<double> out;
  for (int i = 0; i < samples; ++i) {
    const double t_small = time_ms(small), t_large = time_ms(large);
    out.push_back((t_large - t_small) * 1e6 / static_cast<double>(large - small));
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(s);
  return out;
}

}  // namespace gpusched::live
