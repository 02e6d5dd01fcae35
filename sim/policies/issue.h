// Shared helpers for the policies: issuing blocks onto SMs under the hardware's placement rules.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/gpu_spec.h"
#include "sim/engine.h"
#include "sim/params.h"

namespace gpusched::sim {

// The `placement` parameter every hardware-like policy declares: auto follows the GPU preset.
ParamSpec placement_param();
BlockPlacement resolve_placement(const Params& p, const GpuSpec& gpu);

// Round-robin keeps a cursor between calls (the hardware's next SM).
struct PlacementState {
  BlockPlacement placement = BlockPlacement::MostFree;
  int cursor = 0;
};

// Dispatches blocks of launch `l` to the candidate SMs, one block at a time in placement order, while
// `room(sm)` > 0 somewhere and the launch has blocks to issue. Returns how many were dispatched.
template <class RoomFn>
std::int64_t issue_blocks(const EngineView& v, Actions& a, std::int32_t l, std::span<const std::int32_t> candidates,
                          PlacementState& ps, RoomFn&& room) {
  std::int64_t issued = 0;
  if (candidates.empty()) return 0;
  if (candidates.size() == 1) {  // the common case: one SM freed a slot
    const int sm = candidates[0];
    const std::int64_t n = room(sm);
    if (n > 0) {
      a.dispatch(l, sm, n);
      issued = n;
    }
    return issued;
  }
  if (ps.placement == BlockPlacement::RoundRobin) {
    // Passes over the SMs starting at the cursor, one block per SM per pass.
    const int count = static_cast<int>(candidates.size());
    bool progress = true;
    while (progress && v.launch(l).issuable() > 0) {
      progress = false;
      for (int k = 0; k < count && v.launch(l).issuable() > 0; ++k) {
        const int sm = candidates[static_cast<std::size_t>((ps.cursor + k) % count)];
        if (room(sm) > 0) {
          a.dispatch(l, sm, 1);
          ++issued;
          progress = true;
          ps.cursor = (ps.cursor + k + 1) % count;
          break;
        }
      }
    }
    return issued;
  }
  // Most free: the SM with the most free warps takes the next block (lowest id on ties).
  while (v.launch(l).issuable() > 0) {
    int best = -1, best_free = -1;
    for (const int sm : candidates) {
      const int free = v.free_warps(sm);
      if (free > best_free && room(sm) > 0) {
        best = sm;
        best_free = free;
      }
    }
    if (best < 0) break;
    a.dispatch(l, best, 1);
    ++issued;
  }
  return issued;
}

// Round-robin placement over SMs 0..count-1 from the cursor, as issue_blocks over every SM does, when only the
// SMs in `maybe` can have room for launch `l` (the others are known to have none): the same blocks go to the
// same SMs and the cursor ends where it would, but only those SMs are looked at.
inline std::int64_t issue_round_robin_among(const EngineView& v, Actions& a, std::int32_t l,
                                            std::span<const std::int32_t> maybe, int count, PlacementState& ps) {
  std::int64_t issued = 0;
  while (v.launch(l).issuable() > 0) {
    int best = -1, best_distance = count;
    for (const std::int32_t sm : maybe) {
      const int distance = (sm - ps.cursor + count) % count;  // the pass meets SM cursor + distance
      if (distance < best_distance && v.room_for(l, sm) > 0) {
        best = sm;
        best_distance = distance;
      }
    }
    if (best < 0) break;
    a.dispatch(l, best, 1);
    ++issued;
    ps.cursor = (best + 1) % count;
  }
  return issued;
}

inline std::int64_t issue_blocks(const EngineView& v, Actions& a, std::int32_t l,
                                 std::span<const std::int32_t> candidates, PlacementState& ps) {
  // One freed SM (the common case): let the engine fill it without asking for the room first.
  if (candidates.size() == 1) return a.fill(l, candidates[0]);
  return issue_blocks(v, a, l, candidates, ps, [&](int sm) { return v.room_for(l, sm); });
}

// 0..n-1, built once per policy.
std::vector<std::int32_t> all_sms(const EngineView& v);

// True if the batch changes what may run where (a release, a finish, a timer).
bool structural(std::span<const EngineEvent> events);

}  // namespace gpusched::sim
