#include "live/device_spec.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "live/cuda_check.h"

namespace gpusched::live {

void cuda_fail(cudaError_t err, const char* call, const char* file, int line) {
  throw LiveError(fmt::format("CUDA error {} ({}) in {} at {}:{}", static_cast<int>(err), cudaGetErrorString(err), call,
                              file, line));
}

namespace {

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  GPUSCHED_CUDA(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

std::string version_text(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

// The kernel driver's own version ("580.159.04"), from /proc; the CUDA version it supports in parentheses.
std::string driver_text(int cuda_version) {
  std::string version;
  if (std::FILE* f = std::fopen("/proc/driver/nvidia/version", "r")) {
    char line[512] = {};
    if (std::fgets(line, sizeof line, f)) {
      // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  <date>": the first token with two dots.
      std::string text(line);
      std::size_t pos = 0;
      while (pos < text.size()) {
        const auto end = text.find_first_of(" \t\n", pos);
        const std::string token = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        if (std::count(token.begin(), token.end(), '.') == 2 && std::isdigit(static_cast<unsigned char>(token[0]))) {
          version = token;
          break;
        }
        if (end == std::string::npos) break;
        pos = end + 1;
      }
    }
    std::fclose(f);
  }
  return version.empty() ? fmt::format("CUDA {}", version_text(cuda_version))
                         : fmt::format("{} (CUDA {})", version, version_text(cuda_version));
}

}  // namespace

GpuSpec spec_of_device(int dev) {
  cudaDeviceProp p{};
  GPUSCHED_CUDA(cudaGetDeviceProperties(&p, dev));
  GpuSpec g = architecture_defaults(p.major >= 9   ? Architecture::Hopper
                                    : p.major >= 5 ? Architecture::Maxwell
                                    : p.major == 3 ? Architecture::Kepler
                                                   : Architecture::Fermi);
  g.name = p.name;
  g.description = fmt::format("{} (device {}), from its attributes", p.name, dev);
  g.source = "cudaGetDeviceProperties / cudaDeviceGetAttribute";
  g.compute_major = p.major;
  g.compute_minor = p.minor;
  g.sm_count = p.multiProcessorCount;
  g.warp_size = p.warpSize;
  g.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  g.max_warps_per_sm = p.maxThreadsPerMultiProcessor / p.warpSize;
  g.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  g.max_threads_per_block = p.maxThreadsPerBlock;
  g.registers_per_sm = p.regsPerMultiprocessor;
  g.max_registers_per_block = p.regsPerBlock;
  g.shared_memory_per_sm = static_cast<int>(p.sharedMemPerMultiprocessor);
  g.max_shared_memory_per_block = static_cast<int>(p.sharedMemPerBlockOptin);
  g.reserved_shared_memory_per_block = static_cast<int>(p.reservedSharedMemPerBlock);
  g.clock_mhz = attr(cudaDevAttrClockRate, dev) / 1000.0;
  // Peak DRAM bandwidth: memory clock (kHz) x bus width (bits) x 2 (double data rate).
  const double mem_khz = attr(cudaDevAttrMemoryClockRate, dev);
  const double bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
  g.dram_bandwidth_gbps = mem_khz * 1e3 * (bus_bits / 8.0) * 2.0 / 1e9;
  g.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  return g;
}

std::vector<std::string> spec_differences(const GpuSpec& d, const GpuSpec& p) {
  std::vector<std::string> out;
  const auto cmp = [&](const char* field, auto dv, auto pv) {
    if (dv != pv) out.push_back(fmt::format("{}: device {}, preset {}", field, dv, pv));
  };
  cmp("compute capability", d.compute_major * 10 + d.compute_minor, p.compute_major * 10 + p.compute_minor);
  cmp("sm_count", d.sm_count, p.sm_count);
  cmp("max_threads_per_sm", d.max_threads_per_sm, p.max_threads_per_sm);
  cmp("max_blocks_per_sm", d.max_blocks_per_sm, p.max_blocks_per_sm);
  cmp("registers_per_sm", d.registers_per_sm, p.registers_per_sm);
  cmp("max_registers_per_block", d.max_registers_per_block, p.max_registers_per_block);
  cmp("shared_memory_per_sm", d.shared_memory_per_sm, p.shared_memory_per_sm);
  cmp("max_shared_memory_per_block", d.max_shared_memory_per_block, p.max_shared_memory_per_block);
  cmp("reserved_shared_memory_per_block", d.reserved_shared_memory_per_block, p.reserved_shared_memory_per_block);
  // Clocks and bandwidth vary by board and power state: reported when more than 5% apart.
  const auto far = [](double a, double b) { return std::abs(a - b) > 0.05 * std::max(a, b); };
  if (far(d.clock_mhz, p.clock_mhz))
    out.push_back(fmt::format("clock_mhz: device {:.0f}, preset {:.0f}", d.clock_mhz, p.clock_mhz));
  if (far(d.dram_bandwidth_gbps, p.dram_bandwidth_gbps))
    out.push_back(
        fmt::format("dram_bandwidth_gbps: device {:.0f}, preset {:.0f}", d.dram_bandwidth_gbps, p.dram_bandwidth_gbps));
  if (far(static_cast<double>(d.memory_bytes), static_cast<double>(p.memory_bytes)))
    out.push_back(fmt::format("memory_bytes: device {}, preset {}", d.memory_bytes, p.memory_bytes));
  return out;
}

std::vector<DeviceInfo> list_devices() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
    throw LiveError("no CUDA GPU is present on this machine");
  if (err == cudaErrorInsufficientDriver)
    throw LiveError("the NVIDIA driver is missing or older than this build's CUDA runtime needs");
  if (err != cudaSuccess) cuda_fail(err, "cudaGetDeviceCount", __FILE__, __LINE__);
  int driver = 0, runtime = 0;
  GPUSCHED_CUDA(cudaDriverGetVersion(&driver));
  GPUSCHED_CUDA(cudaRuntimeGetVersion(&runtime));
  std::vector<DeviceInfo> out;
  for (int i = 0; i < count; ++i) {
    DeviceInfo d;
    d.index = i;
    d.spec = spec_of_device(i);
    d.name = d.spec.name;
    d.driver = driver_text(driver);
    d.runtime = version_text(runtime);
    std::string lower = d.name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& p : gpu_presets())
      if (p.compute_major == d.spec.compute_major && p.compute_minor == d.spec.compute_minor &&
          lower.find(p.name) != std::string::npos)
        d.preset = &p;
    if (d.preset) d.differences = spec_differences(d.spec, *d.preset);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace gpusched::live
