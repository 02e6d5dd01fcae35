// A one-thread kernel that reads %globaltimer: the executor's time origin on the GPU clock.
#include "live/cuda_check.h"
#include "live/executor/gpu_clock.h"
#include "live/suite/device_clock.cuh"

namespace gpusched::live {
namespace {
__global__ void stamp_kernel(unsigned long long* out) { *out = globaltimer_ns(); }
}  // namespace

std::uint64_t gpu_clock_now() {
  unsigned long long* d = nullptr;
  GPUSCHED_CUDA(cudaMalloc(&d, sizeof *d));
  stamp_kernel<<<1, 1>>>(d);
  const cudaError_t launched = cudaGetLastError();
  unsigned long long t = 0;
  const cudaError_t copied = launched == cudaSuccess ? cudaMemcpy(&t, d, sizeof t, cudaMemcpyDeviceToHost) : launched;
  cudaFree(d);
  GPUSCHED_CUDA(copied);
  return t;
}

void stamp_gpu_clock_async(std::uint64_t* device_out, void* stream) {
  stamp_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(reinterpret_cast<unsigned long long*>(device_out));
  GPUSCHED_CUDA(cudaGetLastError());
}

}  // namespace gpusched::live
