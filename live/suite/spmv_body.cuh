// The per-block device function of live/suite/spmv.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_spmv {

constexpr int kThreads = 256;

inline unsigned row_length(std::size_t r) {
  std::uint64_t x = r * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
  x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ULL;
  return 1 + static_cast<unsigned>((x ^ (x >> 29)) % 64);
}

struct SpmvBody {
  static constexpr BodyId kId = BodyId::Spmv;
  struct Args {
    const unsigned* row_ptr = nullptr;
    const unsigned* cols = nullptr;
    const float* vals = nullptr;
    const float* x = nullptr;
    float* y = nullptr;
  };
  // No safe point: under the executor it can only be drained.
  static constexpr int kSwitchValues = -1;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    const std::size_t row = static_cast<std::size_t>(ctx.block) * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (unsigned j = g.row_ptr[row]; j < g.row_ptr[row + 1]; ++j) sum += g.vals[j] * g.x[g.cols[j]];
    g.y[row] = sum;
  }
};

}  // namespace gpusched::live::suite_spmv
