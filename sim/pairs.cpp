#include "sim/pairs.h"

#include <cmath>

#include "core/random.h"

namespace gpusched::sim {

std::vector<KernelPair> make_kernel_pairs(const std::vector<std::shared_ptr<const KernelProfile>>& kernels,
                                          const GpuSpec& gpu, const PairOptions& options, AloneTimeCache& alone) {
  std::vector<KernelPair> out;
  Rng rng(options.seed);
  for (std::size_t a = 0; a < kernels.size(); ++a)
    for (std::size_t b = 0; b < kernels.size(); ++b) {
      if (a == b) continue;
      TimeNs second = 0;
      if (options.offset_fraction >= 0) {
        const auto t = alone.get(*kernels[a], 0, gpu, 1, "none", {}).time;
        second = static_cast<TimeNs>(std::llround(options.offset_fraction * static_cast<double>(t)));
      } else {
        second = cycles_to_ns(rng.uniform_int(0, options.offset_cycles), gpu.clock_mhz);
      }
      out.push_back({a, b, second});
    }
  return out;
}

Workload pair_workload(const std::vector<std::shared_ptr<const KernelProfile>>& kernels, const KernelPair& pair,
                       const std::string& gpu) {
  const auto& a = kernels[pair.first];
  const auto& b = kernels[pair.second];
  Launch first;
  first.id = a->name + "-1";
  first.kernel = 0;
  first.tenant = first.id;
  Launch second;
  second.id = b->name + "-2";
  second.kernel = 1;
  second.tenant = second.id;
  second.arrival = pair.second_arrival;
  Workload w = make_workload(a->name + "+" + b->name, {a, b}, {first, second});
  w.gpu = gpu;
  return w;
}

}  // namespace gpusched::sim
