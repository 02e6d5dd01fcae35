// The per-block device function of live/suite/gather.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_gather {

constexpr int kPerThread = 16;
constexpr int kThreads = 256;

struct GatherBody {
  static constexpr BodyId kId = BodyId::Gather;
  struct Args {
    const float* table = nullptr;
    const unsigned* idx = nullptr;
    float* out = nullptr;
  };
  // No safe point: under the executor it can only be drained.
  static constexpr int kSwitchValues = -1;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    const std::size_t base = (static_cast<std::size_t>(ctx.block) * blockDim.x + threadIdx.x) * kPerThread;
#pragma unroll 4
    for (int r = 0; r < kPerThread; ++r) g.out[base + r] = 2.0f * g.table[g.idx[base + r]] + 1.0f;
  }
};

}  // namespace gpusched::live::suite_gather
