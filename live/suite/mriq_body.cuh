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
  // A safe point before every kStepSamples samples (16 a block); a switched-out block saves its two partial sums.
  // With a safe point only before each chunk of 256 samples, a block asked to stop ran on for up to half its time
  // (25-54 us on the H100, docs/validation.md "Preemption on the GPU"), where the plan's switch and flush take a few.
  // Contexts that never stop a block (plain and recording launches, Ctx::kCanStop false) keep the loops they had, so
  // those kernels compile exactly as the recordings were made. The variant with safe points runs each step's samples
  // as a loop of its own, unrolled as the plain loop is: with the step's test inside the sample loop it did not
  // unroll and ran 8 % slower than the plain body (docs/validation.md, "Safe points off the sample loop").
  static constexpr int kSwitchValues = 2;
  static constexpr int kStepSamples = 32;
  static constexpr int kStepsPerChunk = kThreads / kStepSamples;
  static constexpr int kSteps = kSamples / kStepSamples;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    __shared__ float4 ks[kThreads];
    const std::size_t v = static_cast<std::size_t>(ctx.block) * blockDim.x + threadIdx.x;
    const float x = g.voxels[3 * v], y = g.voxels[3 * v + 1], z = g.voxels[3 * v + 2];
    float re = ctx.restore(0, 0.0f), im = ctx.restore(1, 0.0f);
    const auto sample = [&](int j) {
      const float4 s = ks[j];
      float sn, cs;
      sincosf(6.283185307f * (s.x * x + s.y * y + s.z * z), &sn, &cs);
      re += s.w * cs;
      im += s.w * sn;
    };
    const auto load_chunk = [&](int c) {
      const int k = c + static_cast<int>(threadIdx.x);
      ks[threadIdx.x] = make_float4(g.kspace[4 * k], g.kspace[4 * k + 1], g.kspace[4 * k + 2], g.kspace[4 * k + 3]);
      __syncthreads();
    };
    if constexpr (!Ctx::kCanStop) {
      for (int c = 0; c < kSamples; c += kThreads) {
        load_chunk(c);
        for (int j = 0; j < kThreads; ++j) sample(j);
        __syncthreads();
      }
    } else {
      // A safe point before each run of kStepSamples samples. The runs are loops of their own: a test of the step
      // inside the sample loop kept it from unrolling.
      const int resume = ctx.resume_step();
      for (int step = resume; step < kSteps; ++step) {
        if (ctx.should_stop(step)) {
          ctx.save(0, re);  // every thread leaves here together: no thread waits at a barrier below
          ctx.save(1, im);
          return;
        }
        const int j0 = step % kStepsPerChunk * kStepSamples;
        if (j0 == 0 || step == resume) {  // a chunk's first run, or a block resumed within it: (re)load its samples
          if (step != resume) __syncthreads();  // every thread is done with the previous chunk's samples
          load_chunk(step / kStepsPerChunk * kThreads);
        }
#pragma unroll 2
        for (int j = j0; j < j0 + kStepSamples; ++j) sample(j);
      }
    }
    g.q[2 * v] = re;
    g.q[2 * v + 1] = im;
  }
};

}  // namespace gpusched::live::suite_mriq
