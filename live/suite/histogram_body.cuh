// The per-block device function of live/suite/histogram.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_histogram {

constexpr int kBins = 256;
constexpr int kPerBlock = 4096;

struct HistogramBody {
  static constexpr BodyId kId = BodyId::Histogram;
  struct Args {
    const unsigned* in = nullptr;
    unsigned* hist = nullptr;
  };
  // No safe point: under the executor it can only be drained.
  static constexpr int kSwitchValues = -1;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    __shared__ unsigned bins[kBins];
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) bins[i] = 0;
    __syncthreads();
    const std::size_t base = static_cast<std::size_t>(ctx.block) * kPerBlock;
    for (int i = threadIdx.x; i < kPerBlock; i += blockDim.x) atomicAdd(&bins[g.in[base + i] % kBins], 1u);
    __syncthreads();
    ctx.mark_not_idempotent();
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x)
      if (bins[i]) atomicAdd(&g.hist[i], bins[i]);
  }
};

}  // namespace gpusched::live::suite_histogram
