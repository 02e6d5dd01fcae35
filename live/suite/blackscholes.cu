// BlackScholes option pricing: every thread prices options (call and put) with the closed form, using the
// polynomial approximation of the cumulative normal distribution (as in the CUDA SDK sample).
#include <cmath>
#include <vector>

#include "live/suite/blackscholes_body.cuh"
#include "live/suite/launcher.cuh"

namespace gpusched::live {
namespace {

using namespace suite_blackscholes;

int size_blocks(const std::string& size) {
  // As many options as with 2 per thread before: 4,096 / 4,194,304 / 16,777,216.
  if (size == "small") return 4;
  if (size == "s1") return 4096;
  if (size == "s2") return 16384;
  throw LiveError("blackscholes: unknown size '" + size + "' (small, s1, s2)");
}

class BlackScholes final : public SuiteKernelBase<BlackScholesBody> {
 public:
  std::string name() const override { return "blackscholes"; }
  std::string description() const override { return "BlackScholes option pricing (transcendental compute)"; }
  LaunchShape shape(const std::string& size) const override { return {size_blocks(size), kThreads, 0}; }
  void setup(const std::string& size, std::uint64_t seed) override {
    const std::size_t n = static_cast<std::size_t>(size_blocks(size)) * kThreads * kPerThread;
    for (auto* b : {&s_, &x_, &t_, &call_, &put_}) b->reset(n);
    fill_uniform(s_.ptr, n, seed);
    fill_uniform(x_.ptr, n, seed + 1);
    fill_uniform(t_.ptr, n, seed + 2);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {s_.ptr, x_.ptr, t_.ptr, call_.ptr, put_.ptr};
  }
  std::int64_t footprint_bytes() const override { return static_cast<std::int64_t>(s_.count) * 20; }
  std::int64_t dirty_bytes() const override { return static_cast<std::int64_t>(s_.count) * 8; }
  std::vector<StateBuffer> state_buffers() const override {
    return {state_of(s_, false), state_of(x_, false), state_of(t_, false), state_of(call_, true), state_of(put_, true)};
  }
  std::string verify() override {
    const std::size_t n = s_.count;
    std::vector<float> s(n), x(n), t(n), call(n), put(n);
    GPUSCHED_CUDA(cudaMemcpy(s.data(), s_.ptr, n * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(x.data(), x_.ptr, n * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(t.data(), t_.ptr, n * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(call.data(), call_.ptr, n * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(put.data(), put_.ptr, n * 4, cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < n; ++i) {
      float c = 0, p = 0;
      price(5.0f + 25.0f * s[i], 1.0f + 99.0f * x[i], 0.25f + 9.75f * t[i], 0.02f, 0.30f, c, p);
      err += (c - call[i]) * (c - call[i]) + (p - put[i]) * (p - put[i]);
      norm += static_cast<double>(c) * c + static_cast<double>(p) * p;
    }
    const double rel = std::sqrt(err / norm);
    return rel < 1e-5 ? "" : "blackscholes: relative error " + std::to_string(rel);
  }

 private:
  DeviceBuffer<float> s_, x_, t_, call_, put_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_blackscholes() {
  return std::make_unique<BlackScholes>();
}

}  // namespace gpusched::live
