// Seed 004's Table I programs as simulated workloads on the K40 preset: each program is one kernel,
// launched `calls` times in order on its own stream, whose calls add up to the program's native runtime,
// with the table's memory footprint. What the table does not give (kernel calls for most programs, grid
// shapes, block times, dirty fractions) is chosen here and documented in docs/policies/timeshare.md.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/workload.h"

namespace gpusched {

struct SharegpuProgram {
  std::string name;
  bool memory_bound = false;       // Table I "Characteristic"
  std::int64_t footprint_mib = 0;  // Table I "Memory Footprint"
  double native_s = 0.0;           // Table I "Native Runtime"
  int calls = 1;                   // kernel calls (BFS 28, Gaussian 20K from the text; the rest ours)
  double dirty_fraction = 0.5;     // the footprint's share in variables the kernel writes (ours, from the data;
                                   // core/sharegpu_programs.cpp gives the arithmetic)
};

// What a program saves when it yields: `data`, the variables its kernel writes (the framework's metadata marks
// each variable dirty or not, section II-E; dirty_fraction above), or `half` of the footprint for every
// program (the rule before session 21, kept for comparison).
enum class SharegpuDirty { Data, Half };
SharegpuDirty parse_sharegpu_dirty(const std::string& text);  // "data" or "half"; throws otherwise

// The seven programs of Table I, in the table's order.
const std::vector<SharegpuProgram>& sharegpu_programs();
const SharegpuProgram* find_sharegpu_program(const std::string& name);

// One call's kernel: waves of blocks (4 per SM, 256 threads) lasting native_s / calls together, blocks of
// at most 10 ms, 2% block-time RSD; footprint from the table, dirty bytes by `dirty`. Seed 0: the program's own
// (501 + its row in Table I), so every command draws the same blocks for it.
GeneratedProfile sharegpu_kernel(const SharegpuProgram& p, const std::string& gpu = "k40", std::uint64_t seed = 0,
                                 SharegpuDirty dirty = SharegpuDirty::Data);

// A workload of the given programs (kernels from `kernels`, same order), each one's calls on its own stream
// from time 0, tenant = program name, run `repeats[i]` times in a row (default once); `block_coalesced`
// marks every launch.
Workload sharegpu_workload(const std::string& name, const std::vector<const SharegpuProgram*>& programs,
                           const std::vector<std::shared_ptr<const KernelProfile>>& kernels, bool block_coalesced,
                           const std::vector<int>& repeats = {});

}  // namespace gpusched
