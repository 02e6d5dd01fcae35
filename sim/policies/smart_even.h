// Smart Even SM partitioning (seed 003 section 4, after Adriaens et al.): the SMs of a GPU are split
// evenly among the launches; a launch that needs fewer than its share gets what it needs and the rest is
// shared out again (water-filling). Used by `spatial` and by the Chimera policies.
#pragma once
#include <span>
#include <vector>

namespace gpusched::sim {

// Quota of SMs for each launch, in the order given (earlier launches take the remainder of uneven splits).
// `need[i]`: SMs launch i can fill. With `hand_out_leftover`, SMs nobody needs still go to the launches
// round-robin from the first, so none idles while any launch has work.
std::vector<int> smart_even_quotas(std::span<const int> need, int sms, bool hand_out_leftover);

// Whether a launch shares its GPU's SMs: only launches the GPU can run do (a launch without a resident grid is not
// running, and an SM given to it would idle until a grid frees). Each launch holding a grid does; of the others, taken
// in launch order, as many as the GPU has grids free: `grids_free` starts at EngineView::free_grids and counts down.
inline bool shares_the_sms(bool holds_grid, int& grids_free) {
  if (holds_grid) return true;
  if (grids_free == 0) return false;
  --grids_free;
  return true;
}

}  // namespace gpusched::sim
