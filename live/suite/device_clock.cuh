// The GPU's clocks as the suite reads them: %globaltimer (ns, the same on every SM) and %smid.
#pragma once
#include <cstdint>

namespace gpusched::live {

__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

}  // namespace gpusched::live
