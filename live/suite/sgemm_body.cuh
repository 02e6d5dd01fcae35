// The per-block device function of live/suite/sgemm.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_sgemm {

constexpr int kTile = 16;

struct SgemmBody {
  static constexpr BodyId kId = BodyId::Sgemm;
  struct Args {
    const float* a = nullptr;
    const float* b = nullptr;
    float* c = nullptr;
    int n = 0;
  };
  // Safe point before each tile; a switched-out block saves its partial sum.
  static constexpr int kSwitchValues = 1;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    __shared__ float as[kTile][kTile], bs[kTile][kTile];
    const int tiles = g.n / kTile;
    const int by = ctx.block / tiles, bx = ctx.block % tiles;
    const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
    const int row = by * kTile + ty, col = bx * kTile + tx;
    float acc = ctx.restore(0, 0.0f);
    for (int t = ctx.resume_step(); t < tiles; ++t) {
      if (ctx.should_stop(t)) {  // safe point: C not written yet; the partial sum is the loop's state
        ctx.save(0, acc);
        return;
      }
      as[ty][tx] = g.a[row * g.n + t * kTile + tx];
      bs[ty][tx] = g.b[(t * kTile + ty) * g.n + col];
      __syncthreads();
#pragma unroll
      for (int k = 0; k < kTile; ++k) acc += as[ty][k] * bs[k][tx];
      __syncthreads();
    }
    g.c[row * g.n + col] = acc;  // overwrites only C, which it never reads: idempotent throughout
  }
};

}  // namespace gpusched::live::suite_sgemm
