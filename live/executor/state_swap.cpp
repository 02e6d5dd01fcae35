#include "live/executor/state_swap.h"

#include <cuda_runtime.h>

#include "live/cuda_check.h"

namespace gpusched::live {

void StateSwap::FreePinned::operator()(void* p) const {
  if (p) cudaFreeHost(p);
}

StateSwap::StateSwap(std::vector<StateBuffer> buffers) : buffers_(std::move(buffers)) {
  for (const auto& b : buffers_) {
    void* h = nullptr;
    if (b.bytes) GPUSCHED_CUDA(cudaMallocHost(&h, b.bytes));
    host_.emplace_back(h);
  }
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].bytes)
      GPUSCHED_CUDA(cudaMemcpy(host_[i].get(), buffers_[i].device, buffers_[i].bytes, cudaMemcpyDeviceToHost));
}

std::int64_t StateSwap::restore_bytes() const {
  std::int64_t n = 0;
  for (const auto& b : buffers_) n += static_cast<std::int64_t>(b.bytes);
  return n;
}

std::int64_t StateSwap::save_bytes() const {
  std::int64_t n = 0;
  for (const auto& b : buffers_)
    if (b.written) n += static_cast<std::int64_t>(b.bytes);
  return n;
}

void StateSwap::restore_async(void* stream) {
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].bytes)
      GPUSCHED_CUDA(cudaMemcpyAsync(buffers_[i].device, host_[i].get(), buffers_[i].bytes, cudaMemcpyHostToDevice,
                                    static_cast<cudaStream_t>(stream)));
}

void StateSwap::save_async(void* stream) {
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].bytes && buffers_[i].written)
      GPUSCHED_CUDA(cudaMemcpyAsync(host_[i].get(), buffers_[i].device, buffers_[i].bytes, cudaMemcpyDeviceToHost,
                                    static_cast<cudaStream_t>(stream)));
}

void StateSwap::scribble_async(void* stream) {
  for (const auto& b : buffers_)
    if (b.bytes) GPUSCHED_CUDA(cudaMemsetAsync(b.device, 0xff, b.bytes, static_cast<cudaStream_t>(stream)));
}

}  // namespace gpusched::live
