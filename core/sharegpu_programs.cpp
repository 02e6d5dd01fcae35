#include "core/sharegpu_programs.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/occupancy.h"

namespace gpusched {

const std::vector<SharegpuProgram>& sharegpu_programs() {
  // Dirty fractions: the bytes of the variables each program's kernels write over its footprint, from Table I's
  // inputs and the sources' data layouts (Rodinia, CUDA SDK). Each layout adds up to within 10 % of Table I's
  // footprint.
  //  bfs        n = 32 M nodes: nodes 8n, three bool masks 3n, cost 4n, edges the rest; written: masks and
  //             cost, 7n = 235 MB of 1385 MB                                                        -> 0.17
  //  gaussian   n = 10240: a and m n^2 floats each (839 MB), b n floats; Fan1 writes m, Fan2 a and b -> 1.0
  //  kmeans     3.5 M points x 34 features: feature and feature_swap 476 MB each, membership 14 MB;
  //             the clustering kernel writes membership, 14 MB of 1055 MB                           -> 0.013
  //  matmul     A 25k x 20k, B 20k x 20k, C 25k x 20k floats (5.6 GB); written: C, 5e8 of 1.4e9      -> 0.36
  //  mattrans   idata and odata 26480^2 floats, 2.8 GB each; written: odata                        -> 0.5
  //  dxtc       40k x 12.78k RGBA pixels (2.04 GB) in, DXT1 out at 0.5 byte a pixel (0.26 GB)       -> 0.11
  //  stringsort a 1 GiB list of strings in a 3 GiB footprint: the rest is the sort's keys, indices and
  //             their buffers, which a sort rewrites (the source [12] is not public; our reading)   -> 0.67
  static const std::vector<SharegpuProgram> p{
      {"bfs", true, 1321, 0.395, 28, 0.17},          // "BFS ... issues 28 kernel calls"
      {"gaussian", false, 883, 327.45, 20000, 1.0},  // "Gaussian have a lot of kernel calls (20K ...)"
      {"kmeans", true, 1006, 0.064, 20, 0.013},
      {"matmul", false, 5424, 54.198, 1, 0.36},  // "matMul has only one kernel call"
      {"mattrans", true, 5433, 0.179, 1, 0.5},
      {"dxtc", false, 2280, 20.75, 100, 0.11},
      {"stringsort", true, 3072, 0.203, 10, 2.0 / 3.0},
  };
  return p;
}

SharegpuDirty parse_sharegpu_dirty(const std::string& text) {
  if (text == "data") return SharegpuDirty::Data;
  if (text == "half") return SharegpuDirty::Half;
  throw std::invalid_argument("dirty: '" + text + "' is not one of data, half");
}

const SharegpuProgram* find_sharegpu_program(const std::string& name) {
  for (const auto& p : sharegpu_programs())
    if (p.name == name) return &p;
  return nullptr;
}

GeneratedProfile sharegpu_kernel(const SharegpuProgram& p, const std::string& gpu_name, std::uint64_t seed,
                                 SharegpuDirty dirty) {
  const GpuSpec* gpu = find_gpu_preset(gpu_name);
  if (!gpu) throw std::invalid_argument(fmt::format("unknown GPU preset '{}'", gpu_name));
  SyntheticProfileSpec s;
  s.name = p.name;
  s.gpu = gpu->name;
  s.threads_per_block = 256;
  s.registers_per_thread = 32;
  s.shared_memory_per_block = 12 * 1024;  // 4 blocks per K40 SMX (48 KB)
  const int per_sm = compute_occupancy(*gpu, KernelShape{256, 32, 12 * 1024}).blocks_per_sm;
  const double call_ns = p.native_s * 1e9 / p.calls;
  const auto waves = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(call_ns / 10e6)));
  s.blocks = waves * per_sm * gpu->sm_count;
  s.mean_block_ns = call_ns / static_cast<double>(waves);
  s.rsd = 0.02;
  s.seed = seed;
  if (seed == 0)
    for (std::size_t i = 0; i < sharegpu_programs().size(); ++i)
      if (sharegpu_programs()[i].name == p.name) s.seed = 501 + i;
  s.memory_footprint_bytes = p.footprint_mib << 20;
  auto out = synthesize_profile(s);
  out.profile.dirty_bytes = dirty == SharegpuDirty::Half
                                ? out.profile.memory_footprint_bytes / 2
                                : static_cast<std::int64_t>(std::llround(
                                      static_cast<double>(out.profile.memory_footprint_bytes) * p.dirty_fraction));
  return out;
}

Workload sharegpu_workload(const std::string& name, const std::vector<const SharegpuProgram*>& programs,
                           const std::vector<std::shared_ptr<const KernelProfile>>& kernels, bool block_coalesced,
                           const std::vector<int>& repeats) {
  if (programs.size() != kernels.size()) throw std::invalid_argument("sharegpu_workload: one kernel per program");
  std::vector<Launch> launches;
  for (std::size_t i = 0; i < programs.size(); ++i)
    for (int c = 0; c < programs[i]->calls * (i < repeats.size() ? repeats[i] : 1); ++c) {
      Launch l;
      l.id = fmt::format("{}#{}", programs[i]->name, c);
      l.kernel = i;
      l.tenant = programs[i]->name;
      l.stream = programs[i]->name;
      l.block_coalesced = block_coalesced;
      launches.push_back(std::move(l));
    }
  auto w = make_workload(name, kernels, std::move(launches));
  w.gpu = kernels.empty() ? "" : kernels.front()->gpu;
  return w;
}

}  // namespace gpusched
