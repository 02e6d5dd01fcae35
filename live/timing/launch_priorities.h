// Stream priorities that make the hardware's own block dispatch carry out a plan that only orders whole
// launches (issue "Fidelity 2": fifo, sjf, knapsack, where a policy decides which launch's next block goes into
// a freed slot and never stops a running block). The hardware dispatches the pending blocks of the highest-
// priority grid first, and among grids of one priority in launch order; so a launch that the plan lets finish
// issuing its blocks before another launch it overlapped with (both had blocks to issue at once) gets a higher
// priority than that launch. Plain C++: tested without a GPU.
#pragma once
#include <cstddef>
#include <vector>

#include "core/run_result.h"

namespace gpusched::live {

struct LaunchPriorities {
  // Per launch: a CUDA stream priority, `least` (the default) down to `greatest` (lower numbers run first).
  std::vector<int> priority;
  int levels_needed = 1;    // 1 + the most inversions along a chain of overlapping launches
  int levels_given = 1;     // least - greatest + 1
  std::size_t clamped = 0;  // launches that needed a level the device does not have (got `greatest`)
};

// From the plan's pieces: a launch's issuing window is [release, start of its last block]; two launches whose
// windows overlap are ordered by the end of their windows (the earlier end issues first; ties by release, then
// index). Equal priorities keep release order, so only an inversion (the launch released later issues first)
// needs a level more: a launch's level is the most inversions along a chain of launches it must come before; its
// priority least - level, clamped at greatest. fifo's plans need one level. Launches with no pieces get `least`.
LaunchPriorities launch_priorities(const RunResult& plan, int least, int greatest);

}  // namespace gpusched::live
