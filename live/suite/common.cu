#include <cstdint>
#include <stdexcept>
#include <string>

#include "live/suite/launcher.cuh"

namespace gpusched::live {
namespace {

__device__ __forceinline__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

__global__ void fill_uniform_kernel(float* data, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    data[i] = static_cast<float>(mix(seed ^ (i * 0x632be59bd9b4e019ULL)) >> 40) * (1.0f / 16777216.0f);
}

__global__ void fill_indices_kernel(unsigned* data, std::size_t n, unsigned range, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    data[i] = static_cast<unsigned>(mix(seed ^ (i * 0x632be59bd9b4e019ULL)) % range);
}

}  // namespace

void fill_uniform(float* data, std::size_t n, std::uint64_t seed) {
  fill_uniform_kernel<<<1024, 256>>>(data, n, seed);
  GPUSCHED_CUDA(cudaGetLastError());
}

void fill_indices(unsigned* data, std::size_t n, unsigned range, std::uint64_t seed) {
  fill_indices_kernel<<<1024, 256>>>(data, n, range, seed);
  GPUSCHED_CUDA(cudaGetLastError());
}

}  // namespace gpusched::live

namespace gpusched::live {
namespace {

// Reads %globaltimer back to back and keeps the smallest step it sees between two different readings.
__global__ void timer_steps_kernel(unsigned long long* out, int reads) {
  unsigned long long prev = globaltimer_ns(), best = ~0ull;
  for (int i = 0; i < reads; ++i) {
    const unsigned long long t = globaltimer_ns();
    if (t != prev) {
      if (t - prev < best) best = t - prev;
      prev = t;
    }
  }
  *out = best;
}

__global__ void hang_kernel(volatile int* never_set) {
  while (*never_set == 0) {
  }
}

__global__ void illegal_write_kernel() {
  // Far outside any allocation: the SM raises an illegal-address fault.
  *reinterpret_cast<volatile int*>(static_cast<std::uintptr_t>(0x10)) = 1;
}

}  // namespace

void check_fault_kind(const std::string& kind) {
  if (kind != "hang" && kind != "error")
    throw std::invalid_argument("--inject-fault expects hang or error, found \"" + kind + "\"");
}

void launch_fault_kernel(const std::string& kind, void* stream) {
  check_fault_kind(kind);
  auto st = static_cast<cudaStream_t>(stream);
  if (kind == "hang") {
    static int* flag = nullptr;  // lives until the process ends: the kernel never stops reading it
    if (!flag) {
      GPUSCHED_CUDA(cudaMalloc(&flag, sizeof(int)));
      GPUSCHED_CUDA(cudaMemset(flag, 0, sizeof(int)));
    }
    hang_kernel<<<1, 1, 0, st>>>(flag);
  } else {
    illegal_write_kernel<<<1, 1, 0, st>>>();
  }
  GPUSCHED_CUDA(cudaGetLastError());
}

std::uint64_t measure_globaltimer_resolution() {
  DeviceBuffer<unsigned long long> out;
  out.reset(1);
  timer_steps_kernel<<<1, 1>>>(out.ptr, 200000);
  GPUSCHED_CUDA(cudaGetLastError());
  unsigned long long step = 0;
  GPUSCHED_CUDA(cudaMemcpy(&step, out.ptr, sizeof step, cudaMemcpyDeviceToHost));
  return step;
}

}  // namespace gpusched::live

namespace gpusched::live {
void synchronize() {
  GPUSCHED_CUDA(cudaDeviceSynchronize());
}
}  // namespace gpusched::live
