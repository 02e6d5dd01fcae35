// KernelProfile: a kernel's static attributes and what is known of its blocks (DESIGN, "Core
// vocabulary"). Block records are held as durations only (8 bytes a record), per residency.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/occupancy.h"
#include "core/time.h"

namespace gpusched {

// One recorded block: which block, on which SM, when (ns, or cycles in a file with a clock).
struct BlockRecord {
  std::int64_t block = 0;
  int sm = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};

// Which time of a recorded block the engine replays (docs/formats.md, "Block time"): its slot occupancy
// (dispatch to end, core/slot_occupancy.h), or the raw `end - start` of its stamps.
enum class BlockTime { Slot, Raw };

// The block durations recorded while `residency` blocks of the kernel shared each SM.
struct RecordSet {
  int residency = 0;
  std::string file;  // where the records came from (for messages and provenance)
  // duration_by_block[b] = the time block b takes in the replay (its slot occupancy unless `block_time` says
  // raw), or -1 where block b was not recorded. The count, sorted durations, mean and deviation are derived from it.
  std::vector<TimeNs> duration_by_block;
  // The other of a recorded block's two times (raw end - start when the replay uses slot occupancy, and the other
  // way round), -1 where not recorded; swapped in by select_block_time. Empty for record sets built in code, whose
  // one time is both.
  std::vector<TimeNs> alternate_by_block;
  BlockTime block_time = BlockTime::Slot;
  TimeNs span = 0;            // the recording's span: first block start to last block end (0: built in code)
  std::int64_t recorded = 0;  // how many blocks have a record
  // Recorded durations sorted ascending: the empirical distribution that unrecorded blocks draw from.
  std::vector<TimeNs> sorted_durations;
  double mean_ns = 0.0;
  double stddev_ns = 0.0;

  // end - start of each block's stamps (what the block's own execution took: block-time comparisons with measured
  // runs, fits of interference) and each block's slot occupancy, whichever of the two the replay uses.
  const std::vector<TimeNs>& raw_by_block() const {
    return block_time == BlockTime::Raw || alternate_by_block.empty() ? duration_by_block : alternate_by_block;
  }
  const std::vector<TimeNs>& slot_by_block() const {
    return block_time == BlockTime::Slot || alternate_by_block.empty() ? duration_by_block : alternate_by_block;
  }
};

struct KernelProfile {
  std::string name;
  std::string file;  // the attribute file it was read from ("" when built in code)
  std::string gpu;   // the GPU the records were taken on, where known
  std::array<int, 3> grid{1, 1, 1};
  std::array<int, 3> block{1, 1, 1};
  int registers_per_thread = 0;
  int shared_memory_per_block = 0;  // bytes, static + dynamic
  std::optional<double> instructions_per_block;
  std::optional<double> memory_instructions_per_block;
  // Counted by a profiler (live/counters-on-device.sh): DRAM bytes read and written per block, and the fraction of
  // global memory instructions that are uncoalesced (one 32-byte sector per thread). Where absent, the bandwidth
  // model falls back to the compulsory traffic (memory_footprint_bytes / blocks) and Kernelet's model to none.
  std::optional<double> dram_bytes_per_block;
  std::optional<double> uncoalesced_fraction;
  std::int64_t context_bytes_per_block = 0;  // saved and restored by a context switch
  std::int64_t memory_footprint_bytes = 0;   // device memory the kernel's data takes
  std::int64_t dirty_bytes = 0;              // part of the footprint the kernel writes
  // Fraction of a block's progress after which it is no longer idempotent (first atomic or overwrite of
  // global memory it read). 1.0: idempotent throughout; 0.0: never safely flushable.
  double idempotent_until = 1.0;
  // Whether a running block can be stopped before its end (flushed or switched out). The paper GPUs' hardware
  // switches any block; on a real GPU the live executor stops a block only at the safe points its body has
  // (docs/validation.md, "Preemption on the GPU"), and the suite's kernels without any are recorded with false:
  // a plan for them drains instead (docs/formats.md).
  bool stoppable = true;
  std::optional<double> pur;           // Kernelet's pipeline utilisation ratio, where known
  std::optional<double> mur;           // Kernelet's memory-bandwidth utilisation ratio, where known
  std::vector<RecordSet> record_sets;  // sorted by residency
  // How many of this kernel's own blocks one block of another kernel (by profile name) weighs as on a shared SM,
  // fitted from native runs (scripts/fit-equivalent-blocks.py; the `equivalent` interference model,
  // docs/interference.md "Equivalent residency"). Absent: 1.
  std::map<std::string, double> equivalent_blocks;
  // The share of the kernel's residency that its block time reads over the whole GPU rather than on its SM: how
  // much its time follows the blocks of its own suite kernel anywhere on the GPU (a memory-bound kernel's) against
  // those beside it. Fitted from the placement co-runs' references, the kernel alone on 16, 116 and 132 SMs
  // (scripts/fit-gpu-wide-share.py; the `equivalent` model's gpu_wide=on, docs/interference.md "A GPU-wide share of
  // the residency"). Absent: 0.
  std::optional<double> gpu_wide_share;
  // How many of this kernel's own blocks per SM one block per SM of another kernel (by profile name) anywhere on the
  // GPU weighs as, beyond its blocks on this kernel's SM: the other kernel's load on the memory system. Fitted per pair
  // from the apart co-runs at several partner SM counts (scripts/fit-gpu-wide-share.py; the same gpu_wide option).
  // Absent: 0.
  std::map<std::string, double> gpu_wide_blocks;
  // Where recorded traces come from (device, driver, timer resolution, date, command): free text by key.
  std::map<std::string, std::string> provenance;

  std::int64_t block_count() const { return static_cast<std::int64_t>(grid[0]) * grid[1] * grid[2]; }
  int threads_per_block() const { return block[0] * block[1] * block[2]; }
  KernelShape shape() const { return KernelShape{threads_per_block(), registers_per_thread, shared_memory_per_block}; }
  // The record set taken at the highest residency (the kernel running alone at full occupancy).
  const RecordSet* primary_records() const { return record_sets.empty() ? nullptr : &record_sets.back(); }
  // Mean block time at the primary residency (0 when there are no records).
  double mean_block_ns() const { return primary_records() ? primary_records()->mean_ns : 0.0; }
};

// What a context switch saves when a profile does not say: every thread's registers (4 bytes each) and the
// block's shared memory.
inline std::int64_t default_context_bytes(int registers_per_thread, int threads_per_block, int shared_memory) {
  return static_cast<std::int64_t>(registers_per_thread) * 4 * threads_per_block + shared_memory;
}

// Mean block time at `residency` blocks per SM, interpolated linearly between the record sets' means and clamped
// outside them (the `residency` interference model's rule); 0 without record sets.
double mean_block_ns_at(const KernelProfile& k, double residency);

// Fills the derived fields of a record set (count, sorted durations, mean and deviation).
void finalize_record_set(RecordSet& set);

// Makes every record set of `k` replay `time` (slot occupancy or raw end - start) and re-derives its
// statistics; record sets without both times (built in code) are left as they are.
void select_block_time(KernelProfile& k, BlockTime time);

std::string_view to_string(BlockTime t);
std::optional<BlockTime> block_time_from_string(std::string_view s);

}  // namespace gpusched
