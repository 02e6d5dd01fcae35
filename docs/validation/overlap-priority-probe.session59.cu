// Throwaway (session 59): do stream priorities order grids of two green contexts that share an SM group?
// A blocker grid (one block an SM by shared memory, 20 waves of 10 us spinning blocks) in context X, which holds SM
// groups 0 and 1, on a stream of the LEAST priority; then a one-block probe in context P (group 1 only: shared with
// X), or in X itself, or on a plain stream, at the GREATEST or the least priority. Where the probe's priority orders
// it ahead of the blocker's pending blocks on the shared SMs, it starts within about one block (10 us); where not, it
// waits for the blocker's last block to be placed (about 20 waves x 10 us / 2 = 100 us on the shared group).
// nvcc -O2 -arch=sm_90 -std=c++17 overlap-priority-probe.session59.cu -lcuda -o opp; CUDA_MODULE_LOADING=EAGER ./opp
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t err_ = (x);                                                      \
    if (err_ != cudaSuccess) {                                                   \
      std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                              \
    }                                                                            \
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
__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

struct Stamps {
  unsigned long long first, last_start, end, probe;
  unsigned probe_sm;
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

// The probe takes the same shared memory, so it needs a whole SM's slot, as the blocker's blocks do.
__global__ void probe(Stamps* s) {
  extern __shared__ char pad[];
  if (threadIdx.x == 0) {
    pad[0] = 1;
    s->probe = gt();
    s->probe_sm = smid();
  }
}

int main() {
  CK(cudaSetDevice(0));
  const int smem = 150 * 1024;
  CK(cudaFuncSetAttribute(blocker, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int lo, hi;
  CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  Stamps* s;
  CK(cudaMallocManaged(&s, sizeof(Stamps)));
  CUdevice dev;
  DK(cuDeviceGet(&dev, 0));
  CUdevResource all;
  DK(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  unsigned count = 0;
  DK(cuDevSmResourceSplitByCount(nullptr, &count, &all, nullptr, 0, 2));
  std::vector<CUdevResource> groups(count);
  CUdevResource rest;
  DK(cuDevSmResourceSplitByCount(groups.data(), &count, &all, &rest, 0, 2));
  auto context_of = [&](std::vector<CUdevResource> rs) {
    CUdevResourceDesc desc;
    DK(cuDevResourceGenerateDesc(&desc, rs.data(), static_cast<unsigned>(rs.size())));
    CUgreenCtx g;
    DK(cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    return g;
  };
  const CUgreenCtx x = context_of({groups[0], groups[1]});  // the blocker's: 4 SMs
  const CUgreenCtx p = context_of({groups[1]});             // the probe's: the 2 SMs it shares with X
  auto green_stream = [&](CUgreenCtx g, int prio) {
    CUstream cs;
    DK(cuGreenCtxStreamCreate(&cs, g, CU_STREAM_NON_BLOCKING, prio));
    return reinterpret_cast<cudaStream_t>(cs);
  };
  auto plain_stream = [&](int prio) {
    cudaStream_t st;
    CK(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, prio));
    return st;
  };
  const cudaStream_t blocker_stream = green_stream(x, lo);
  struct Case {
    const char* name;
    cudaStream_t probe_stream;
    int blocker_sms;  // 4: in X; every SM: the plain-stream control
    cudaStream_t blocker_on;
  };
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const cudaStream_t plain_lo = plain_stream(lo);
  const std::vector<Case> cases{
      {"probe in P (shares group 1), greatest priority", green_stream(p, hi), 4, blocker_stream},
      {"probe in P (shares group 1), least priority", green_stream(p, lo), 4, blocker_stream},
      {"probe in X (the blocker's context), greatest priority", green_stream(x, hi), 4, blocker_stream},
      {"control: both plain streams, probe at the greatest", plain_stream(hi), sms, plain_lo},
  };
  std::printf("stream priorities least %d, greatest %d; %u groups of 2 SMs; blocker 20 waves of 10 us\n", lo, hi,
              count);
  // warm-up
  blocker<<<4, 32, smem, blocker_stream>>>(s, 1000);
  probe<<<1, 32, smem, blocker_stream>>>(s);
  CK(cudaDeviceSynchronize());
  for (const auto& c : cases) {
    for (int rep = 0; rep < 5; ++rep) {
      *s = Stamps{~0ull, 0, 0, 0, 0};
      CK(cudaDeviceSynchronize());
      blocker<<<c.blocker_sms * 20, 32, smem, c.blocker_on>>>(s, 10000);
      probe<<<1, 32, smem, c.probe_stream>>>(s);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      const double probe_us = (double)(long long)(s->probe - s->first) / 1e3;
      const double last_us = (double)(long long)(s->last_start - s->first) / 1e3;
      std::printf("%-55s rep %d: probe +%7.1f us on SM %3u, blocker last start +%7.1f: %s\n", c.name, rep, probe_us,
                  s->probe_sm, last_us,
                  probe_us < 0.5 * last_us ? "ahead of the blocker's pending blocks" : "behind them");
    }
  }
  return 0;
}
