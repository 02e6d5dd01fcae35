// CUDA error handling for gpusched-live: every runtime call is checked; a failure throws LiveError naming
// the call, the file and line, and CUDA's message, and the command ends with exit code 1 (no partial output:
// files are written atomically only after every measurement succeeded).
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gpusched::live {

class LiveError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void cuda_fail(cudaError_t err, const char* call, const char* file, int line);

}  // namespace gpusched::live

#define GPUSCHED_CUDA(call)                                                              \
  do {                                                                                   \
    const cudaError_t gpusched_err_ = (call);                                            \
    if (gpusched_err_ != cudaSuccess) ::gpusched::live::cuda_fail(gpusched_err_, #call, __FILE__, __LINE__); \
  } while (0)
