// The per-block device function of live/suite/xtea.cu, in a header of its own so that the fused worker
// (live/executor/fused_worker.cu, docs/validation.md) runs the same body as the kernel's own launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "live/executor/fused_types.h"

namespace gpusched::live::suite_xtea {

constexpr int kThreads = 256;
constexpr int kPerThread = 4;

__host__ __device__ inline void xtea_encrypt(unsigned& v0, unsigned& v1, const unsigned key[4]) {
  unsigned sum = 0;
  const unsigned delta = 0x9E3779B9u;
  for (int i = 0; i < 32; ++i) {
    v0 += (((v1 << 4) ^ (v1 >> 5)) + v1) ^ (sum + key[sum & 3]);
    sum += delta;
    v1 += (((v0 << 4) ^ (v0 >> 5)) + v0) ^ (sum + key[(sum >> 11) & 3]);
  }
}

struct XteaBody {
  static constexpr BodyId kId = BodyId::Xtea;
  struct Args {
    const unsigned* in = nullptr;
    unsigned* out = nullptr;
  };
  // No safe point: under the executor it can only be drained.
  static constexpr int kSwitchValues = -1;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    const unsigned key[4] = {0x01234567u, 0x89abcdefu, 0xfedcba98u, 0x76543210u};
    const std::size_t base = (static_cast<std::size_t>(ctx.block) * blockDim.x + threadIdx.x) * kPerThread * 2;
    for (int r = 0; r < kPerThread; ++r) {
      unsigned v0 = g.in[base + 2 * r], v1 = g.in[base + 2 * r + 1];
      xtea_encrypt(v0, v1, key);
      g.out[base + 2 * r] = v0;
      g.out[base + 2 * r + 1] = v1;
    }
  }
};

}  // namespace gpusched::live::suite_xtea
