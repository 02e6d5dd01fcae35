// The per-block device function of live/suite/blackscholes.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_blackscholes {

constexpr int kThreads = 128;
// Options per thread, one at a time (not unrolled, so that the plain and instrumented builds compile the loop
// alike): 8 makes blocks long enough (about 8 us) that stamping them costs under 1% (with 2, blocks of about 2
// us paid 2% on an H200).
constexpr int kPerThread = 8;

__host__ __device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = 0.3989422804014327f * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}

__host__ __device__ inline void price(float s, float x, float t, float r, float v, float& call, float& put) {
  const float sqrt_t = sqrtf(t);
  const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float exp_rt = expf(-r * t);
  call = s * cnd(d1) - x * exp_rt * cnd(d2);
  put = x * exp_rt * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}

struct BlackScholesBody {
  static constexpr BodyId kId = BodyId::BlackScholes;
  struct Args {
    const float* s = nullptr;
    const float* x = nullptr;
    const float* t = nullptr;
    float* call = nullptr;
    float* put = nullptr;
  };
  // Safe point before each round of options; a switched-out block needs only the round it stopped at.
  static constexpr int kSwitchValues = 0;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    // Consecutive threads take consecutive options in each round (coalesced loads and stores).
    // ctx.threads() is blockDim.x except in the fused worker, whose blocks are wider than this kernel's: there the
    // threads past the kernel's are not active, and only keep the safe points' barriers company.
    const std::size_t base = static_cast<std::size_t>(ctx.block) * ctx.threads() * kPerThread + ctx.thread();
#pragma unroll 1
    for (int r = ctx.resume_step(); r < kPerThread; ++r) {
      if (ctx.should_stop(r)) return;  // safe point: rounds before r are written, inputs never are
      const std::size_t i = base + static_cast<std::size_t>(r) * ctx.threads();
      if (ctx.active())
        price(5.0f + 25.0f * g.s[i], 1.0f + 99.0f * g.x[i], 0.25f + 9.75f * g.t[i], 0.02f, 0.30f, g.call[i], g.put[i]);
    }
  }
};

}  // namespace gpusched::live::suite_blackscholes
