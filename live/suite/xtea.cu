// Integer-heavy cipher (Kernelet's TEA): every thread encrypts four 64-bit blocks with 32 rounds of XTEA.
#include <vector>

#include "live/suite/launcher.cuh"
#include "live/suite/xtea_body.cuh"

namespace gpusched::live {
namespace {

using namespace suite_xtea;

int size_blocks(const std::string& size) {
  if (size == "small") return 16;
  if (size == "s1") return 4096;
  if (size == "s2") return 16384;
  throw LiveError("xtea: unknown size '" + size + "' (small, s1, s2)");
}

class Xtea final : public SuiteKernelBase<XteaBody> {
 public:
  std::string name() const override { return "xtea"; }
  std::string description() const override { return "XTEA block cipher, 32 rounds (integer-heavy, Kernelet's TEA)"; }
  LaunchShape shape(const std::string& size) const override { return {size_blocks(size), kThreads, 0}; }
  void setup(const std::string& size, std::uint64_t seed) override {
    const std::size_t n = static_cast<std::size_t>(size_blocks(size)) * kThreads * kPerThread * 2;
    in_.reset(n);
    out_.reset(n);
    fill_indices(in_.ptr, n, 0xffffffffu, seed);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {in_.ptr, out_.ptr};
  }
  std::int64_t footprint_bytes() const override { return static_cast<std::int64_t>(in_.count) * 8; }
  std::int64_t dirty_bytes() const override { return static_cast<std::int64_t>(out_.count) * 4; }
  std::vector<StateBuffer> state_buffers() const override { return {state_of(in_, false), state_of(out_, true)}; }
  std::string verify() override {
    std::vector<unsigned> in(in_.count), out(out_.count);
    GPUSCHED_CUDA(cudaMemcpy(in.data(), in_.ptr, in.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(out.data(), out_.ptr, out.size() * 4, cudaMemcpyDeviceToHost));
    const unsigned key[4] = {0x01234567u, 0x89abcdefu, 0xfedcba98u, 0x76543210u};
    for (std::size_t i = 0; i < in.size(); i += 2) {
      unsigned v0 = in[i], v1 = in[i + 1];
      xtea_encrypt(v0, v1, key);
      if (v0 != out[i] || v1 != out[i + 1]) return "xtea: block " + std::to_string(i / 2) + " differs";
    }
    return "";
  }

 private:
  DeviceBuffer<unsigned> in_, out_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_xtea() {
  return std::make_unique<Xtea>();
}

}  // namespace gpusched::live
