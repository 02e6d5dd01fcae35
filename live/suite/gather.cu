// Random-access gather (Kernelet's PC, "traversing an array randomly"): out[i] = 2 in[idx[i]] + 1 over a
// table much larger than the L2 cache, so almost every load is an uncoalesced DRAM access.
#include <vector>

#include "live/suite/gather_body.cuh"
#include "live/suite/launcher.cuh"

namespace gpusched::live {
namespace {

using namespace suite_gather;

struct Size {
  int blocks;
  std::size_t table;
};

Size size_of(const std::string& size) {
  if (size == "small") return {16, 1u << 16};
  if (size == "s1") return {8192, 1u << 26};
  if (size == "s2") return {32768, 1u << 26};
  throw LiveError("gather: unknown size '" + size + "' (small, s1, s2)");
}

class Gather final : public SuiteKernelBase<GatherBody> {
 public:
  std::string name() const override { return "gather"; }
  std::string description() const override { return "random-access gather over a 256 MB table (Kernelet's PC)"; }
  LaunchShape shape(const std::string& size) const override { return {size_of(size).blocks, kThreads, 0}; }
  void setup(const std::string& size, std::uint64_t seed) override {
    const Size s = size_of(size);
    const std::size_t n = static_cast<std::size_t>(s.blocks) * kThreads * kPerThread;
    table_.reset(s.table);
    idx_.reset(n);
    out_.reset(n);
    fill_uniform(table_.ptr, s.table, seed);
    fill_indices(idx_.ptr, n, static_cast<unsigned>(s.table), seed + 1);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {table_.ptr, idx_.ptr, out_.ptr};
  }
  std::int64_t footprint_bytes() const override {
    return static_cast<std::int64_t>(table_.count) * 4 + static_cast<std::int64_t>(idx_.count) * 8;
  }
  std::int64_t dirty_bytes() const override { return static_cast<std::int64_t>(out_.count) * 4; }
  std::vector<StateBuffer> state_buffers() const override {
    return {state_of(table_, false), state_of(idx_, false), state_of(out_, true)};
  }
  std::string verify() override {
    std::vector<float> table(table_.count), out(out_.count);
    std::vector<unsigned> idx(idx_.count);
    GPUSCHED_CUDA(cudaMemcpy(table.data(), table_.ptr, table.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(idx.data(), idx_.ptr, idx.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(out.data(), out_.ptr, out.size() * 4, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] != 2.0f * table[idx[i]] + 1.0f) return "gather: element " + std::to_string(i) + " differs";
    return "";
  }

 private:
  DeviceBuffer<float> table_, out_;
  DeviceBuffer<unsigned> idx_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_gather() {
  return std::make_unique<Gather>();
}

}  // namespace gpusched::live
