// 3-D 7-point stencil on an N^3 grid: each block updates a 32 x 8 tile of x-y for 32 consecutive z planes,
// one plane at a time (not unrolled, so that the plain and instrumented builds compile the loop alike; 32
// planes make blocks long enough that stamping them costs under 1%, where 16 cost 1.4% on an H200); boundary
// points are copied.
#include <cmath>
#include <vector>

#include "live/suite/launcher.cuh"
#include "live/suite/stencil_body.cuh"

namespace gpusched::live {
namespace {

using namespace suite_stencil;

int size_n(const std::string& size) {
  if (size == "small") return 32;
  if (size == "s1") return 256;
  if (size == "s2") return 512;
  throw LiveError("stencil: unknown size '" + size + "' (small, s1, s2)");
}

class Stencil final : public SuiteKernelBase<StencilBody> {
 public:
  std::string name() const override { return "stencil"; }
  std::string description() const override { return "3-D 7-point stencil, 32 x 8 x 32 points per block"; }
  LaunchShape shape(const std::string& size) const override {
    const int n = size_n(size);
    return {(n / kTx) * (n / kTy) * (n / kTz), kTx * kTy, 0};
  }
  void setup(const std::string& size, std::uint64_t seed) override {
    n_ = size_n(size);
    const std::size_t count = static_cast<std::size_t>(n_) * n_ * n_;
    in_.reset(count);
    out_.reset(count);
    fill_uniform(in_.ptr, count, seed);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {in_.ptr, out_.ptr, n_};
  }
  std::int64_t footprint_bytes() const override { return static_cast<std::int64_t>(in_.count) * 8; }
  std::int64_t dirty_bytes() const override { return static_cast<std::int64_t>(out_.count) * 4; }
  std::vector<StateBuffer> state_buffers() const override { return {state_of(in_, false), state_of(out_, true)}; }
  std::string verify() override {
    std::vector<float> in(in_.count), out(out_.count);
    GPUSCHED_CUDA(cudaMemcpy(in.data(), in_.ptr, in.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(out.data(), out_.ptr, out.size() * 4, cudaMemcpyDeviceToHost));
    const std::size_t n = static_cast<std::size_t>(n_), plane = n * n;
    double err = 0, norm = 0;
    for (std::size_t z = 0; z < n; ++z)
      for (std::size_t y = 0; y < n; ++y)
        for (std::size_t x = 0; x < n; ++x) {
          const std::size_t i = z * plane + y * n + x;
          double ref = in[i];
          if (x && y && z && x + 1 < n && y + 1 < n && z + 1 < n)
            ref = 0.4 * in[i] + 0.1 * (static_cast<double>(in[i - 1]) + in[i + 1] + in[i - n] + in[i + n] +
                                       in[i - plane] + in[i + plane]);
          err += (ref - out[i]) * (ref - out[i]);
          norm += ref * ref;
        }
    const double rel = std::sqrt(err / norm);
    return rel < 1e-5 ? "" : "stencil: relative error " + std::to_string(rel);
  }

 private:
  int n_ = 0;
  DeviceBuffer<float> in_, out_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_stencil() {
  return std::make_unique<Stencil>();
}

}  // namespace gpusched::live
