// Throwaway: how fast the GPU starts grids that are all released at once (a gate in mapped host memory), by where
// their streams are: plain, one green context, a green context each (round-robin over the device's groups).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                     \
  do {                                                                            \
    cudaError_t err_ = (x);                                                       \
    if (err_ != cudaSuccess) {                                                    \
      std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)
#define DK(x)                                                     \
  do {                                                            \
    CUresult r = (x);                                             \
    if (r != CUDA_SUCCESS) {                                      \
      std::printf("driver %s at %d: %d\n", #x, __LINE__, (int)r); \
      std::exit(1);                                               \
    }                                                             \
  } while (0)

__device__ __forceinline__ unsigned long long gt() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void tiny(unsigned long long* start, unsigned long long spin) {
  const unsigned long long t0 = gt();
  if (threadIdx.x == 0) atomicMin(start, t0);
  while (gt() - t0 < spin) {
  }
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const std::string mode = argv[1];  // plain | onectx | eachctx
  const int grids = std::atoi(argv[2]);
  const int blocks = std::atoi(argv[3]);
  const bool ranked = argc > 4 && std::string(argv[4]) == "ranked";  // a gate rank each, raised one by one at once
  std::printf("start\n");
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  std::printf("context\n");
  CUdevice dev;
  DK(cuDeviceGet(&dev, 0));
  std::vector<CUgreenCtx> ctx;
  if (mode != "plain") {
    CUdevResource all;
    DK(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
    unsigned count = 0;
    DK(cuDevSmResourceSplitByCount(nullptr, &count, &all, nullptr, 0, 2));
    std::vector<CUdevResource> groups(count);
    CUdevResource rest;
    DK(cuDevSmResourceSplitByCount(groups.data(), &count, &all, &rest, 0, 2));
    const unsigned n = mode == "onectx" ? 1 : count;
    for (unsigned g = 0; g < n; ++g) {
      CUdevResourceDesc desc;
      DK(cuDevResourceGenerateDesc(&desc, &groups[g], 1));
      CUgreenCtx c;
      DK(cuGreenCtxCreate(&c, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
      ctx.push_back(c);
    }
  }
  std::vector<cudaStream_t> st(grids);
  for (int k = 0; k < grids; ++k) {
    if (ctx.empty()) {
      CK(cudaStreamCreateWithPriority(&st[k], cudaStreamNonBlocking, 0));
    } else {
      CUstream cs;
      DK(cuGreenCtxStreamCreate(&cs, ctx[k % ctx.size()], CU_STREAM_NON_BLOCKING, 0));
      st[k] = reinterpret_cast<cudaStream_t>(cs);
    }
  }
  unsigned long long* starts;
  CK(cudaMalloc(&starts, grids * sizeof(unsigned long long)));
  unsigned* gate;
  CK(cudaHostAlloc(&gate, 64, cudaHostAllocMapped));
  void* dgate;
  CK(cudaHostGetDevicePointer(&dgate, gate, 0));
  std::vector<unsigned long long> h(grids);
  std::printf("set up\n");
  for (int rep = 0; rep < 3; ++rep) {
    CK(cudaMemset(starts, 0xff, grids * sizeof(unsigned long long)));
    CK(cudaDeviceSynchronize());
    __atomic_store_n(gate, 0u, __ATOMIC_RELEASE);
    for (int k = 0; k < grids; ++k) {
      DK(cuStreamWaitValue32(reinterpret_cast<CUstream>(st[k]), reinterpret_cast<CUdeviceptr>(dgate),
                             ranked ? k + 1 : 1, CU_STREAM_WAIT_VALUE_GEQ));
      tiny<<<blocks, 64, 0, st[k]>>>(starts + k, 2000);
    }
    CK(cudaGetLastError());
    std::printf("enqueued\n");
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20)) {
    }
    if (ranked)
      for (int k = 0; k < grids; ++k) __atomic_store_n(gate, unsigned(k + 1), __ATOMIC_RELEASE);
    else
      __atomic_store_n(gate, 1u, __ATOMIC_RELEASE);
    std::printf("gate raised\n");
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), starts, grids * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::sort(h.begin(), h.end());
    const double span = (h.back() - h.front()) / 1e3;
    std::vector<double> gaps;
    for (int k = 1; k < grids; ++k) gaps.push_back((h[k] - h[k - 1]) / 1e3);
    std::sort(gaps.begin(), gaps.end());
    std::printf("%-8s %4d grids of %4d blocks%s rep %d: first to last start %8.1f us (%.2f us a grid), gap median %.2f p90 %.2f\n",
                mode.c_str(), grids, blocks, ranked ? " ranked" : "", rep, span, span / (grids - 1),
                gaps[gaps.size() / 2], gaps[gaps.size() * 9 / 10]);
  }
  return 0;
}
