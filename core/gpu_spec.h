// GpuSpec: the SM count and per-SM limits the occupancy calculator and the engine account against,
// plus clocks and bandwidths the performance models use. Presets for the GPUs of the papers and for
// H100/H200; other GPUs load from a TOML file (core/gpu_file.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpusched {

// Compute-capability families: they fix the allocation granularities of the occupancy rules.
enum class Architecture { Fermi, Kepler, Maxwell, Hopper };

// Where the hardware thread-block scheduler puts the next block (Gilman et al. for recent GPUs).
enum class BlockPlacement { RoundRobin, MostFree };

struct GpuSpec {
  std::string name;
  std::string description;
  std::string source;  // where the numbers come from
  Architecture architecture = Architecture::Hopper;
  int compute_major = 9;
  int compute_minor = 0;

  int sm_count = 1;
  int warp_size = 32;
  int max_threads_per_sm = 2048;
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int max_threads_per_block = 1024;
  int registers_per_sm = 65536;
  int max_registers_per_block = 65536;
  int max_registers_per_thread = 255;
  int register_allocation_unit = 256;  // registers, allocated per warp
  int register_sub_partitions = 4;     // register file partitions (CUDA occupancy rules)
  int shared_memory_per_sm = 233472;   // bytes available to blocks on one SM
  int max_shared_memory_per_block = 232448;
  int shared_memory_allocation_unit = 128;
  int reserved_shared_memory_per_block = 1024;  // driver reservation per block (sm_80 and later)
  int warp_schedulers_per_sm = 4;
  // Grids (launches) the GPU keeps resident at once (CUDA C Programming Guide, "Maximum number of resident grids
  // per device"): a launch holds one from its first block's dispatch until it finishes, and a launch that holds
  // none gets no block while all are held. 0: no limit.
  int max_resident_grids = 0;

  double clock_mhz = 1980.0;
  double dram_bandwidth_gbps = 3350.0;  // GB/s (10^9 bytes per second)
  double pcie_bandwidth_gbps = 64.0;
  std::int64_t memory_bytes = 80LL << 30;
  BlockPlacement placement = BlockPlacement::MostFree;

  // The front end's timing (docs/formats.md, "GPU timing"): 0 where nothing is known (the paper GPUs), measured
  // by `gpusched-live calibrate` for the H100 and H200.
  std::int64_t launch_latency_ns = 0;      // a launch's host call to its first block on an idle GPU
  std::int64_t completion_latency_ns = 0;  // a launch's last block end to the release of one waiting on it (events)
  std::int64_t launch_gap_ns = 0;          // back-to-back on one stream: last block end to the next's release
  double block_dispatch_ns = 0.0;          // GPU-wide time between two block dispatches (1 / the dispatch rate)
  // Grids released together (each behind a gate on a stream of its own) start one at a time, at most one this often
  // (docs/validation.md, "Grids the GPU starts a second"). Applied where a plan is carried out in parts (the parts
  // replay, sim/parts_replay.h), not to a workload's own launches.
  std::int64_t grid_start_interval_ns = 0;
  std::string timing_source;               // where the timing comes from (a calibration file, a paper)

  bool has_timing() const {
    return launch_latency_ns > 0 || completion_latency_ns > 0 || launch_gap_ns > 0 || block_dispatch_ns > 0.0 ||
           grid_start_interval_ns > 0;
  }
};

// The same GPU with no front-end timing (launch latency, gaps, dispatch time all 0): the model before issue
// "Fidelity 1", and hand-computed cases that count block times only.
GpuSpec without_front_end_timing(GpuSpec g);

std::string_view to_string(Architecture a);
std::optional<Architecture> architecture_from_string(std::string_view s);
std::string_view to_string(BlockPlacement p);
std::optional<BlockPlacement> placement_from_string(std::string_view s);

// All presets, in a stable order.
const std::vector<GpuSpec>& gpu_presets();
// Case-insensitive preset lookup; nullptr when unknown.
const GpuSpec* find_gpu_preset(std::string_view name);
// Names of all presets joined with ", " for error messages.
std::string gpu_preset_names();

// Architecture defaults (granularities, per-SM limits) applied by presets and GPU files.
GpuSpec architecture_defaults(Architecture a);

}  // namespace gpusched
