// Histogram with atomics: each block counts its chunk of the input into 256 shared-memory bins, then adds them
// to the global histogram with atomics. A block is idempotent until its first global atomic (the recorder
// notes when that is); after it, running the block again would count its chunk twice.
#include <vector>

#include "live/suite/histogram_body.cuh"
#include "live/suite/launcher.cuh"

namespace gpusched::live {
namespace {

using namespace suite_histogram;

int size_blocks(const std::string& size) {
  if (size == "small") return 16;
  if (size == "s1") return 4096;
  if (size == "s2") return 16384;
  throw LiveError("histogram: unknown size '" + size + "' (small, s1, s2)");
}

class Histogram final : public SuiteKernelBase<HistogramBody> {
 public:
  std::string name() const override { return "histogram"; }
  std::string description() const override { return "256-bin histogram, shared then global atomics (not idempotent)"; }
  LaunchShape shape(const std::string& size) const override { return {size_blocks(size), 256, 0}; }
  void setup(const std::string& size, std::uint64_t seed) override {
    blocks_ = size_blocks(size);
    in_.reset(static_cast<std::size_t>(blocks_) * kPerBlock);
    hist_.reset(kBins);
    fill_indices(in_.ptr, in_.count, 1u << 20, seed);
    GPUSCHED_CUDA(cudaMemset(hist_.ptr, 0, kBins * sizeof(unsigned)));
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {in_.ptr, hist_.ptr};
  }
  double idempotent_until() const override { return 0.9; }  // replaced by the recorded point
  std::int64_t footprint_bytes() const override { return static_cast<std::int64_t>(in_.count) * 4 + kBins * 4; }
  std::int64_t dirty_bytes() const override { return kBins * 4; }
  std::vector<StateBuffer> state_buffers() const override { return {state_of(in_, false), state_of(hist_, true)}; }
  std::string verify() override {
    std::vector<unsigned> in(in_.count), hist(kBins), ref(kBins, 0);
    GPUSCHED_CUDA(cudaMemcpy(in.data(), in_.ptr, in.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(hist.data(), hist_.ptr, kBins * 4, cudaMemcpyDeviceToHost));
    for (unsigned v : in) ++ref[v % kBins];
    for (int i = 0; i < kBins; ++i)
      if (ref[i] != hist[i])
        return "histogram: bin " + std::to_string(i) + " is " + std::to_string(hist[i]) + ", expected " +
               std::to_string(ref[i]);
    return "";
  }

 private:
  int blocks_ = 0;
  DeviceBuffer<unsigned> in_, hist_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_histogram() {
  return std::make_unique<Histogram>();
}

}  // namespace gpusched::live
