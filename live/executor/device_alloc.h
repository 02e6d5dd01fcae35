// Device allocations of the executors' tables: uploaded or zeroed, recorded in an owner list freed together.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "live/cuda_check.h"

namespace gpusched::live {

template <class T>
T* device_zeros(std::size_t count, std::vector<void*>& owned) {
  T* d = nullptr;
  const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
  GPUSCHED_CUDA(cudaMalloc(&d, bytes));
  owned.push_back(d);
  GPUSCHED_CUDA(cudaMemset(d, 0, bytes));
  return d;
}

template <class T>
T* device_copy(const std::vector<T>& host, std::vector<void*>& owned) {
  T* d = device_zeros<T>(host.size(), owned);
  if (!host.empty()) GPUSCHED_CUDA(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// Frees its allocations on every path out.
struct DeviceArena {
  std::vector<void*> owned;
  DeviceArena() = default;
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;
  ~DeviceArena() {
    for (void* p : owned) cudaFree(p);
  }
  template <class T>
  T* copy(const std::vector<T>& host) {
    return device_copy(host, owned);
  }
  template <class T>
  T* zeros(std::size_t count) {
    return device_zeros<T>(count, owned);
  }
};

}  // namespace gpusched::live
