// The benchmarks' 1-million-block workload: 64 launches of 15,625 blocks (block sizes 128-512 threads, block
// times drawn from 1000 recorded values of 5-15 us per kernel), arriving over the first millisecond. Shared by
// the engine benchmark and the GUI's paint benchmark, so that both measure the same run.
#pragma once
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "core/random.h"
#include "core/workload.h"

namespace gpusched::bench {

struct BenchWorkload {
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  Workload workload;
};

inline const BenchWorkload& million_block_workload() {
  static const BenchWorkload w = [] {
    BenchWorkload b;
    Rng rng(1);
    std::vector<Launch> launches;
    const int launches_n = 64, blocks_each = 15625;  // 64 x 15625 = 1,000,000 blocks
    for (int i = 0; i < launches_n; ++i) {
      auto k = std::make_shared<KernelProfile>();
      k->name = fmt::format("k{}", i);
      k->grid = {blocks_each, 1, 1};
      k->block = {static_cast<int>(128 * (1 + i % 4)), 1, 1};
      k->registers_per_thread = 32;
      RecordSet set;
      set.residency = 1;
      // 1000 recorded blocks; the others draw from them (seeded), as a sampled trace would.
      set.duration_by_block.assign(blocks_each, -1);
      for (int r = 0; r < 1000; ++r) set.duration_by_block[static_cast<std::size_t>(r)] = rng.uniform_int(5000, 15000);
      finalize_record_set(set);
      k->record_sets.push_back(std::move(set));
      b.kernels.push_back(k);
      Launch l;
      l.id = k->name;
      l.kernel = static_cast<std::size_t>(i);
      l.arrival = rng.uniform_int(0, 1'000'000);
      launches.push_back(l);
    }
    b.workload = make_workload("bench", b.kernels, launches);
    return b;
  }();
  return w;
}

}  // namespace gpusched::bench
