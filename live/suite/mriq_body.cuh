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
  // Safe points before each chunk of samples and every kStepSamples samples within it; a switched-out block saves its
  // two partial sums. A chunk is half a block: with a safe point only before each chunk, a block asked to stop ran on
  // for up to half its time (25-54 us on the H100, docs/validation.md "Preemption on the GPU"), where the plan's
  // switch and flush take a few. Outside the executor resume_step() and should_stop() are constants and the loops
  // compile as before.
  static constexpr int kSwitchValues = 2;
  static constexpr int kStepSamples = 32;
  static constexpr int kStepsPerChunk = kThreads / kStepSamples;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    __shared__ float4 ks[kThreads];
    const std::size_t v = static_cast<std::size_t>(ctx.block) * blockDim.x + threadIdx.x;
    const float x = g.voxels[3 * v], y = g.voxels[3 * v + 1], z = g.voxels[3 * v + 2];
    float re = ctx.restore(0, 0.0f), im = ctx.restore(1, 0.0f);
    const int resume = ctx.resume_step();
    for (int c = resume / kStepsPerChunk * kThreads; c < kSamples; c += kThreads) {
      const int chunk_step = c / kThreads * kStepsPerChunk;
      // safe point: q not written yet; the two sums (and the step) are the loop's state. A block resumed within a
      // chunk reloads its samples and starts at its step.
      const int first_j = chunk_step < resume ? (resume - chunk_step) * kStepSamples : 0;
      if (ctx.should_stop(chunk_step + first_j / kStepSamples)) {
        ctx.save(0, re);
        ctx.save(1, im);
        return;
      }
      const int k = c + static_cast<int>(threadIdx.x);
      ks[threadIdx.x] = make_float4(g.kspace[4 * k], g.kspace[4 * k + 1], g.kspace[4 * k + 2], g.kspace[4 * k + 3]);
      __syncthreads();
      for (int j = first_j; j < kThreads; ++j) {
        if (j != first_j && j % kStepSamples == 0 && ctx.should_stop(chunk_step + j / kStepSamples)) {
          ctx.save(0, re);  // every thread leaves here together: no thread waits at the barrier below
          ctx.save(1, im);
          return;
        }
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
