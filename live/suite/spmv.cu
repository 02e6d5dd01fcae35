// SpMV in CSR form with irregular rows (1 to 64 non-zeros, by a hash of the row): one thread per row, y = A x.
// The row pointers are laid out on the host from the hash (a prefix sum); column indices and values are
// generated on the GPU.
#include <cmath>
#include <vector>

#include "live/suite/launcher.cuh"
#include "live/suite/spmv_body.cuh"

namespace gpusched::live {
namespace {

using namespace suite_spmv;

int size_blocks(const std::string& size) {
  if (size == "small") return 16;
  if (size == "s1") return 4096;
  if (size == "s2") return 16384;
  throw LiveError("spmv: unknown size '" + size + "' (small, s1, s2)");
}

class Spmv final : public SuiteKernelBase<SpmvBody> {
 public:
  std::string name() const override { return "spmv"; }
  std::string description() const override { return "sparse matrix-vector product, CSR, irregular rows"; }
  LaunchShape shape(const std::string& size) const override { return {size_blocks(size), kThreads, 0}; }
  void setup(const std::string& size, std::uint64_t seed) override {
    const std::size_t rows = static_cast<std::size_t>(size_blocks(size)) * kThreads;
    const unsigned cols = 1u << 20;
    std::vector<unsigned> ptr(rows + 1, 0);
    for (std::size_t r = 0; r < rows; ++r) ptr[r + 1] = ptr[r] + row_length(r);
    row_ptr_.reset(rows + 1);
    GPUSCHED_CUDA(cudaMemcpy(row_ptr_.ptr, ptr.data(), ptr.size() * 4, cudaMemcpyHostToDevice));
    cols_.reset(ptr.back());
    vals_.reset(ptr.back());
    x_.reset(cols);
    y_.reset(rows);
    fill_indices(cols_.ptr, cols_.count, cols, seed);
    fill_uniform(vals_.ptr, vals_.count, seed + 1);
    fill_uniform(x_.ptr, x_.count, seed + 2);
    GPUSCHED_CUDA(cudaDeviceSynchronize());
    args_ = {row_ptr_.ptr, cols_.ptr, vals_.ptr, x_.ptr, y_.ptr};
  }
  std::int64_t footprint_bytes() const override {
    return static_cast<std::int64_t>(row_ptr_.count + cols_.count * 2 + x_.count + y_.count) * 4;
  }
  std::int64_t dirty_bytes() const override { return static_cast<std::int64_t>(y_.count) * 4; }
  std::vector<StateBuffer> state_buffers() const override {
    return {state_of(row_ptr_, false), state_of(cols_, false), state_of(vals_, false), state_of(x_, false),
            state_of(y_, true)};
  }
  std::string verify() override {
    std::vector<unsigned> ptr(row_ptr_.count), cols(cols_.count);
    std::vector<float> vals(vals_.count), x(x_.count), y(y_.count);
    GPUSCHED_CUDA(cudaMemcpy(ptr.data(), row_ptr_.ptr, ptr.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(cols.data(), cols_.ptr, cols.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(vals.data(), vals_.ptr, vals.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(x.data(), x_.ptr, x.size() * 4, cudaMemcpyDeviceToHost));
    GPUSCHED_CUDA(cudaMemcpy(y.data(), y_.ptr, y.size() * 4, cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (std::size_t r = 0; r < y.size(); ++r) {
      double ref = 0;
      for (unsigned j = ptr[r]; j < ptr[r + 1]; ++j) ref += static_cast<double>(vals[j]) * x[cols[j]];
      err += (ref - y[r]) * (ref - y[r]);
      norm += ref * ref;
    }
    const double rel = std::sqrt(err / norm);
    return rel < 1e-5 ? "" : "spmv: relative error " + std::to_string(rel);
  }

 private:
  DeviceBuffer<unsigned> row_ptr_, cols_;
  DeviceBuffer<float> vals_, x_, y_;
};

}  // namespace

std::unique_ptr<SuiteKernel> make_spmv() {
  return std::make_unique<Spmv>();
}

}  // namespace gpusched::live
