// MRI-Q-like compute (Parboil's MRI-Q): for every voxel, Q = sum over K k-space samples of
// phi_k * (cos, sin)(2 pi k . x); the samples are staged through shared memory in chunks of 256.
#include <cmath>
#include <vector>

#include "live/suite/launcher.cuh"
#include "live/suite/mriq_body.cuh"

namespace gpusched::live {
namespace {

using namespace suite_mriq;

int size_blocks(const std::string& size) {
  if (size == "small") return 4;
  if (size == "s1") return 2048;
  if (size == "s2") return 8192;
  throw LiveError("mriq: unknown size '" + size + "' (small, s1, s2)");
}

class Mriq final : public SuiteKernelBase<MriqBody> {
 public:
  std::string name() const override { return "mriq"; }
  std::string description() const override { return "MRI-Q-like k-space sums (sin/cos compute bound)"; }
  LaunchShape shape(const std::string& size) const override { return {size_blocks(size), kThreads, 0}; }
  void setup(const std::string& size, std::uint64_t seed) override {
    const std::size_t voxels = static_cast<std::size_t>(size_blocks(size)) * kThreads;
    voxels_.reset(3 * voxels);
    kspace_.reset(4 * kSamples);
    q_.reset(2 * voxels);
    fill_uniform(voxels_.ptr, voxels_.count, seed);
    fill_uniform(kspace_.ptr, kspace_.count, seed + 1);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {voxels_.ptr, kspace_.ptr, q_.ptr};
  }
  std::int64_t footprint_bytes() const override {
    return static_cast<std::int64_t>(voxels_.count + kspace_.count + q_.count) * 4;
  }
  std::int64_t dirty_bytes() const override { return static_cast<std::int64_t>(q_.count) * 4; }
  std::vector<StateBuffer> state_buffers() const override {
    return {state_of(voxels_, false), state_of(kspace_, false), state_of(q_, true)};
  }
  std::string verify() override {
    std::vector<float> vox(voxels_.count), ks(kspace_.count), q(q_.count);
    GPUSCHED_CUDA(cudaMemcpy(vox.data(), voxels_.ptr, vox.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(ks.data(), kspace_.ptr, ks.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(q.data(), q_.ptr, q.size() * 4, cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (std::size_t v = 0; v < vox.size() / 3; ++v) {
      double re = 0, im = 0;
      for (int k = 0; k < kSamples; ++k) {
        const double arg = 6.283185307179586 * (static_cast<double>(ks[4 * k]) * vox[3 * v] +
                                                static_cast<double>(ks[4 * k + 1]) * vox[3 * v + 1] +
                                                static_cast<double>(ks[4 * k + 2]) * vox[3 * v + 2]);
        re += ks[4 * k + 3] * std::cos(arg);
        im += ks[4 * k + 3] * std::sin(arg);
      }
      err += (re - q[2 * v]) * (re - q[2 * v]) + (im - q[2 * v + 1]) * (im - q[2 * v + 1]);
      norm += re * re + im * im;
    }
    const double rel = std::sqrt(err / norm);
    return rel < 1e-4 ? "" : "mriq: relative error " + std::to_string(rel);
  }

 private:
  DeviceBuffer<float> voxels_, kspace_, q_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_mriq() {
  return std::make_unique<Mriq>();
}

}  // namespace gpusched::live
