#pragma once
// How many of a set of blocks are resident at once on one SM over time, from their starts and ends: the sweep that
// planned_part_residency (a part's most an SM) and PieceCut::apart_where_residency_changes (a launch's most per window
// of the cut) share.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "core/time.h"

namespace gpusched::sim {

// `changes`: (time, +1) at each block's start and (time, -1) at its end, on one SM; sorted here (an end before a start
// at the same time). Calls `f(from, to, level)` for every interval [from, to) over which `level` > 0 blocks are
// resident.
template <class F>
void for_each_resident_level(std::vector<std::pair<TimeNs, int>>& changes, F&& f) {
  std::sort(changes.begin(), changes.end());
  int now = 0;
  for (std::size_t j = 0; j < changes.size(); ++j) {
    now += changes[j].second;
    if (j + 1 == changes.size()) break;
    if (changes[j + 1].first == changes[j].first) continue;  // the level holds from the last change at this time on
    if (now > 0) f(changes[j].first, changes[j + 1].first, now);
  }
}

}  // namespace gpusched::sim
