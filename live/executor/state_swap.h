// A kernel's state in pinned host memory, for time-sharing on the GPU (docs/validation.md, "Time-sharing on the
// GPU"): restoring copies every state buffer from the host to the GPU, saving copies the written ones back, both with
// cudaMemcpyAsync on the caller's (copy) stream so they overlap other kernels' micro-kernels.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "live/suite/suite.h"

namespace gpusched::live {

class StateSwap {
 public:
  // Allocates the pinned host copies and fills them from the GPU (synchronous): the state as set up.
  explicit StateSwap(std::vector<StateBuffer> buffers);

  std::int64_t restore_bytes() const;  // every buffer
  std::int64_t save_bytes() const;     // the written buffers
  // On `stream` (a cudaStream_t): host to GPU, every buffer; GPU to host, the written ones.
  void restore_async(void* stream);
  void save_async(void* stream);
  // On `stream`: every device buffer overwritten (0xff bytes). Tests: what a micro-kernel reads after a restore can
  // only have come from the host.
  void scribble_async(void* stream);

 private:
  std::vector<StateBuffer> buffers_;
  struct FreePinned {
    void operator()(void* p) const;
  };
  std::vector<std::unique_ptr<void, FreePinned>> host_;  // one per buffer (null for an empty one)
};

}  // namespace gpusched::live
