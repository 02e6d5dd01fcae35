#include "core/content_hash.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "core/random.h"

namespace gpusched {

void ContentHasher::add(std::uint64_t word) {
  // Position-dependent so that swapped words change the hash.
  state_ = splitmix64(state_ ^ (word + 0x9e3779b97f4a7c15ULL * ++count_));
}

void ContentHasher::add(double v) {
  add(std::bit_cast<std::uint64_t>(v));
}

void ContentHasher::add(std::string_view s) {
  add(static_cast<std::uint64_t>(s.size()));
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    add(w);
  }
  if (i < s.size()) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    add(w);
  }
}

std::uint64_t ContentHasher::value() const {
  return splitmix64(state_ ^ count_);
}

std::string ContentHasher::hex() const {
  return fmt::format("{:016x}", value());
}

namespace {

void add_optional(ContentHasher& h, const std::optional<double>& v) {
  h.add(v.has_value() ? 1 : 0);
  if (v) h.add(*v);
}

void add_kernel(ContentHasher& h, const KernelProfile& k) {
  h.add(k.name);
  h.add(k.gpu);
  for (int d : k.grid) h.add(d);
  for (int d : k.block) h.add(d);
  h.add(k.registers_per_thread);
  h.add(k.shared_memory_per_block);
  add_optional(h, k.instructions_per_block);
  add_optional(h, k.memory_instructions_per_block);
  h.add(k.context_bytes_per_block);
  h.add(k.memory_footprint_bytes);
  h.add(k.dirty_bytes);
  h.add(k.idempotent_until);
  add_optional(h, k.pur);
  add_optional(h, k.mur);
  // Added later: hashed only when present, so the hashes of profiles without them (stored runs) do not change.
  if (!k.stoppable) h.add(std::string("not stoppable"));
  if (k.dram_bytes_per_block) {
    h.add(std::string("dram_bytes_per_block"));
    h.add(*k.dram_bytes_per_block);
  }
  if (k.uncoalesced_fraction) {
    h.add(std::string("uncoalesced_fraction"));
    h.add(*k.uncoalesced_fraction);
  }
  if (k.gpu_wide_share) {
    h.add(std::string("gpu_wide_share"));
    h.add(*k.gpu_wide_share);
  }
  for (const auto& [other, weight] : k.gpu_wide_blocks) {
    h.add(std::string("gpu_wide_blocks ") + other);
    h.add(weight);
  }
  h.add(static_cast<std::int64_t>(k.record_sets.size()));
  for (const auto& set : k.record_sets) {
    h.add(set.residency);
    h.add(static_cast<std::int64_t>(set.duration_by_block.size()));
    for (TimeNs d : set.duration_by_block) h.add(d);
  }
}

}  // namespace

std::string workload_content_hash(const Workload& w) {
  ContentHasher h;
  h.add(w.name);
  h.add(w.gpu);
  h.add(w.gpu_count);
  h.add(static_cast<std::int64_t>(w.kernels.size()));
  for (const auto& k : w.kernels) add_kernel(h, *k);
  h.add(static_cast<std::int64_t>(w.launches.size()));
  for (const auto& l : w.launches) {
    h.add(l.id);
    h.add(static_cast<std::int64_t>(l.kernel));
    h.add(l.tenant);
    h.add(l.stream);
    h.add(l.arrival);
    h.add(l.priority);
    h.add(l.deadline.value_or(-1));
    if (l.block_coalesced) h.add(std::string_view("block_coalesced"));  // only when set: older hashes stay valid
    h.add(static_cast<std::int64_t>(l.after.size()));
    for (auto a : l.after) h.add(static_cast<std::int64_t>(a));
  }
  return h.hex();
}

std::string gpu_content_hash(const GpuSpec& g) {
  ContentHasher h;
  h.add(g.name);
  h.add(static_cast<int>(g.architecture));
  for (int v : {g.compute_major, g.compute_minor, g.sm_count, g.warp_size, g.max_threads_per_sm, g.max_warps_per_sm,
                g.max_blocks_per_sm, g.max_threads_per_block, g.registers_per_sm, g.max_registers_per_block,
                g.max_registers_per_thread, g.register_allocation_unit, g.register_sub_partitions,
                g.shared_memory_per_sm, g.max_shared_memory_per_block, g.shared_memory_allocation_unit,
                g.reserved_shared_memory_per_block, g.warp_schedulers_per_sm})
    h.add(v);
  h.add(g.clock_mhz);
  h.add(g.dram_bandwidth_gbps);
  h.add(g.pcie_bandwidth_gbps);
  h.add(g.memory_bytes);
  h.add(static_cast<int>(g.placement));
  return h.hex();
}

}  // namespace gpusched
