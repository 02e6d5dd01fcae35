// The GPU clock as the host reads it (plain C++; the kernel is in stamp.cu).
#pragma once
#include <cstdint>

namespace gpusched::live {
// %globaltimer now, read by a one-thread kernel (synchronous, on the legacy default stream).
std::uint64_t gpu_clock_now();
// Queues a one-thread kernel on `stream` (a cudaStream_t) that writes %globaltimer to `device_out`.
void stamp_gpu_clock_async(std::uint64_t* device_out, void* stream);

}  // namespace gpusched::live
