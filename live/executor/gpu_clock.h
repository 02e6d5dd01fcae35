// The GPU clock as the host reads it (plain C++; the kernel is in stamp.cu).
#pragma once
#include <cstdint>

namespace gpusched::live {
// %globaltimer now, read by a one-thread kernel (synchronous, on the legacy default stream).
std::uint64_t gpu_clock_now();
}  // namespace gpusched::live
