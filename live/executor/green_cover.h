// Which green-context groups a launch's workers need (docs/validation.md, "Green contexts"). Green contexts split
// the GPU's SMs into fixed groups (two SMs each on Hopper); a launch the plan confines to some SMs gets a green
// context of the groups holding them, so the hardware places its worker blocks there and nowhere else. Plain C++,
// no CUDA: unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "live/executor/plan.h"

namespace gpusched::live {

// The SMs (by %smid) where the launch has entries: result[s] != 0.
std::vector<std::uint8_t> planned_sms(const LaunchQueues& q);

// The groups (indices into `group_sms`, each a group's SMs by %smid) that hold any SM of `wanted`, in group order.
// Empty when the launch wants no SM, and when the groups it needs are every group (no partition to keep).
std::vector<int> covering_groups(const std::vector<std::vector<int>>& group_sms,
                                 const std::vector<std::uint8_t>& wanted);
// The same for a list of SMs (%smid).
std::vector<int> covering_groups_of_sms(const std::vector<std::vector<int>>& group_sms, const std::vector<int>& sms);

// A part of a plan as `gpusched-live validate` carries it out: its launch, the SMs the plan runs it on (%smid, after
// the pairing onto groups) and the span of its planned pieces, [start, end).
struct PartSpan {
  std::int32_t launch = 0;
  std::vector<int> sms;
  TimeNs start = 0, end = 0;
};

// Per part, the groups of its green context under `validate --part-context claimed` (docs/validation.md, "Groups
// claimed by one part"). A group holds two SMs; where the plan gives them to two launches at once, the cover
// (covering_groups_of_sms) puts the group in both parts' contexts, and each part's pending blocks take the slots the
// plan gives the other (bursts-h200's chimera: the 22 SMs planned for b5-5-sgemm held blocks of five other launches).
// Here a group that the part shares with a part of another launch whose span overlaps its own is kept only by the
// part whose lowest SM in the group is the lowest (both where that SM is the same); a group no other launch contests
// at the time is kept as the cover keeps it. A part left with no group keeps its cover. Empty, as for
// covering_groups, where a part's groups are every group.
std::vector<std::vector<int>> claimed_groups_of_parts(const std::vector<std::vector<int>>& group_sms,
                                                      const std::vector<PartSpan>& parts);

}  // namespace gpusched::live
