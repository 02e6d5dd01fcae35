// The instrumented and plain launch wrappers around a per-block device function, and a helper base class
// that implements SuiteKernel's launch, attributes and occupancy for a body type.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "live/cuda_check.h"
#include "live/suite/device_clock.cuh"
#include "live/suite/suite.h"

namespace gpusched::live {

// Per-block context handed to a body: its logical block index and, when instrumented, where to note the
// moment the block stops being idempotent.
struct BlockContext {
  int block;
  unsigned long long* point;  // shared-memory slot, or nullptr when not instrumented
  __device__ void mark_not_idempotent() const {
    if (point && threadIdx.x == 0 && *point == 0) *point = globaltimer_ns();
  }
  // Outside the executor a block is never stopped (ExecContext): constants, so these builds are unchanged.
  __device__ static constexpr int resume_step() { return 0; }
  __device__ static constexpr float restore(int, float fresh) { return fresh; }
  static constexpr bool kCanStop = false;  // should_stop() is always false: bodies may keep their plain loops
  __device__ static constexpr bool should_stop(int) { return false; }
  __device__ static constexpr void save(int, float) {}
  // The block's threads: all of them are the kernel's (the fused worker's blocks may be wider: ExecContext).
  __device__ static unsigned thread() { return threadIdx.x; }
  __device__ static unsigned threads() { return blockDim.x; }
  __device__ static constexpr bool active() { return true; }
};

}  // namespace gpusched::live

#include "live/executor/exec_device.cuh"

namespace gpusched::live {

// Thread 0's record of a block that started at `start_lo` (the low 32 bits of its start; the high bits are the end's,
// less one if the low bits wrapped in between: blocks are far shorter than 2^32 ns = 4.3 s).
__device__ __forceinline__ void record_block(DeviceBlockRecord* record, unsigned start_lo, unsigned long long point) {
  DeviceBlockRecord r;
  r.end_ns = globaltimer_ns();
  const unsigned long long high = (r.end_ns >> 32) - (start_lo > static_cast<unsigned>(r.end_ns) ? 1 : 0);
  r.start_ns = high << 32 | start_lo;
  r.point_ns = point;
  r.smid = sm_id();
  *record = r;
}

// One block of instrumented_kernel, inlined into it and into counted_kernel so that both compile the same body.
// Only thread 0 reads or writes `start` and `point` before the final barrier, so no barrier is needed here: the
// instrumentation adds one timer read at each end and one barrier per block. The start stays in thread 0's register
// until the end: storing it at once would stall warp 0 for the timer read's latency before its first load, which a
// latency-bound kernel (the stencil) pays on every block. Only its low 32 bits are kept (one register, so that the
// body keeps the plain kernel's register count): the high bits are the end's, less one if the low bits wrapped in
// between (blocks are far shorter than 2^32 ns = 4.3 s).
template <class Body>
__device__ __forceinline__ void run_instrumented_block(const typename Body::Args& args, int offset,
                                                       DeviceBlockRecord* records) {
  __shared__ unsigned long long point;
  unsigned start_lo = 0;
  if (threadIdx.x == 0) {
    start_lo = static_cast<unsigned>(globaltimer_ns());
    point = 0;
  }
  Body::block(args, BlockContext{static_cast<int>(blockIdx.x) + offset, &point});
  __syncthreads();
  if (threadIdx.x == 0) record_block(records + blockIdx.x, start_lo, point);
}

template <class Body>
__global__ void instrumented_kernel(typename Body::Args args, int offset, DeviceBlockRecord* records) {
  run_instrumented_block<Body>(args, offset, records);
}

// instrumented_kernel's blocks, each counted in `done` once it has stamped its end (count_block_done): a part of a
// launch another one waits for (run_native).
template <class Body>
__global__ void counted_kernel(typename Body::Args args, int offset, DeviceBlockRecord* records, std::uint32_t* done) {
  run_instrumented_block<Body>(args, offset, records);
  count_block_done(done);
}

// The same without the final barrier: each warp, once done, counts itself in the block's record; the last one
// stamps the end. Thread 0's writes of `start` and `point` reach it through the count (fence, atomic; atomic,
// fence). Warps leave as they finish, as in the plain kernel.
template <class Body>
__global__ void instrumented_kernel_last_warp(typename Body::Args args, int offset, DeviceBlockRecord* records) {
  __shared__ unsigned long long start, point;
  if (threadIdx.x == 0) point = 0;
  // Thread 0 stores its start after the body (not before: see instrumented_kernel); the last warp reads it.
  const unsigned long long my_start = threadIdx.x == 0 ? globaltimer_ns() : 0;
  Body::block(args, BlockContext{static_cast<int>(blockIdx.x) + offset, &point});
  if (threadIdx.x == 0) start = my_start;
  __syncwarp();
  if ((threadIdx.x & 31) == 0) {
    const unsigned warps = (blockDim.x + 31) / 32;
    __threadfence_block();
    const unsigned done = atomicAdd(&records[blockIdx.x].warps_done, 1u);
    if (done == warps - 1) {
      __threadfence_block();
      DeviceBlockRecord r;
      r.start_ns = start;
      r.end_ns = globaltimer_ns();
      r.point_ns = point;
      r.smid = sm_id();
      r.warps_done = warps;
      records[blockIdx.x] = r;
    }
  }
}

// Every warp stamps its own end; nothing waits for anything. The block's start, SM and idempotence point go
// straight to its record (thread 0), the warps' ends to their slots after the records.
template <class Body>
__global__ void instrumented_kernel_per_warp(typename Body::Args args, int offset, DeviceBlockRecord* records) {
  DeviceBlockRecord* rec = records + blockIdx.x;
  if (threadIdx.x == 0) {
    rec->start_ns = globaltimer_ns();
    rec->smid = sm_id();
  }
  Body::block(
      args, BlockContext{static_cast<int>(blockIdx.x) + offset, reinterpret_cast<unsigned long long*>(&rec->point_ns)});
  __syncwarp();
  if ((threadIdx.x & 31) == 0)
    reinterpret_cast<std::uint64_t*>(records + gridDim.x)[blockIdx.x * kMaxWarpsPerBlock + threadIdx.x / 32] =
        globaltimer_ns();  // the slots after the records (warp_end_slots)
}

// Workers held to `cap` an SM (SuiteKernel::launch_capped): thread 0 counts the worker in on its SM; an admitted
// worker takes blocks of the range in turn, each stamped as instrumented_kernel stamps one.
template <class Body>
__global__ void capped_kernel(typename Body::Args args, int offset, int blocks, int cap, int sm_count,
                              unsigned* counters, DeviceBlockRecord* records, std::uint32_t* done) {
  __shared__ unsigned long long point;
  __shared__ int next;
  if (threadIdx.x == 0) {
    const unsigned sm = sm_id();
    next = sm < static_cast<unsigned>(sm_count) && atomicAdd(&counters[sm], 1u) < static_cast<unsigned>(cap) ? 0 : -1;
  }
  __syncthreads();
  if (next < 0) return;
  for (;;) {
    unsigned start_lo = 0;
    if (threadIdx.x == 0) {
      next = static_cast<int>(atomicAdd(&counters[sm_count], 1u));
      start_lo = static_cast<unsigned>(globaltimer_ns());
      point = 0;
    }
    __syncthreads();
    const int b = next;
    if (b >= blocks) return;
    Body::block(args, BlockContext{b + offset, &point});
    __syncthreads();
    if (threadIdx.x == 0) record_block(records + b, start_lo, point);
    // Every thread has read `next` and the body's shared memory is free again; with `done`, the block is counted.
    if (done) {
      count_block_done(done);
    } else {
      __syncthreads();
    }
  }
}

template <class Body>
__global__ void plain_kernel(typename Body::Args args, int offset) {
  Body::block(args, BlockContext{static_cast<int>(blockIdx.x) + offset, nullptr});
}

// Raises a kernel's dynamic shared-memory limit to `bytes`, or to what its static shared memory leaves.
template <class Kernel>
void allow_dynamic_smem_of(Kernel kernel, int bytes) {
  cudaFuncAttributes a{};
  GPUSCHED_CUDA(cudaFuncGetAttributes(&a, kernel));
  int device = 0, optin = 0;
  GPUSCHED_CUDA(cudaGetDevice(&device));
  GPUSCHED_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const int limit = std::min(bytes, optin - static_cast<int>(a.sharedSizeBytes));
  GPUSCHED_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
}

template <class Body>
class SuiteKernelBase : public SuiteKernel {
 public:
  int switch_values_per_thread() const override { return Body::kSwitchValues; }
  BodyArgs fused_args() const override {
    static_assert(sizeof(typename Body::Args) <= BodyArgs::kBytes, "BodyArgs::kBytes is too small for the body");
    static_assert(std::is_trivially_copyable_v<typename Body::Args>);
    BodyArgs a;
    std::memcpy(a.bytes, &args_, sizeof args_);
    a.body = static_cast<std::int32_t>(Body::kId);
    return a;
  }
  void launch(const LaunchShape& s, int offset, DeviceBlockRecord* records, void* stream) override {
    auto st = static_cast<cudaStream_t>(stream);
    if (records && stamping_ == Stamping::PerWarp)
      instrumented_kernel_per_warp<Body><<<s.blocks, s.threads, s.dynamic_smem, st>>>(args_, offset, records);
    else if (records && stamping_ == Stamping::LastWarp)
      instrumented_kernel_last_warp<Body><<<s.blocks, s.threads, s.dynamic_smem, st>>>(args_, offset, records);
    else if (records)
      instrumented_kernel<Body><<<s.blocks, s.threads, s.dynamic_smem, st>>>(args_, offset, records);
    else
      plain_kernel<Body><<<s.blocks, s.threads, s.dynamic_smem, st>>>(args_, offset);
    GPUSCHED_CUDA(cudaGetLastError());
  }
  void launch_counted(const LaunchShape& s, int offset, DeviceBlockRecord* records, std::uint32_t* done,
                      void* stream) override {
    counted_kernel<Body>
        <<<s.blocks, s.threads, s.dynamic_smem, static_cast<cudaStream_t>(stream)>>>(args_, offset, records, done);
    GPUSCHED_CUDA(cudaGetLastError());
  }
  void launch_capped(const LaunchShape& s, int offset, int workers, int cap, int sm_count, unsigned* counters,
                     DeviceBlockRecord* records, std::uint32_t* done, void* stream) override {
    capped_kernel<Body><<<workers, s.threads, s.dynamic_smem, static_cast<cudaStream_t>(stream)>>>(
        args_, offset, s.blocks, cap, sm_count, counters, records, done);
    GPUSCHED_CUDA(cudaGetLastError());
  }
  void execute(const ExecQueues& q, int workers, int dynamic_smem, void* stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    if (q.hardware_placed)
      hardware_placed_kernel<Body><<<workers, q.threads, dynamic_smem, st>>>(args_, q);
    else if (q.claims || q.stop_kind != static_cast<int>(EntryKind::Run))
      executor_kernel<Body, true><<<workers, q.threads, dynamic_smem, st>>>(args_, q);
    else
      executor_kernel<Body, false><<<workers, q.threads, dynamic_smem, st>>>(args_, q);
    GPUSCHED_CUDA(cudaGetLastError());
  }
  void execute_part(const ExecQueues& q, int workers, int dynamic_smem, void* stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    if (q.claims)
      part_pieces_kernel<Body, true><<<workers, q.threads, dynamic_smem, st>>>(args_, q);
    else
      part_pieces_kernel<Body, false><<<workers, q.threads, dynamic_smem, st>>>(args_, q);
    GPUSCHED_CUDA(cudaGetLastError());
  }
  KernelAttributes executor_attributes() const override {
    cudaFuncAttributes a{};
    GPUSCHED_CUDA(cudaFuncGetAttributes(&a, executor_kernel<Body, true>));
    return {a.numRegs, static_cast<int>(a.sharedSizeBytes), a.maxThreadsPerBlock, static_cast<int>(a.localSizeBytes)};
  }
  int executor_occupancy(int threads, int dynamic_smem, bool stops) const override {
    return blocks_per_sm(stops ? executor_kernel<Body, true> : executor_kernel<Body, false>, threads, dynamic_smem);
  }
  int hardware_placed_occupancy(int threads, int dynamic_smem) const override {
    return blocks_per_sm(hardware_placed_kernel<Body>, threads, dynamic_smem);
  }
  int part_occupancy(int threads, int dynamic_smem, bool stops) const override {
    return blocks_per_sm(stops ? part_pieces_kernel<Body, true> : part_pieces_kernel<Body, false>, threads,
                         dynamic_smem);
  }
  KernelAttributes attributes() const override {
    cudaFuncAttributes a{};
    GPUSCHED_CUDA(cudaFuncGetAttributes(&a, instrumented_kernel<Body>));
    return {a.numRegs, static_cast<int>(a.sharedSizeBytes), a.maxThreadsPerBlock, static_cast<int>(a.localSizeBytes)};
  }
  int occupancy(int threads, int dynamic_smem) const override {
    return blocks_per_sm(instrumented_kernel<Body>, threads, dynamic_smem);
  }
  void allow_dynamic_smem(int bytes) override {
    // `bytes` is what the instrumented kernel can take; a variant with more static shared memory gets what is
    // left for it (the recorder pads each launch for the variant it runs with the same dynamic size, which
    // stays within every variant's limit at the residencies it asks for).
    allow_dynamic_smem_of(instrumented_kernel<Body>, bytes);
    allow_dynamic_smem_of(instrumented_kernel_last_warp<Body>, bytes);
    allow_dynamic_smem_of(instrumented_kernel_per_warp<Body>, bytes);
    allow_dynamic_smem_of(capped_kernel<Body>, bytes);
    allow_dynamic_smem_of(plain_kernel<Body>, bytes);
    allow_dynamic_smem_of(executor_kernel<Body, true>, bytes);
    allow_dynamic_smem_of(executor_kernel<Body, false>, bytes);
    allow_dynamic_smem_of(hardware_placed_kernel<Body>, bytes);
    allow_dynamic_smem_of(part_pieces_kernel<Body, true>, bytes);
    allow_dynamic_smem_of(part_pieces_kernel<Body, false>, bytes);
  }
  void prefer_shared_carveout(int percent) override {
    const auto set = [percent](auto kernel) {
      GPUSCHED_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    };
    set(instrumented_kernel<Body>);
    set(instrumented_kernel_last_warp<Body>);
    set(instrumented_kernel_per_warp<Body>);
    set(capped_kernel<Body>);
    set(counted_kernel<Body>);
    set(plain_kernel<Body>);
    set(executor_kernel<Body, true>);
    set(executor_kernel<Body, false>);
    set(hardware_placed_kernel<Body>);
    set(part_pieces_kernel<Body, true>);
    set(part_pieces_kernel<Body, false>);
  }

  // Blocks of `kernel` an SM holds at this block size and dynamic shared memory
  // (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
  template <class Kernel>
  static int blocks_per_sm(Kernel kernel, int threads, int dynamic_smem) {
    int n = 0;
    GPUSCHED_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, static_cast<size_t>(dynamic_smem)));
    return n;
  }

 protected:
  typename Body::Args args_{};
};

// Device buffer owned by a suite kernel.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  // Keeps the allocation when the size is unchanged: a kernel set up again for fresh inputs (the recorder does,
  // between its warm-up and recorded launches) then runs on the memory its warm-up touched, as every later launch
  // of a run does. A fresh allocation made stencil-s2's recorded launch 12 % slower than any later one
  // (docs/formats.md, "Recorded launches run warm").
  void reset(std::size_t n) {
    if (ptr && n == count) return;
    if (ptr) cudaFree(ptr);
    ptr = nullptr;
    count = n;
    if (n) GPUSCHED_CUDA(cudaMalloc(&ptr, n * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
};

template <class T>
StateBuffer state_of(const DeviceBuffer<T>& b, bool written) {
  return {b.ptr, b.count * sizeof(T), written};
}

// Fills a buffer with seeded pseudo-random floats in [0, 1) on the GPU.
void fill_uniform(float* data, std::size_t n, std::uint64_t seed);
void fill_indices(unsigned* data, std::size_t n, unsigned range, std::uint64_t seed);

}  // namespace gpusched::live
