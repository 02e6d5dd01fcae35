// Kernelet's Markov-chain performance model (seed 000, section 4.4): the issue process of one streaming
// multiprocessor as a Markov chain over the number of idle (memory-stalled) warps, solved for its stationary
// vector, giving each kernel's IPC as the ratio of issuing cycles (Eq. 4; Eq. 5-7 for two or more kernels).
//
// Generalised in one solver: any number of kernels (1: the homogeneous model, 2: the heterogeneous model with
// (w1+1)(w2+1) states); a unit of the chain is a warp or, for speed, a thread block (the paper's speed-up); a
// kernel with uncoalesced memory instructions gets the three-state extension (ready, stalled on a coalesced
// access, stalled on an uncoalesced one); an SM with several warp schedulers is modelled as one virtual SM per
// scheduler with the SM's blocks and bandwidth divided among them. docs/policies/kernelet.md gives the
// equations and where the text had to be interpreted.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"

namespace gpusched::kernelet {

// One kernel's part of the chain.
struct ChainKernel {
  int units = 1;              // warps (or blocks) of the kernel on the (virtual) SM
  double warps_per_unit = 1;  // a ready unit issues this many instructions per round (1 for warps; a block's
                              // share of one scheduler where blocks are split over the schedulers: can be < 1)
  double memory_ratio = 0.0;  // R_m: memory instructions / instructions, in [0, 1]
  double uncoalesced = 0.0;   // fraction of memory instructions that are uncoalesced, in [0, 1]
};

// The linear memory model: a stalled unit waits L = L0 + b0 + a0 * Q / B cycles, Q the memory requests
// outstanding on the (virtual) SM in the current state and B its bandwidth in requests per cycle. An
// uncoalesced access waits (requests_per_uncoalesced - 1) / B cycles longer (its own requests serialise).
struct ChainMemory {
  double base_latency = 500.0;             // L0, cycles
  double bandwidth = 0.1;                  // B, requests per cycle
  double a0 = 1.0;                         // contention slope
  double b0 = 0.0;                         // constant term, cycles
  double requests_per_uncoalesced = 32.0;  // requests one uncoalesced warp instruction makes (coalesced: 1)
};

struct ChainSolution {
  std::vector<double> stationary;  // the stationary vector, one entry per state (sums to 1)
  std::vector<double> ipc;         // per kernel: issued instructions per cycle of this (virtual) SM, in [0, 1]
  double total_ipc = 0.0;          // Eq. 7: the sum
  std::size_t states = 0;
};

// Builds the transition matrix over the product of the kernels' state spaces and solves it. Throws
// std::invalid_argument for out-of-range parameters or a chain of more than `max_states` states.
ChainSolution solve_chain(const std::vector<ChainKernel>& kernels, const ChainMemory& memory,
                          std::size_t max_states = 4096);

// Transition matrix of the chain (row-major, states x states), for tests and docs.
std::vector<double> transition_matrix(const std::vector<ChainKernel>& kernels, const ChainMemory& memory,
                                      std::size_t& states);

// Eq. 1: co-scheduling profit, 1 - 1 / sum_i(cIPC_i / IPC_i).
double co_scheduling_profit(const std::vector<double>& concurrent_ipc, const std::vector<double>& alone_ipc);

// A kernel as the SM-level model sees it.
struct ModelKernel {
  int warps_per_block = 1;
  double memory_ratio = 0.0;
  double uncoalesced = 0.0;
};

enum class Granularity { Warp, Block };

// How an SM's blocks are divided among its warp schedulers (virtual SMs). Blocks: the paper's text (section 4.4,
// "active thread blocks ... divided by the number of warp schedulers"): blocks / s per virtual SM, interpolated
// where fractional, so one block on four schedulers is a quarter of a one-block virtual SM and the SM can issue at
// most one scheduler's peak. Warps: as the hardware places warps (warp i of a block to scheduler i mod s), every
// block has warps_per_block / s warps on each virtual SM (docs/policies/kernelet.md, "Blocks or warps over the
// schedulers").
enum class SchedulerSplit { Blocks, Warps };

// GPU-level settings of the model.
struct SmModel {
  ChainMemory memory;     // per SM (bandwidth of the whole SM; divided per virtual SM)
  int schedulers = 1;     // warp schedulers per SM (virtual SMs)
  double peak_ipc = 1.0;  // warp instructions per cycle of the whole SM at full issue
  Granularity granularity = Granularity::Block;
  SchedulerSplit split = SchedulerSplit::Blocks;
};

// Defaults from a GpuSpec: bandwidth in 128-byte requests per cycle per SM from the DRAM bandwidth, clock and
// SM count; schedulers from the spec; peak IPC and base latency by architecture (docs/policies/kernelet.md).
SmModel sm_model_for(const GpuSpec& gpu);

// IPC of each kernel when `blocks[i]` blocks of kernel i share one SM (warp instructions per cycle of the
// whole SM, in [0, peak_ipc]). Kernels with no blocks get 0.
std::vector<double> sm_ipc(const SmModel& model, const std::vector<ModelKernel>& kernels,
                           const std::vector<int>& blocks);

// A profile's model inputs: warps per block from its block size; R_m from memory_instructions_per_block /
// instructions_per_block where both are given; otherwise from Kernelet's PUR and MUR (Table 4), as requests
// per instruction = (MUR x B) / (PUR x peak IPC): up to 1 this is R_m with coalesced accesses; above 1 the
// kernel makes more requests than instructions, which only uncoalesced accesses can, so it is read as
// R_m = requests / requests_per_uncoalesced with every access uncoalesced. nullopt where neither is known.
std::optional<ModelKernel> model_kernel(const KernelProfile& k, const SmModel& model, int warp_size);

}  // namespace gpusched::kernelet
