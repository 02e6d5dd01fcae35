// Throwaway: which streams share a hardware queue (connection), and what sharing one costs.
// A blocker grid (one block an SM by shared memory, W waves of spinning blocks) on stream 0, then a one-block probe on
// stream k: the probe's start after the blocker's first block says whether the two share a queue (it waits for the
// blocker's last block to be dispatched, or for its end).
#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t err_ = (x);                                                              \
    if (err_ != cudaSuccess) {                                                         \
      std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(err_));      \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)
#define DK(x)                                                   \
  do {                                                          \
    CUresult r = (x);                                           \
    if (r != CUDA_SUCCESS) {                                    \
      std::printf("driver %s at %d: %d\n", #x, __LINE__, (int)r); \
      std::exit(1);                                             \
    }                                                           \
  } while (0)

__device__ __forceinline__ unsigned long long gt() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct Stamps {
  unsigned long long first, last_start, end, probe;
};

__global__ void blocker(Stamps* s, unsigned long long spin) {
  extern __shared__ char pad[];
  if (threadIdx.x == 0) {
    const unsigned long long t0 = gt();
    pad[0] = 1;
    atomicMin(&s->first, t0);
    atomicMax(&s->last_start, t0);
    while (gt() - t0 < spin) {
    }
    atomicMax(&s->end, gt());
  }
}

__global__ void probe(Stamps* s) {
  if (threadIdx.x == 0) s->probe = gt();
}

int main(int argc, char** argv) {
  const int nstreams = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::string mode = argc > 2 ? argv[2] : "plain";  // plain | prio | green | mixed | wait
  CK(cudaSetDevice(0));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int smem = 150 * 1024;
  CK(cudaFuncSetAttribute(blocker, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int waves = 20;
  const unsigned long long spin = 10000;
  Stamps* s;
  CK(cudaMallocManaged(&s, sizeof(Stamps)));
  int lo, hi;
  CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));

  // Green context of the first two SMs' group, for the `green` and `mixed` modes.
  CUgreenCtx g = nullptr, g0 = nullptr;
  if (mode == "green" || mode == "mixed" || mode == "disjoint" || mode == "disjoint-plain") {
    CUdevice dev;
    DK(cuDeviceGet(&dev, 0));
    CUdevResource all;
    DK(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
    unsigned count = 0;
    DK(cuDevSmResourceSplitByCount(nullptr, &count, &all, nullptr, 0, 2));
    std::vector<CUdevResource> groups(count);
    CUdevResource rest;
    DK(cuDevSmResourceSplitByCount(groups.data(), &count, &all, &rest, 0, 2));
    CUdevResourceDesc desc;
    DK(cuDevResourceGenerateDesc(&desc, &groups[1], 1));
    DK(cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CUdevResourceDesc desc0;
    DK(cuDevResourceGenerateDesc(&desc0, &groups[0], 1));
    DK(cuGreenCtxCreate(&g0, desc0, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  }
  std::vector<cudaStream_t> st(nstreams);
  std::vector<const char*> kind(nstreams);
  for (int k = 0; k < nstreams; ++k) {
    bool green = mode == "green" || mode == "disjoint" ? k > 0 : mode == "mixed" ? (k % 2 == 1) : false;
    if ((mode == "disjoint" || mode == "disjoint-plain") && k == 0) {  // the blocker alone on the first group
      CUstream cs;
      DK(cuGreenCtxStreamCreate(&cs, g0, CU_STREAM_NON_BLOCKING, 0));
      st[k] = reinterpret_cast<cudaStream_t>(cs);
      kind[k] = "green0";
      continue;
    }
    int prio = mode == "prio" ? (k % 2 ? hi : lo) : 0;
    if (green) {
      CUstream cs;
      DK(cuGreenCtxStreamCreate(&cs, g, CU_STREAM_NON_BLOCKING, prio));
      st[k] = reinterpret_cast<cudaStream_t>(cs);
      kind[k] = "green";
    } else {
      CK(cudaStreamCreateWithPriority(&st[k], cudaStreamNonBlocking, prio));
      kind[k] = prio == hi && hi != lo && mode == "prio" ? "prio-hi" : "plain";
    }
  }
  const char* env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  std::printf("mode %s, %d streams, CUDA_DEVICE_MAX_CONNECTIONS=%s, %d SMs, blocker %d waves of %llu ns\n",
              mode.c_str(), nstreams, env ? env : "(unset)", p.multiProcessorCount, waves, spin);
  // warm-up
  blocker<<<p.multiProcessorCount, 32, smem, st[0]>>>(s, 1000);
  probe<<<1, 32, 0, st[0]>>>(s);
  CK(cudaDeviceSynchronize());
  if (mode == "wait") {  // a pending stream wait on stream 0: does the probe on stream k run before it is released?
    unsigned* flag;
    CK(cudaHostAlloc(&flag, 64, cudaHostAllocMapped));
    void* dflag;
    CK(cudaHostGetDevicePointer(&dflag, flag, 0));
    for (int k = 1; k < nstreams; ++k) {
      *flag = 0;
      s->probe = 0;
      DK(cuStreamWaitValue32(reinterpret_cast<CUstream>(st[0]), reinterpret_cast<CUdeviceptr>(dflag), 1,
                             CU_STREAM_WAIT_VALUE_GEQ));
      probe<<<1, 32, 0, st[k]>>>(s);
      unsigned long long before = 0;
      // 2 ms of host time, then see whether the probe ran
      cudaEvent_t e;
      CK(cudaEventCreate(&e));
      CK(cudaEventRecord(e, st[k]));
      const auto t0 = std::chrono::steady_clock::now();
      while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2)) {
      }
      const bool ran = cudaEventQuery(e) == cudaSuccess;
      (void)before;
      __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
      CK(cudaDeviceSynchronize());
      CK(cudaEventDestroy(e));
      std::printf("stream %2d: probe %s while stream 0 waited\n", k, ran ? "ran" : "was held");
    }
    return 0;
  }
  for (int k = 1; k < nstreams; ++k) {
    for (int rep = 0; rep < 3; ++rep) {
      *s = Stamps{~0ull, 0, 0, 0};
      CK(cudaDeviceSynchronize());
      const int blocker_sms = (mode == "disjoint" || mode == "disjoint-plain") ? 2 : p.multiProcessorCount;
      blocker<<<blocker_sms * waves, 32, smem, st[0]>>>(s, spin);
      probe<<<1, 32, 0, st[k]>>>(s);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      const double probe_us = (double)(long long)(s->probe - s->first) / 1e3;
      const double last_us = (double)(long long)(s->last_start - s->first) / 1e3;
      const double end_us = (double)(long long)(s->end - s->first) / 1e3;
      const char* verdict = probe_us < 0.3 * last_us ? "own queue" : probe_us < last_us + 5 ? "after dispatch" : "after end";
      std::printf("stream %2d %-7s rep %d: probe +%8.1f us, blocker last start +%8.1f, end +%8.1f: %s\n", k, kind[k],
                  rep, probe_us, last_us, end_us, verdict);
    }
  }
  return 0;
}
