// Sweep files (format "gpusched-sweep", TOML; docs/sweeps.md): which workloads (files, globs or generators
// with their parameters), which policies with parameter grids, GPUs, GPU counts, interference models and
// seeds. The sweep is their cross product.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"

namespace gpusched::sim {

inline constexpr std::int64_t kSweepFormatVersion = 1;

struct SweepWorkloadSource {
  int line = 0;
  // Either files ...
  std::vector<std::string> files;  // paths or glob patterns, resolved against the sweep file's folder
  // ... or a generator: "pairs" (seed 001's kernel pairs) or "synthetic" (seed 002's generator).
  std::string generator;
  std::map<std::string, std::string> params;  // generator parameters as given (checked when expanded)
  std::vector<std::string> kernels;           // pairs: kernel profiles (paths or globs)
  std::vector<std::uint64_t> seeds;           // synthetic: one workload per seed
};

struct SweepPolicy {
  int line = 0;
  std::string name;                                      // a registered policy, or "all"
  std::map<std::string, std::string> set;                // fixed parameters
  std::map<std::string, std::vector<std::string>> grid;  // every combination is one policy setting
};

struct SweepSpec {
  std::string file;
  std::string base_dir;
  std::string name;
  bool keep_blocks = false;
  std::vector<std::uint64_t> seeds{1};
  std::vector<std::string> interference{"none"};
  std::vector<std::string> gpus;  // "" entries never occur; empty list: each workload's own GPU
  std::vector<int> gpu_counts;    // empty: each workload's own
  std::vector<SweepWorkloadSource> workloads;
  std::vector<SweepPolicy> policies;
};

// Throws InputError naming the file, line and field.
SweepSpec read_sweep_file(const std::string& path, Warnings* warnings);
SweepSpec parse_sweep(const std::string& text, const std::string& name, const std::string& base_dir,
                      Warnings* warnings);

}  // namespace gpusched::sim
