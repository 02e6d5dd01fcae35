// SGEMM: C = A x B for square N x N matrices, 16 x 16 tiles through shared memory, one tile of C per block.
#include <cmath>
#include <vector>

#include "live/suite/launcher.cuh"
#include "live/suite/sgemm_body.cuh"

namespace gpusched::live {
namespace {

using namespace suite_sgemm;

int size_n(const std::string& size) {
  if (size == "small") return 64;
  if (size == "s1") return 1024;
  if (size == "s2") return 2048;
  throw LiveError("sgemm: unknown size '" + size + "' (small, s1, s2)");
}

class Sgemm final : public SuiteKernelBase<SgemmBody> {
 public:
  std::string name() const override { return "sgemm"; }
  std::string description() const override { return "tiled single-precision matrix product (shared memory)"; }
  LaunchShape shape(const std::string& size) const override {
    const int tiles = size_n(size) / kTile;
    return {tiles * tiles, kTile * kTile, 0};
  }
  void setup(const std::string& size, std::uint64_t seed) override {
    n_ = size_n(size);
    const std::size_t nn = static_cast<std::size_t>(n_) * n_;
    a_.reset(nn);
    b_.reset(nn);
    c_.reset(nn);
    fill_uniform(a_.ptr, nn, seed);
    fill_uniform(b_.ptr, nn, seed + 1);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {a_.ptr, b_.ptr, c_.ptr, n_};
  }
  std::int64_t footprint_bytes() const override { return 3LL * n_ * n_ * 4; }
  std::int64_t dirty_bytes() const override { return 1LL * n_ * n_ * 4; }
  std::vector<StateBuffer> state_buffers() const override {
    return {state_of(a_, false), state_of(b_, false), state_of(c_, true)};
  }
  std::string verify() override {
    const std::size_t nn = static_cast<std::size_t>(n_) * n_;
    std::vector<float> a(nn), b(nn), c(nn);
    GPUSCHED_CUDA(cudaMemcpy(a.data(), a_.ptr, nn * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(b.data(), b_.ptr, nn * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(c.data(), c_.ptr, nn * 4, cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (int i = 0; i < n_; ++i)
      for (int j = 0; j < n_; ++j) {
        double ref = 0;
        for (int k = 0; k < n_; ++k) ref += static_cast<double>(a[i * n_ + k]) * b[k * n_ + j];
        err += (ref - c[i * n_ + j]) * (ref - c[i * n_ + j]);
        norm += ref * ref;
      }
    const double rel = std::sqrt(err / norm);
    return rel < 1e-5 ? "" : "sgemm: relative error " + std::to_string(rel);
  }

 private:
  int n_ = 0;
  DeviceBuffer<float> a_, b_, c_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_sgemm() {
  return std::make_unique<Sgemm>();
}

}  // namespace gpusched::live
