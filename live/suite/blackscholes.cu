// BlackScholes option pricing: every thread prices options (call and put) with the closed form, using the
// polynomial approximation of the cumulative normal distribution (as in the CUDA SDK sample).
#include <cmath>
#include <vector>

#include "live/suite/launcher.cuh"

namespace gpusched::live {
namespace {

constexpr int kThreads = 128;
// Options per thread, one at a time (not unrolled, so that the plain and instrumented builds compile the loop
// alike): 8 makes blocks long enough (about 8 us) that stamping them costs under 1% (with 2, blocks of about 2
// us paid 2% on an H200).
constexpr int kPerThread = 8;

__host__ __device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = 0.3989422804014327f * expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}

__host__ __device__ inline void price(float s, float x, float t, float r, float v, float& call, float& put) {
  const float sqrt_t = sqrtf(t);
  const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float exp_rt = expf(-r * t);
  call = s * cnd(d1) - x * exp_rt * cnd(d2);
  put = x * exp_rt * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}

struct BlackScholesBody {
  struct Args {
    const float* s = nullptr;
    const float* x = nullptr;
    const float* t = nullptr;
    float* call = nullptr;
    float* put = nullptr;
  };
  // Safe point before each round of options; a switched-out block needs only the round it stopped at.
  static constexpr int kSwitchValues = 0;
  template <class Ctx>
  static __device__ void block(const Args& g, const Ctx& ctx) {
    // Consecutive threads take consecutive options in each round (coalesced loads and stores).
    const std::size_t base = static_cast<std::size_t>(ctx.block) * blockDim.x * kPerThread + threadIdx.x;
#pragma unroll 1
    for (int r = ctx.resume_step(); r < kPerThread; ++r) {
      if (ctx.should_stop(r)) return;  // safe point: rounds before r are written, inputs never are
      const std::size_t i = base + static_cast<std::size_t>(r) * blockDim.x;
      price(5.0f + 25.0f * g.s[i], 1.0f + 99.0f * g.x[i], 0.25f + 9.75f * g.t[i], 0.02f, 0.30f, g.call[i], g.put[i]);
    }
  }
};

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
