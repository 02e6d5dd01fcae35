// Green contexts (CUDA 12.4+; docs/validation.md, "Green contexts"): hard SM partitions for the executor. The
// device's SMs are split once into the finest groups the driver allows (two SMs on Hopper, with SM co-scheduling
// ignored); a probe kernel in a green context of each group alone finds which SMs (%smid) the group holds. A launch
// the plan confines to part of the GPU then gets a green context of the groups holding its SMs: its worker grids,
// launched on streams of that context, are placed by the hardware on those SMs only.
//
// The driver's entry points are looked up through the runtime (cudaGetDriverEntryPointByVersion), so gpusched-live
// still links nothing but the static runtime; a driver without green contexts makes the constructor throw.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace gpusched::live {

struct GreenContext {
  void* handle = nullptr;  // CUgreenCtx
  std::vector<int> sms;    // its SMs (%smid), ascending
};

class GreenPartitions {
 public:
  // Splits `device`'s SMs and probes every group. Throws LiveError when the driver has no green contexts, a call
  // fails, or the probe does not find the groups disjoint with the SM counts the split promised.
  explicit GreenPartitions(int device);
  ~GreenPartitions();
  GreenPartitions(const GreenPartitions&) = delete;
  GreenPartitions& operator=(const GreenPartitions&) = delete;

  // Every group's SMs (%smid), in the split's order.
  const std::vector<std::vector<int>>& group_sms() const { return group_sms_; }
  // The green context of these groups (covering_groups' result, not empty), made on first use and kept.
  const GreenContext& context(const std::vector<int>& groups);
  // A non-blocking stream of the context at a CUDA stream priority (destroy it with cudaStreamDestroy before this
  // object goes).
  cudaStream_t create_stream(const GreenContext& context, int priority = 0);

 private:
  struct Driver;
  std::unique_ptr<Driver> driver_;
  std::vector<std::vector<int>> group_sms_;
  std::map<std::vector<int>, GreenContext> contexts_;
};

}  // namespace gpusched::live
