// The instrumented and plain launch wrappers around a per-block device function, and a helper base class
// that implements SuiteKernel's launch, attributes and occupancy for a body type.
#pragma once
#include <cuda_runtime.h>

#include "live/cuda_check.h"
#include "live/suite/suite.h"

namespace gpusched::live {

__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Per-block context handed to a body: its logical block index and, when instrumented, where to note the
// moment the block stops being idempotent.
struct BlockContext {
  int block;
  unsigned long long* point;  // shared-memory slot, or nullptr when not instrumented
  __device__ void mark_not_idempotent() const {
    if (point && threadIdx.x == 0 && *point == 0) *point = globaltimer_ns();
  }
};

template <class Body>
__global__ void instrumented_kernel(typename Body::Args args, int offset, DeviceBlockRecord* records) {
  // Only thread 0 reads or writes `start` and `point` before the final barrier, so no barrier is needed here:
  // the instrumentation adds one timer read at each end and one barrier per block.
  __shared__ unsigned long long start, point;
  if (threadIdx.x == 0) {
    start = globaltimer_ns();
    point = 0;
  }
  Body::block(args, BlockContext{static_cast<int>(blockIdx.x) + offset, &point});
  __syncthreads();
  if (threadIdx.x == 0) {
    DeviceBlockRecord r;
    r.start_ns = start;
    r.end_ns = globaltimer_ns();
    r.point_ns = point;
    r.smid = sm_id();
    records[blockIdx.x] = r;
  }
}

// The same without the final barrier: each warp, once done, counts itself in the block's record; the last one
// stamps the end. Thread 0's writes of `start` and `point` reach it through the count (fence, atomic; atomic,
// fence). Warps leave as they finish, as in the plain kernel.
template <class Body>
__global__ void instrumented_kernel_last_warp(typename Body::Args args, int offset, DeviceBlockRecord* records) {
  __shared__ unsigned long long start, point;
  if (threadIdx.x == 0) {
    start = globaltimer_ns();
    point = 0;
  }
  Body::block(args, BlockContext{static_cast<int>(blockIdx.x) + offset, &point});
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
  Body::block(args, BlockContext{static_cast<int>(blockIdx.x) + offset,
                                 reinterpret_cast<unsigned long long*>(&rec->point_ns)});
  __syncwarp();
  if ((threadIdx.x & 31) == 0)
    reinterpret_cast<std::uint64_t*>(records + gridDim.x)[blockIdx.x * kMaxWarpsPerBlock + threadIdx.x / 32] =
        globaltimer_ns();  // the slots after the records (warp_end_slots)
}

template <class Body>
__global__ void plain_kernel(typename Body::Args args, int offset) {
  Body::block(args, BlockContext{static_cast<int>(blockIdx.x) + offset, nullptr});
}

template <class Body>
class SuiteKernelBase : public SuiteKernel {
 public:
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
  KernelAttributes attributes() const override {
    cudaFuncAttributes a{};
    GPUSCHED_CUDA(cudaFuncGetAttributes(&a, instrumented_kernel<Body>));
    return {a.numRegs, static_cast<int>(a.sharedSizeBytes), a.maxThreadsPerBlock, static_cast<int>(a.localSizeBytes)};
  }
  int occupancy(int threads, int dynamic_smem) const override {
    int n = 0;
    GPUSCHED_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, instrumented_kernel<Body>, threads,
                                                                static_cast<size_t>(dynamic_smem)));
    return n;
  }
  void allow_dynamic_smem(int bytes) override {
    GPUSCHED_CUDA(cudaFuncSetAttribute(instrumented_kernel<Body>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    GPUSCHED_CUDA(
        cudaFuncSetAttribute(instrumented_kernel_last_warp<Body>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    GPUSCHED_CUDA(
        cudaFuncSetAttribute(instrumented_kernel_per_warp<Body>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    GPUSCHED_CUDA(cudaFuncSetAttribute(plain_kernel<Body>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  }

 protected:
  typename Body::Args args_{};
};

// Device buffer owned by a suite kernel.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  void reset(std::size_t n) {
    if (ptr) cudaFree(ptr);
    ptr = nullptr;
    count = n;
    if (n) GPUSCHED_CUDA(cudaMalloc(&ptr, n * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
};

// Fills a buffer with seeded pseudo-random floats in [0, 1) on the GPU.
void fill_uniform(float* data, std::size_t n, std::uint64_t seed);
void fill_indices(unsigned* data, std::size_t n, unsigned range, std::uint64_t seed);

}  // namespace gpusched::live
