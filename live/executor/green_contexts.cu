#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "live/cuda_check.h"
#include "live/executor/green_contexts.h"
#include "live/suite/device_clock.cuh"

namespace gpusched::live {

namespace {

// Each block stays ~20 us so that the grid spreads over every SM it may use, and marks its SM.
__global__ void probe_sms(int* seen) {
  const std::uint64_t t0 = globaltimer_ns();
  while (globaltimer_ns() - t0 < 20000) {
  }
  if (threadIdx.x == 0) atomicAdd(&seen[sm_id()], 1);
}

constexpr int kMaxSmId = 1024;  // %smid is below this on every GPU so far (132 SMs on an H100)

}  // namespace

// The driver calls green contexts need, looked up once.
struct GreenPartitions::Driver {
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetDevResource) get_dev_resource = nullptr;
  decltype(&::cuDevSmResourceSplitByCount) split_by_count = nullptr;
  decltype(&::cuDevResourceGenerateDesc) generate_desc = nullptr;
  decltype(&::cuGreenCtxCreate) create = nullptr;
  decltype(&::cuGreenCtxDestroy) destroy = nullptr;
  decltype(&::cuGreenCtxStreamCreate) stream_create = nullptr;
  CUdevice device = 0;
  std::vector<CUdevResource> groups;  // the split's groups (a context's descriptor combines some of them)

  // A green context of these groups (indices into `groups`, checked by the caller).
  CUgreenCtx create_context(const std::vector<int>& of) const {
    std::vector<CUdevResource> resources;
    for (const int g : of) resources.push_back(groups[static_cast<std::size_t>(g)]);
    CUdevResourceDesc desc = nullptr;
    check(generate_desc(&desc, resources.data(), static_cast<unsigned>(resources.size())), "cuDevResourceGenerateDesc");
    CUgreenCtx handle = nullptr;
    check(create(&handle, desc, device, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
    return handle;
  }

  template <class F>
  void lookup(F& fn, const char* symbol) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, CUDART_VERSION, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !p)
      throw LiveError(fmt::format("green contexts: the driver has no {}", symbol));
    fn = reinterpret_cast<F>(p);
  }
  void check(CUresult r, const char* call) const {
    if (r == CUDA_SUCCESS) return;
    const char* message = nullptr;
    if (get_error_string) get_error_string(r, &message);
    throw LiveError(fmt::format("green contexts: {} failed: {}", call, message ? message : std::to_string(r)));
  }
};

GreenPartitions::GreenPartitions(int device) : driver_(std::make_unique<Driver>()) {
  auto& d = *driver_;
  d.lookup(d.get_error_string, "cuGetErrorString");
  d.lookup(d.device_get, "cuDeviceGet");
  d.lookup(d.get_dev_resource, "cuDeviceGetDevResource");
  d.lookup(d.split_by_count, "cuDevSmResourceSplitByCount");
  d.lookup(d.generate_desc, "cuDevResourceGenerateDesc");
  d.lookup(d.create, "cuGreenCtxCreate");
  d.lookup(d.destroy, "cuGreenCtxDestroy");
  d.lookup(d.stream_create, "cuGreenCtxStreamCreate");
  GPUSCHED_CUDA(cudaSetDevice(device));
  GPUSCHED_CUDA(cudaFree(nullptr));  // the primary context first: green contexts retain it
  d.check(d.device_get(&d.device, device), "cuDeviceGet");
  CUdevResource all{};
  d.check(d.get_dev_resource(d.device, &all, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
  // The finest split: SM co-scheduling ignored (groups of one TPC, two SMs, on Hopper; eight otherwise).
  const unsigned flags = CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING;
  unsigned count = 0;
  d.check(d.split_by_count(nullptr, &count, &all, nullptr, flags, 1), "cuDevSmResourceSplitByCount");
  d.groups.resize(count);
  CUdevResource remaining{};
  d.check(d.split_by_count(d.groups.data(), &count, &all, &remaining, flags, 1), "cuDevSmResourceSplitByCount");
  d.groups.resize(count);
  // SMs left out of the groups (none on an H100) are a group of their own: no SM is out of reach.
  if (remaining.type == CU_DEV_RESOURCE_TYPE_SM && remaining.sm.smCount > 0) d.groups.push_back(remaining);

  int* seen = nullptr;
  GPUSCHED_CUDA(cudaMalloc(&seen, kMaxSmId * sizeof(int)));
  struct Free {
    int* p;
    ~Free() { cudaFree(p); }
  } free_seen{seen};
  std::vector<int> owner(kMaxSmId, -1);
  std::vector<int> host(kMaxSmId);
  group_sms_.resize(d.groups.size());
  for (std::size_t g = 0; g < d.groups.size(); ++g) {
    // A green context of the group alone, for the probe only (a launch needing just this group makes its own).
    GreenContext probe{d.create_context({static_cast<int>(g)}), {}};
    struct Destroy {
      const Driver& d;
      CUgreenCtx h;
      ~Destroy() { d.destroy(h); }
    } destroy_probe{d, static_cast<CUgreenCtx>(probe.handle)};
    cudaStream_t stream = create_stream(probe);
    GPUSCHED_CUDA(cudaMemsetAsync(seen, 0, kMaxSmId * sizeof(int), stream));
    // 64 blocks per SM the group should hold: more than fit at once, so every SM of the group gets some.
    probe_sms<<<64 * std::max(1u, d.groups[g].sm.smCount), 64, 0, stream>>>(seen);
    GPUSCHED_CUDA(cudaGetLastError());
    GPUSCHED_CUDA(cudaStreamSynchronize(stream));
    GPUSCHED_CUDA(cudaStreamDestroy(stream));
    GPUSCHED_CUDA(cudaMemcpy(host.data(), seen, kMaxSmId * sizeof(int), cudaMemcpyDeviceToHost));
    for (int s = 0; s < kMaxSmId; ++s) {
      if (!host[static_cast<std::size_t>(s)]) continue;
      if (owner[static_cast<std::size_t>(s)] >= 0)
        throw LiveError(fmt::format("green contexts: SM {} ran blocks of groups {} and {}; the split is not disjoint",
                                    s, owner[static_cast<std::size_t>(s)], g));
      owner[static_cast<std::size_t>(s)] = static_cast<int>(g);
      group_sms_[g].push_back(s);
    }
    if (group_sms_[g].size() != d.groups[g].sm.smCount)
      throw LiveError(fmt::format("green contexts: group {} should hold {} SMs, its probe ran on {}", g,
                                  d.groups[g].sm.smCount, group_sms_[g].size()));
  }
}

GreenPartitions::~GreenPartitions() {
  for (auto& [groups, ctx] : contexts_)
    if (ctx.handle) driver_->destroy(static_cast<CUgreenCtx>(ctx.handle));
}

const GreenContext& GreenPartitions::context(const std::vector<int>& groups) {
  if (groups.empty()) throw LiveError("green contexts: a context of no group");
  if (const auto found = contexts_.find(groups); found != contexts_.end()) return found->second;
  GreenContext made;
  for (const int g : groups) {
    if (g < 0 || static_cast<std::size_t>(g) >= group_sms_.size())
      throw LiveError(fmt::format("green contexts: no group {}", g));
    const auto& sms = group_sms_[static_cast<std::size_t>(g)];
    made.sms.insert(made.sms.end(), sms.begin(), sms.end());
  }
  std::sort(made.sms.begin(), made.sms.end());
  made.handle = driver_->create_context(groups);
  return contexts_.emplace(groups, std::move(made)).first->second;
}

cudaStream_t GreenPartitions::create_stream(const GreenContext& context, int priority) {
  CUstream stream = nullptr;
  driver_->check(
      driver_->stream_create(&stream, static_cast<CUgreenCtx>(context.handle), CU_STREAM_NON_BLOCKING, priority),
      "cuGreenCtxStreamCreate");
  return static_cast<cudaStream_t>(stream);
}

}  // namespace gpusched::live
