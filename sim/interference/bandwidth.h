// The `bandwidth` interference model's rule (sim/interference/bandwidth.cpp), shared with `gpusched crossval`,
// which applies it to measured co-runs. docs/interference.md.
#pragma once
#include "core/gpu_spec.h"
#include "core/kernel_profile.h"

namespace gpusched::sim {

// A block's DRAM demand in bytes/ns: its counted DRAM traffic (dram_bytes_per_block) or else its compulsory
// traffic (memory footprint / grid blocks), over its mean block time; 0 for a kernel without either or records.
double bandwidth_demand_per_block(const KernelProfile& k);

// The slowdown of a block whose SM demands `demand` bytes/ns in all, its kernel demanding `own_demand` per block
// at an occupancy limit of `own_limit`: max(1, demand / max(own_limit x own_demand, bandwidth / SMs)).
double bandwidth_slowdown(double demand, double own_demand, int own_limit, const GpuSpec& gpu);

}  // namespace gpusched::sim
