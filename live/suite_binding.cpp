#include "live/suite_binding.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "live/cuda_check.h"
#include "live/executor/executor.h"

namespace gpusched::live {

std::unique_ptr<SuiteKernel> make_suite_kernel(const std::string& name) {
  auto suite = make_suite();
  std::string names;
  for (auto& k : suite) {
    if (k->name() == name) return std::move(k);
    names += (names.empty() ? "" : ", ") + k->name();
  }
  throw std::invalid_argument(fmt::format("unknown suite kernel '{}' (kernels: {})", name, names));
}

BoundSuite bind_suite(const Workload& w, std::uint64_t seed) {
  BoundSuite out;
  for (const auto& profile : w.kernels) {
    const auto dash = profile->name.rfind('-');
    const std::string where = profile->file.empty() ? w.file : profile->file;
    if (dash == std::string::npos)
      throw std::invalid_argument(fmt::format(
          "{}: kernel '{}' is not a recording of a suite kernel (expected a name like sgemm-s1, as gpusched-live "
          "record writes)",
          where, profile->name));
    const std::string name = profile->name.substr(0, dash), size = profile->name.substr(dash + 1);
    std::unique_ptr<SuiteKernel> k;
    try {
      k = make_suite_kernel(name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: kernel '{}': {}", where, profile->name, e.what()));
    }
    LaunchShape shape;
    try {
      shape = k->shape(size);
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("{}: kernel '{}': {}", where, profile->name, e.what()));
    }
    if (shape.blocks != profile->block_count() || shape.threads != profile->threads_per_block())
      throw std::invalid_argument(
          fmt::format("{}: kernel '{}' has {} blocks of {} threads, but suite kernel {} at size {} has {} of {}", where,
                      profile->name, profile->block_count(), profile->threads_per_block(), name, size, shape.blocks,
                      shape.threads));
    k->setup(size, seed);
    out.kernels.push_back(std::move(k));
    out.sizes.push_back(size);
  }
  synchronize();
  return out;
}

void wait_for(void* stream, double timeout_s, const std::string& what) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(stream));
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) cuda_fail(e, "cudaStreamQuery", __FILE__, __LINE__);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s)
      exit_hung(what, timeout_s);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

std::vector<std::string> suite_kernel_names(const std::vector<std::string>& asked) {
  std::vector<std::string> names;
  for (const auto& k : asked)
    if (k == "all")
      for (const auto& s : make_suite()) names.push_back(s->name());
    else
      names.push_back(k);
  return names;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

BatchTimer::BatchTimer(void* stream, double timeout_s, std::string what)
    : stream_(stream), timeout_s_(timeout_s), what_(std::move(what)) {
  cudaEvent_t e0, e1;
  GPUSCHED_CUDA(cudaEventCreate(&e0));
  start_ = e0;
  GPUSCHED_CUDA(cudaEventCreate(&e1));
  end_ = e1;
}

BatchTimer::~BatchTimer() {
  cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  cudaEventDestroy(static_cast<cudaEvent_t>(end_));
}

double BatchTimer::ms_per_launch(int n, const std::function<void(int)>& launch) {
  const auto stream = static_cast<cudaStream_t>(stream_);
  GPUSCHED_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(start_), stream));
  for (int j = 0; j < n; ++j) launch(j);
  GPUSCHED_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(end_), stream));
  wait_for(stream_, timeout_s_, what_);
  float ms = 0;
  GPUSCHED_CUDA(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(end_)));
  return static_cast<double>(ms) / n;
}

int launches_per_batch(double one_ms, int most) {
  return std::clamp(static_cast<int>(2.0 / std::max(one_ms, 1e-3)), 1, most);
}

TimeNs time_alone(SuiteKernel& k, const LaunchShape& shape, int repeats, double timeout_s) {
  cudaStream_t stream;
  GPUSCHED_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<double> ms;
  {
    BatchTimer timer(stream, timeout_s, k.name());
    for (int i = 0; i <= repeats; ++i) {  // the first is the warm-up
      const double t = timer.ms_per_launch(1, [&](int) { k.launch(shape, 0, nullptr, stream); });
      if (i > 0) ms.push_back(t);
    }
  }
  cudaStreamDestroy(stream);
  return static_cast<TimeNs>(median(ms) * 1e6);
}

}  // namespace gpusched::live
