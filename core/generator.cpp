#include "core/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <stdexcept>

#include "core/occupancy.h"
#include "core/random.h"

namespace gpusched {

GeneratedProfile synthesize_profile(const SyntheticProfileSpec& spec) {
  const GpuSpec* gpu = find_gpu_preset(spec.gpu);
  if (!gpu) throw std::invalid_argument(fmt::format("unknown GPU preset '{}'", spec.gpu));
  GeneratedProfile out;
  KernelProfile& p = out.profile;
  p.name = spec.name;
  p.gpu = gpu->name;
  if (spec.blocks > INT32_MAX) throw std::invalid_argument("too many blocks");
  p.grid = {static_cast<int>(spec.blocks), 1, 1};
  p.block = {spec.threads_per_block, 1, 1};
  p.registers_per_thread = spec.registers_per_thread;
  p.shared_memory_per_block = spec.shared_memory_per_block;
  p.context_bytes_per_block =
      spec.context_bytes_per_block >= 0
          ? spec.context_bytes_per_block
          : default_context_bytes(spec.registers_per_thread, spec.threads_per_block, spec.shared_memory_per_block);
  p.idempotent_until = spec.idempotent_until;
  p.memory_footprint_bytes = spec.memory_footprint_bytes;
  p.dirty_bytes = spec.memory_footprint_bytes;
  p.instructions_per_block = spec.instructions_per_block;
  p.memory_instructions_per_block = spec.memory_instructions_per_block;
  p.pur = spec.pur;
  p.mur = spec.mur;
  const auto occ = compute_occupancy(*gpu, p.shape());
  if (occ.blocks_per_sm == 0)
    throw std::invalid_argument(fmt::format("kernel '{}' does not fit on {}: {}", spec.name, gpu->name, occ.reason));

  Rng rng(spec.seed);
  std::vector<TimeNs> durations(static_cast<std::size_t>(spec.blocks));
  for (auto& d : durations)
    d = std::max<TimeNs>(1, static_cast<TimeNs>(std::llround(rng.lognormal_mean_cv(spec.mean_block_ns, spec.rsd))));

  // Lay the blocks out alone on the GPU: slots (SM, k) for k < residency, the first free slot (lowest
  // SM on ties) takes the next block, as the hardware issues blocks in index order.
  const int slots_per_sm = occ.blocks_per_sm;
  using Slot = std::pair<TimeNs, int>;  // (free at, SM * slots_per_sm + k)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free_slots;
  for (int k = 0; k < slots_per_sm; ++k)
    for (int sm = 0; sm < gpu->sm_count; ++sm) free_slots.emplace(0, k * gpu->sm_count + sm);
  std::vector<BlockRecord> records;
  records.reserve(durations.size());
  for (std::size_t b = 0; b < durations.size(); ++b) {
    auto [t, slot] = free_slots.top();
    free_slots.pop();
    const int sm = slot % gpu->sm_count;
    records.push_back(BlockRecord{static_cast<std::int64_t>(b), sm, t, t + durations[b]});
    free_slots.emplace(t + durations[b], slot);
  }
  RecordSet set;
  set.residency = slots_per_sm;
  set.duration_by_block = durations;
  finalize_record_set(set);
  p.record_sets.push_back(std::move(set));
  out.records.push_back(std::move(records));
  return out;
}

GeneratedWorkload generate_knapsack_workload(const KnapsackGeneratorSpec& spec) {
  const GpuSpec* gpu = find_gpu_preset(spec.gpu);
  if (!gpu) throw std::invalid_argument(fmt::format("unknown GPU preset '{}'", spec.gpu));
  if (spec.kernels < 1 || spec.max_blocks < spec.min_blocks || spec.min_blocks < 1 || spec.streams < 1)
    throw std::invalid_argument("generator: need kernels >= 1, streams >= 1 and 1 <= min_blocks <= max_blocks");
  Rng rng(spec.seed);
  GeneratedWorkload out;
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  std::vector<Launch> launches;
  for (int i = 0; i < spec.kernels; ++i) {
    SyntheticProfileSpec ps;
    ps.name = fmt::format("k{:03}", i);
    ps.gpu = gpu->name;
    ps.blocks = rng.uniform_int(spec.min_blocks, spec.max_blocks);
    ps.threads_per_block = static_cast<int>(32 * rng.uniform_int(1, gpu->max_threads_per_block / 32));
    // Shared memory in 256-byte steps up to the per-block limit (seed 002 draws sh_i at random; registers
    // are left at zero as in the paper).
    const int max_smem = std::min(gpu->max_shared_memory_per_block, 49152);
    ps.shared_memory_per_block = static_cast<int>(256 * rng.uniform_int(0, max_smem / 256));
    ps.registers_per_thread = 0;
    ps.mean_block_ns = rng.uniform(spec.min_block_us, spec.max_block_us) * 1000.0;
    ps.rsd = spec.block_rsd;
    ps.seed = rng.next();
    out.profiles.push_back(synthesize_profile(ps));
    kernels.push_back(std::make_shared<KernelProfile>(out.profiles.back().profile));
    Launch l;
    l.id = ps.name;
    l.kernel = static_cast<std::size_t>(i);
    l.tenant = ps.name;
    l.stream = fmt::format("s{:02}", i % spec.streams);
    l.arrival = 0;
    launches.push_back(l);
  }
  out.workload = make_workload(fmt::format("knapsack-n{}-nb{}-s{}", spec.kernels, spec.max_blocks, spec.seed),
                               std::move(kernels), std::move(launches));
  out.workload.gpu = gpu->name;
  return out;
}

}  // namespace gpusched
