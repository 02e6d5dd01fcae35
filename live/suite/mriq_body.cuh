// The per-block device function of live/suite/mriq.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_mriq {

constexpr int kThreads = 256;
constexpr int kSamples = 512;

struct MriqBody {
  static constexpr BodyId kId = BodyId::Mriq;
  struct Args {
    const float* voxels = nullptr;  // x, y, z per voxel
    const float* kspace = nullptr;  // kx, ky, kz, phi per sample
    float* q = nullptr;             // re, im per voxel
  };
  // Safe point before each chunk of samples; a switched-out block saves its two partial sums.
  static constexpr int kSwitchValues = 2;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    __shared__ float4 ks[kThreads];
    const std::size_t v = static_cast<std::size_t>(ctx.block) * blockDim.x + threadIdx.x;
    const float x = g.voxels[3 * v], y = g.voxels[3 * v + 1], z = g.voxels[3 * v + 2];
    float re = ctx.restore(0, 0.0f), im = ctx.restore(1, 0.0f);
    for (int c = ctx.resume_step() * kThreads; c < kSamples; c += kThreads) {
      if (ctx.should_stop(c / kThreads)) {  // safe point: q not written yet; the two sums are the loop's state
        ctx.save(0, re);
        ctx.save(1, im);
        return;
      }
      const int k = c + static_cast<int>(threadIdx.x);
      ks[threadIdx.x] = make_float4(g.kspace[4 * k], g.kspace[4 * k + 1], g.kspace[4 * k + 2], g.kspace[4 * k + 3]);
      __syncthreads();
      for (int j = 0; j < kThreads; ++j) {
        const float4 s = ks[j];
        float sn, cs;
        sincosf(6.283185307f * (s.x * x + s.y * y + s.z * z), &sn, &cs);
        re += s.w * cs;
        im += s.w * sn;
      }
      __syncthreads();
    }
    g.q[2 * v] = re;
    g.q[2 * v + 1] = im;
  }
};

}  // namespace gpusched::live::suite_mriq
