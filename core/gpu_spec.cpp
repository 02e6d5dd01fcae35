#include "core/gpu_spec.h"

#include <algorithm>
#include <cctype>

namespace gpusched {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

GpuSpec fermi(std::string name, int sms, double mhz, double dram_gbps, std::int64_t mem, std::string desc,
              std::string source) {
  GpuSpec g = architecture_defaults(Architecture::Fermi);
  g.name = std::move(name);
  g.sm_count = sms;
  g.clock_mhz = mhz;
  g.dram_bandwidth_gbps = dram_gbps;
  g.memory_bytes = mem;
  g.description = std::move(desc);
  g.source = std::move(source);
  return g;
}

std::vector<GpuSpec> make_presets() {
  std::vector<GpuSpec> p;
  // GTX480 as GPGPU-Sim 3.2 configures it: seed 001 Table 4 (15 SMs; 1536 threads, 32768 registers,
  // 48 KB shared memory, 8 blocks, 48 warps per SM). Core clock 700 MHz and 177.4 GB/s DRAM are the
  // GPGPU-Sim gtx480 configuration's values (the same DRAM figure as seed 003 Table 1).
  p.push_back(fermi("gtx480", 15, 700.0, 177.4, 1536LL << 20, "GTX 480 (Fermi) as configured in GPGPU-Sim 3.2",
                    "seed 001 Table 4; GPGPU-Sim gtx480 config (700 MHz core clock, 177.4 GB/s)"));
  // Tesla C2050: seed 000 Table 2 (Fermi GF110, 14 SMs, 1147 MHz, 3072 MB, 144 GB/s).
  p.push_back(fermi("c2050", 14, 1147.0, 144.0, 3072LL << 20, "Tesla C2050 (Fermi)", "seed 000 Table 2"));
  // GTX680: seed 000 Table 2 (Kepler GK104, 8 SMX, 706 MHz, 2048 MB, 192 GB/s); compute 3.0 limits.
  {
    GpuSpec g = architecture_defaults(Architecture::Kepler);
    g.name = "gtx680";
    g.compute_minor = 0;
    g.sm_count = 8;
    g.clock_mhz = 706.0;
    g.dram_bandwidth_gbps = 192.0;
    g.memory_bytes = 2048LL << 20;
    g.max_registers_per_thread = 63;  // compute 3.0
    g.max_resident_grids = 16;        // compute 3.0
    g.description = "GeForce GTX 680 (Kepler GK104)";
    g.source = "seed 000 Table 2; CUDA compute capability 3.0 limits";
    p.push_back(g);
  }
  // Tesla K40: seed 002 Table 1 (15 SMs, 745 MHz, 12 GB, 288 GB/s, 48 KB shared, 64K registers, 2048
  // threads, compute 3.5); seed 004: K40c, 15 SMX at 745 MHz, 12 GB, PCIe measured at 10 GB/s.
  {
    GpuSpec g = architecture_defaults(Architecture::Kepler);
    g.name = "k40";
    g.compute_minor = 5;
    g.sm_count = 15;
    g.clock_mhz = 745.0;
    g.dram_bandwidth_gbps = 288.0;
    g.pcie_bandwidth_gbps = 10.0;
    g.memory_bytes = 12LL << 30;
    g.description = "Tesla K40 (Kepler GK110B)";
    g.source = "seed 002 Table 1; seed 004 section V (K40c, 10 GB/s measured PCIe)";
    p.push_back(g);
  }
  // TITAN X (Maxwell): seed 002 Table 1 (24 SMs, 1000 MHz, 24 GB as printed, 336.5 GB/s, 96 KB shared
  // memory per SM, 64K registers, 2048 threads, compute 5.2).
  {
    GpuSpec g = architecture_defaults(Architecture::Maxwell);
    g.name = "titanx";
    g.compute_minor = 2;
    g.sm_count = 24;
    g.clock_mhz = 1000.0;
    g.dram_bandwidth_gbps = 336.5;
    g.memory_bytes = 24LL << 30;
    g.description = "GeForce GTX TITAN X (Maxwell GM200)";
    g.source = "seed 002 Table 1; CUDA compute capability 5.2 limits";
    p.push_back(g);
  }
  // The 30-SM Fermi of Chimera: seed 003 Table 1 (30 SMs, 1400 MHz, 32768 registers, 8 blocks, 48 KB
  // shared memory, 177.4 GB/s); threads and warps per SM are Fermi's (1536, 48).
  p.push_back(fermi("chimera-fermi", 30, 1400.0, 177.4, 1536LL << 20, "30-SM Fermi simulated by Chimera",
                    "seed 003 Table 1"));
  // H100 SXM5 and H200: 132 SMs; 2048 threads, 64 warps, 65536 registers, 228 KB shared memory, 32
  // blocks per SM (CUDA compute capability 9.0); boost clock 1980 MHz; HBM3 3.35 TB/s (80 GB) and
  // HBM3e 4.8 TB/s (141 GB); PCIe Gen5 x16, 64 GB/s per direction (NVIDIA data sheets).
  {
    GpuSpec g = architecture_defaults(Architecture::Hopper);
    g.name = "h100";
    g.sm_count = 132;
    g.description = "H100 SXM5 (Hopper GH100)";
    g.source = "CUDA compute capability 9.0 limits; NVIDIA H100 data sheet";
    // Front-end timing measured by `gpusched-live calibrate` (traces/gpus/h100.toml, which a test keeps equal to
    // these; docs/live.md): medians of 3 repeats of 101 samples each.
    g.launch_latency_ns = 8933;
    g.completion_latency_ns = 2048;
    g.launch_gap_ns = 2016;
    g.block_dispatch_ns = 0;  // measured turnover 0.60 ns a block, not applied (docs/live.md)
    g.timing_source = "traces/gpus/h100.toml (gpusched-live calibrate on an H100 80GB HBM3, 2026-11-23)";
    p.push_back(g);
    g.name = "h200";
    g.dram_bandwidth_gbps = 4800.0;
    // The data sheet's 141 GB; the runtime reports 150,109,880,320 bytes usable (gpusched-live devices on an
    // H200, 2026-11-21), which is what a workload can allocate.
    g.memory_bytes = 150109880320LL;
    g.description = "H200 SXM (Hopper GH100, HBM3e)";
    g.source = "CUDA compute capability 9.0 limits; NVIDIA H200 data sheet; memory size from cudaGetDeviceProperties";
    g.launch_latency_ns = 7932;
    g.completion_latency_ns = 1632;
    g.launch_gap_ns = 1632;
    g.block_dispatch_ns = 0;  // measured turnover 0.60 ns a block, not applied (docs/live.md)
    g.grid_start_interval_ns = 2060;  // calibrate's grid-start probe, 2026-11-29 (the H100's is not measured: 0)
    g.timing_source = "traces/gpus/h200.toml (gpusched-live calibrate on an H200, 2026-11-23)";
    p.push_back(g);
  }
  return p;
}

}  // namespace

GpuSpec without_front_end_timing(GpuSpec g) {
  g.launch_latency_ns = g.completion_latency_ns = g.launch_gap_ns = g.grid_start_interval_ns = 0;
  g.block_dispatch_ns = 0.0;
  return g;
}

GpuSpec architecture_defaults(Architecture a) {
  GpuSpec g;
  g.architecture = a;
  switch (a) {
    case Architecture::Fermi:
      // Compute 2.x (CUDA occupancy calculator): 64-register allocation unit per warp, two register
      // sub-partitions, 128-byte shared memory granularity, no per-block reservation.
      g.compute_major = 2;
      g.compute_minor = 0;
      g.max_threads_per_sm = 1536;
      g.max_warps_per_sm = 48;
      g.max_blocks_per_sm = 8;
      g.registers_per_sm = 32768;
      g.max_registers_per_block = 32768;
      g.max_registers_per_thread = 63;
      g.register_allocation_unit = 64;
      g.register_sub_partitions = 2;
      g.shared_memory_per_sm = 49152;
      g.max_shared_memory_per_block = 49152;
      g.shared_memory_allocation_unit = 128;
      g.reserved_shared_memory_per_block = 0;
      g.warp_schedulers_per_sm = 2;
      g.max_resident_grids = 16;    // compute 2.x
      g.pcie_bandwidth_gbps = 8.0;  // PCIe 2.0 x16
      g.placement = BlockPlacement::RoundRobin;
      break;
    case Architecture::Kepler:
      g.compute_major = 3;
      g.compute_minor = 5;
      g.max_threads_per_sm = 2048;
      g.max_warps_per_sm = 64;
      g.max_blocks_per_sm = 16;
      g.registers_per_sm = 65536;
      g.max_registers_per_block = 65536;
      g.max_registers_per_thread = 255;
      g.register_allocation_unit = 256;
      g.register_sub_partitions = 4;
      g.shared_memory_per_sm = 49152;
      g.max_shared_memory_per_block = 49152;
      g.shared_memory_allocation_unit = 256;
      g.reserved_shared_memory_per_block = 0;
      g.warp_schedulers_per_sm = 4;
      g.max_resident_grids = 32;     // compute 3.5 (3.0: 16, set by its preset)
      g.pcie_bandwidth_gbps = 16.0;  // PCIe 3.0 x16
      g.placement = BlockPlacement::RoundRobin;
      break;
    case Architecture::Maxwell:
      g.compute_major = 5;
      g.compute_minor = 2;
      g.max_threads_per_sm = 2048;
      g.max_warps_per_sm = 64;
      g.max_blocks_per_sm = 32;
      g.registers_per_sm = 65536;
      g.max_registers_per_block = 65536;
      g.max_registers_per_thread = 255;
      g.register_allocation_unit = 256;
      g.register_sub_partitions = 4;
      g.shared_memory_per_sm = 98304;
      g.max_shared_memory_per_block = 49152;
      g.shared_memory_allocation_unit = 256;
      g.reserved_shared_memory_per_block = 0;
      g.warp_schedulers_per_sm = 4;
      g.max_resident_grids = 32;  // compute 5.2
      g.pcie_bandwidth_gbps = 16.0;
      g.placement = BlockPlacement::MostFree;
      break;
    case Architecture::Hopper:
      // Compute 9.0: 228 KB of shared memory per SM usable by blocks (227 KB per block, opt-in), 1 KB
      // reserved per block by the driver, 128-byte shared memory and 256-register granularities.
      g.compute_major = 9;
      g.compute_minor = 0;
      g.max_threads_per_sm = 2048;
      g.max_warps_per_sm = 64;
      g.max_blocks_per_sm = 32;
      g.registers_per_sm = 65536;
      g.max_registers_per_block = 65536;
      g.max_registers_per_thread = 255;
      g.register_allocation_unit = 256;
      g.register_sub_partitions = 4;
      g.shared_memory_per_sm = 233472;
      g.max_shared_memory_per_block = 232448;
      g.shared_memory_allocation_unit = 128;
      g.reserved_shared_memory_per_block = 1024;
      g.warp_schedulers_per_sm = 4;
      g.max_resident_grids = 128;  // compute 9.0
      g.pcie_bandwidth_gbps = 64.0;
      g.placement = BlockPlacement::MostFree;
      break;
  }
  return g;
}

std::string_view to_string(Architecture a) {
  switch (a) {
    case Architecture::Fermi: return "fermi";
    case Architecture::Kepler: return "kepler";
    case Architecture::Maxwell: return "maxwell";
    case Architecture::Hopper: return "hopper";
  }
  return "unknown";
}

std::optional<Architecture> architecture_from_string(std::string_view s) {
  for (auto a : {Architecture::Fermi, Architecture::Kepler, Architecture::Maxwell, Architecture::Hopper})
    if (iequals(s, to_string(a))) return a;
  return std::nullopt;
}

std::string_view to_string(BlockPlacement p) { return p == BlockPlacement::RoundRobin ? "round-robin" : "most-free"; }

std::optional<BlockPlacement> placement_from_string(std::string_view s) {
  if (iequals(s, "round-robin")) return BlockPlacement::RoundRobin;
  if (iequals(s, "most-free")) return BlockPlacement::MostFree;
  return std::nullopt;
}

const std::vector<GpuSpec>& gpu_presets() {
  static const std::vector<GpuSpec> presets = make_presets();
  return presets;
}

const GpuSpec* find_gpu_preset(std::string_view name) {
  for (const auto& g : gpu_presets())
    if (iequals(g.name, name)) return &g;
  return nullptr;
}

std::string gpu_preset_names() {
  std::string out;
  for (const auto& g : gpu_presets()) {
    if (!out.empty()) out += ", ";
    out += g.name;
  }
  return out;
}

}  // namespace gpusched
