// Chimera's cost estimation (seed 003 section 3.2) and preemption selection (Algorithm 1), as plain
// functions over what an SM reports: no engine types, so they can be checked by hand.
//
// Units: latency in ns, throughput overhead in instructions (warp instructions, or any unit the caller
// counts a block's progress in: only ratios and sums of them are compared).
#pragma once
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

namespace gpusched::chimera {

enum class Technique : std::uint8_t { Flush, Drain, Switch };
std::string_view to_string(Technique t);

inline constexpr double kUnknown = std::numeric_limits<double>::infinity();

// What the SM knows about one resident block of the kernel to preempt.
struct BlockObservation {
  std::int32_t id = 0;            // the caller's handle (an engine slot)
  double executed = 0.0;          // instructions executed so far
  bool flushable = false;         // idempotent at this moment (strict or relaxed condition, the caller's choice)
  std::int64_t context_bytes = 0; // registers + shared memory of the block
  // The block's own CPI so far (ns per instruction); > 0 makes drain estimates use it instead of the
  // kernel's average (an option, not the paper's estimate).
  double ns_per_instruction = 0.0;
};

// What the thread block scheduler knows about the kernel from its blocks so far.
struct KernelObservation {
  double instructions_per_block = 0.0;  // average executed by a block to its end; <= 0: unknown
  double ns_per_instruction = 0.0;      // average CPI of the kernel's blocks, in ns; <= 0: unknown
};

struct CostModel {
  double switch_bytes_per_ns = 1.0;  // the SM's share of DRAM bandwidth (section 2.4)
  double flush_latency_ns = 0.0;     // "flushing is always assumed to have zero preemption latency"
};

struct Cost {
  std::int32_t id = 0;
  Technique technique = Technique::Switch;
  double latency = 0.0;   // ns until the block's resources are free
  double overhead = 0.0;  // instructions of throughput lost
};

// Section 3.2, for every block of one SM and every technique in `allowed`:
// - switch: latency = context bytes / SM bandwidth; overhead = the kernel's IPC on this SM (resident blocks
//   / CPI) x 2 x latency (saving and loading);
// - drain: latency = (instructions per block - executed) x CPI; overhead = the largest executed count among
//   the SM's blocks - this block's (the slot idles while the others catch up); unknown statistics give
//   kUnknown for both ("conservatively use the maximum value");
// - flush: only for flushable blocks; latency = flush latency, overhead = instructions executed.
std::vector<Cost> estimate_costs(std::span<const BlockObservation> blocks, const KernelObservation& kernel,
                                 const CostModel& model, std::span<const Technique> allowed);

// One SM's plan: a technique for each of its blocks and the resulting SM cost.
struct SmPlan {
  int sm = -1;
  std::vector<Cost> choices;
  double latency = 0.0;   // max over drained/flushed blocks, and the sum of switched ones (saves queue on the SM)
  double overhead = 0.0;  // sum over blocks
};

// Algorithm 1 lines 2-17 for one SM: costs sorted by overhead (ties: latency, technique, block); each block
// takes the first of its candidates that meets `latency_limit`; blocks left without one take the fallback
// technique (Chimera: context switch), whose costs are `fallback_costs` (one per block; empty: none).
// A switch meets the limit only together with the switches already chosen on the SM, because saves share
// the SM's bandwidth (our reading: the text checks each block alone, which lets an SM's plan fail the
// SM-level check of line 23 whenever its blocks' contexts together take longer than the limit).
SmPlan plan_sm(int sm, std::span<const Cost> costs, std::span<const Cost> fallback_costs, double latency_limit,
               std::size_t block_count);

// Algorithm 1 lines 19-28: SMs sorted by overhead (ties: latency, SM), the first `count` that meet the
// latency limit. If fewer meet it, the partitioning still needs `count` SMs: the rest are the remaining
// SMs with the lowest latency (our reading: the algorithm leaves those slots empty, the paper says no more).
std::vector<SmPlan> select_sms(std::vector<SmPlan> candidates, std::size_t count, double latency_limit);

}  // namespace gpusched::chimera
