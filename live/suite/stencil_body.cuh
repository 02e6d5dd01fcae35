// The per-block device function of live/suite/stencil.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_stencil {

constexpr int kTx = 32, kTy = 8, kTz = 32;

struct StencilBody {
  static constexpr BodyId kId = BodyId::Stencil;
  struct Args {
    const float* in = nullptr;
    float* out = nullptr;
    int n = 0;
  };
  // Safe point before each plane; a switched-out block needs only the plane it stopped at.
  static constexpr int kSwitchValues = 0;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    const int tiles_x = g.n / kTx, tiles_y = g.n / kTy;
    const int bx = ctx.block % tiles_x, by = (ctx.block / tiles_x) % tiles_y, bz = ctx.block / (tiles_x * tiles_y);
    const int x = bx * kTx + static_cast<int>(threadIdx.x) % kTx, y = by * kTy + static_cast<int>(threadIdx.x) / kTx;
    const std::size_t n = static_cast<std::size_t>(g.n), plane = n * n;
#pragma unroll 1
    for (int z = bz * kTz + ctx.resume_step(); z < (bz + 1) * kTz; ++z) {
      if (ctx.should_stop(z - bz * kTz)) return;  // safe point: planes before z are written, `in` is never written
      const std::size_t i = static_cast<std::size_t>(z) * plane + static_cast<std::size_t>(y) * n + x;
      if (x == 0 || y == 0 || z == 0 || x == g.n - 1 || y == g.n - 1 || z == g.n - 1) {
        g.out[i] = g.in[i];
        continue;
      }
      // All seven loads first, then the arithmetic: one memory round trip per point whatever the compiler's
      // instruction order (without this, plain and instrumented builds scheduled the loads differently and
      // differed by 8% on an H100).
      const float c = __ldg(g.in + i), xm = __ldg(g.in + i - 1), xp = __ldg(g.in + i + 1), ym = __ldg(g.in + i - n),
                  yp = __ldg(g.in + i + n), zm = __ldg(g.in + i - plane), zp = __ldg(g.in + i + plane);
      g.out[i] = 0.4f * c + 0.1f * (((xm + xp) + (ym + yp)) + (zm + zp));
    }
  }
};

}  // namespace gpusched::live::suite_stencil
