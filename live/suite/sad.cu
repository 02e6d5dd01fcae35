// SAD block matching (motion estimation): each block takes one 16 x 16 macroblock of the current frame and
// each of its 256 threads one displacement in [-8, 7]^2, summing absolute differences against the reference
// frame (edges clamped); the block keeps the best displacement (lowest SAD, then lowest index).
#include <algorithm>
#include <vector>

#include "live/suite/launcher.cuh"
#include "live/suite/sad_body.cuh"

namespace gpusched::live {
namespace {

using namespace suite_sad;

struct Frame {
  int width, height;
};

Frame size_of(const std::string& size) {
  if (size == "small") return {64, 64};
  if (size == "s1") return {1920, 1088};
  if (size == "s2") return {3840, 2176};
  throw LiveError("sad: unknown size '" + size + "' (small, s1, s2)");
}

class Sad final : public SuiteKernelBase<SadBody> {
 public:
  std::string name() const override { return "sad"; }
  std::string description() const override { return "SAD block matching, 16 x 16 macroblocks, +-8 search"; }
  LaunchShape shape(const std::string& size) const override {
    const Frame f = size_of(size);
    return {(f.width / kMb) * (f.height / kMb), kMb * kMb, 0};
  }
  void setup(const std::string& size, std::uint64_t seed) override {
    frame_ = size_of(size);
    const std::size_t pixels = static_cast<std::size_t>(frame_.width) * frame_.height;
    cur_.reset(pixels / 4);
    ref_.reset(pixels / 4);
    best_.reset(static_cast<std::size_t>(shape(size).blocks));
    fill_indices(cur_.ptr, cur_.count, 0xffffffffu, seed);  // four random bytes per word
    fill_indices(ref_.ptr, ref_.count, 0xffffffffu, seed + 1);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {reinterpret_cast<const unsigned char*>(cur_.ptr), reinterpret_cast<const unsigned char*>(ref_.ptr),
             best_.ptr, frame_.width, frame_.height};
  }
  std::int64_t footprint_bytes() const override { return static_cast<std::int64_t>(cur_.count) * 8; }
  std::int64_t dirty_bytes() const override { return static_cast<std::int64_t>(best_.count) * 4; }
  std::vector<StateBuffer> state_buffers() const override {
    return {state_of(cur_, false), state_of(ref_, false), state_of(best_, true)};
  }
  std::string verify() override {
    const int w = frame_.width, h = frame_.height;
    std::vector<unsigned char> cur(static_cast<std::size_t>(w) * h), ref(cur.size());
    std::vector<unsigned> best(best_.count);
    GPUSCHED_CUDA(cudaMemcpy(cur.data(), cur_.ptr, cur.size(), cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(ref.data(), ref_.ptr, ref.size(), cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(best.data(), best_.ptr, best.size() * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < static_cast<int>(best.size()); ++b) {
      const int x0 = (b % (w / kMb)) * kMb, y0 = (b / (w / kMb)) * kMb;
      unsigned want = ~0u;
      for (int t = 0; t < kMb * kMb; ++t) {
        const int dx = t % kMb - 8, dy = t / kMb - 8;
        unsigned sad = 0;
        for (int y = 0; y < kMb; ++y)
          for (int x = 0; x < kMb; ++x) {
            const int d =
                cur[(y0 + y) * w + x0 + x] - ref[clampi(y0 + y + dy, 0, h - 1) * w + clampi(x0 + x + dx, 0, w - 1)];
            sad += static_cast<unsigned>(d < 0 ? -d : d);
          }
        want = std::min(want, (sad << 8) | static_cast<unsigned>(t));
      }
      if (want != best[b]) return "sad: macroblock " + std::to_string(b) + " differs";
    }
    return "";
  }

 private:
  Frame frame_{};
  DeviceBuffer<unsigned> cur_, ref_, best_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_sad() {
  return std::make_unique<Sad>();
}

}  // namespace gpusched::live
