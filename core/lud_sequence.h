// Rodinia LUD's launch sequence (seed 003 section 4.3: "LUD ... launches multiple kernels that require different
// number of SMs"). For an N x N matrix in B x B tiles, iteration it = 0 .. N/B - 2 launches lud_diagonal with one
// block, lud_perimeter with m = N/B - 1 - it blocks and lud_internal with m x m blocks, one after another on one
// stream; a last lud_diagonal ends it. The paper's input is 512 x 512 with 16 x 16 tiles: 31 iterations, 94 launches
// (10,416 internal blocks, the first launch 961, the last 1). docs/policies/chimera.md.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/kernel_profile.h"
#include "core/workload.h"

namespace gpusched {

// A profile of `blocks` blocks of `k`: the same shape, its record sets cut to their first `blocks` records (block b
// keeps its own record), named NAME@BLOCKS.
std::shared_ptr<const KernelProfile> with_block_count(const KernelProfile& k, int blocks);

struct LudSequence {
  std::vector<std::shared_ptr<const KernelProfile>> kernels;  // one per launch
  std::vector<Launch> launches;                               // in order on one stream; kernel i = launch i
};

// The sequence for an N x N matrix in B x B tiles from the three kernels' profiles (diagonal, perimeter, internal);
// every launch on stream `stream` with tenant `tenant`. Throws std::invalid_argument unless N is a multiple of B
// and N / B >= 2.
LudSequence lud_sequence(const KernelProfile& diagonal, const KernelProfile& perimeter, const KernelProfile& internal,
                         int matrix_dim = 512, int tile = 16, const std::string& tenant = "lud",
                         const std::string& stream = "lud");

}  // namespace gpusched
