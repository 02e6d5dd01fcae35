// The per-block device function of live/suite/sad.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_sad {

constexpr int kMb = 16;

__host__ __device__ inline int clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

struct SadBody {
  static constexpr BodyId kId = BodyId::Sad;
  struct Args {
    const unsigned char* cur = nullptr;
    const unsigned char* ref = nullptr;
    unsigned* best = nullptr;
    int width = 0, height = 0;
  };
  // No safe point: under the executor it can only be drained.
  static constexpr int kSwitchValues = -1;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    __shared__ unsigned char mb[kMb][kMb];
    __shared__ unsigned sads[kMb * kMb];
    const int mbs_x = g.width / kMb;
    const int x0 = (ctx.block % mbs_x) * kMb, y0 = (ctx.block / mbs_x) * kMb;
    const int t = static_cast<int>(threadIdx.x);
    mb[t / kMb][t % kMb] = g.cur[(y0 + t / kMb) * g.width + x0 + t % kMb];
    __syncthreads();
    const int dx = t % kMb - 8, dy = t / kMb - 8;
    unsigned sad = 0;
    for (int y = 0; y < kMb; ++y)
      for (int x = 0; x < kMb; ++x) {
        const int rx = clampi(x0 + x + dx, 0, g.width - 1), ry = clampi(y0 + y + dy, 0, g.height - 1);
        const int d = static_cast<int>(mb[y][x]) - static_cast<int>(g.ref[ry * g.width + rx]);
        sad += static_cast<unsigned>(d < 0 ? -d : d);
      }
    sads[t] = (sad << 8) | static_cast<unsigned>(t);  // SAD <= 65280 fits in 24 bits; ties to the lower index
    __syncthreads();
    for (int s = kMb * kMb / 2; s > 0; s >>= 1) {
      if (t < s && sads[t + s] < sads[t]) sads[t] = sads[t + s];
      __syncthreads();
    }
    if (t == 0) g.best[ctx.block] = sads[0];
  }
};

}  // namespace gpusched::live::suite_sad
