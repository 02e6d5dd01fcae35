// A GPU's green-context groups and which of them a confined stretch of work needs (docs/validation.md, "Green
// contexts", "Groups claimed by one part"). Green contexts split the GPU's SMs into fixed groups (two SMs, one TPC,
// on Hopper); work confined to some SMs gets a context of whole groups, so the hardware places its blocks on every SM
// of those groups. Plain C++, no CUDA: the executor (live/executor/green_cover.h) and the parts replay
// (sim/part_contexts.h) both use it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"

namespace gpusched {

// The groups (indices into `group_sms`, each a group's SMs by %smid) that hold any SM of `wanted` (wanted[s] != 0),
// in group order. Empty when no SM is wanted, and when the groups needed are every group (no partition to keep).
std::vector<int> covering_groups(const std::vector<std::vector<int>>& group_sms,
                                 const std::vector<std::uint8_t>& wanted);
// The same for a list of SMs (%smid).
std::vector<int> covering_groups_of_sms(const std::vector<std::vector<int>>& group_sms, const std::vector<int>& sms);

// The SMs of some groups, ascending.
std::vector<int> sms_of_groups(const std::vector<std::vector<int>>& group_sms, const std::vector<int>& groups);

// Groups of `size` consecutive SMs (0..size-1, size..2size-1, ...; the last may be short): the H100's and the H200's
// groups are SMs 2g and 2g+1 as far as the spill goes (docs/validation.md, "SMs paired for green contexts"), so a
// replay without the device takes them so.
std::vector<std::vector<int>> consecutive_groups(int sm_count, int size);

// The groups' layout in a line, as runs of groups whose SMs follow one another ("groups 0-7: SMs 0-15; groups 8-11:
// SMs 124-131; ..."); a group whose SMs are not consecutive is listed alone with its SMs. `validate` prints it, so
// the layout the driver gave is in every log (the H100's groups 8-11 hold SMs 124-131: docs/validation.md, "Green
// contexts").
std::string describe_groups(const std::vector<std::vector<int>>& group_sms);

// A stretch of a plan that the executor runs as one grid: its launch, the SMs the plan runs it on (%smid) and the span
// of its planned pieces, [start, end).
struct PartSpan {
  std::int32_t launch = 0;
  std::vector<int> sms;
  TimeNs start = 0, end = 0;
};

// Per part, the groups of its green context under `validate --part-context claimed`. A group holds two SMs; where the
// plan gives them to two launches at once, the cover (covering_groups_of_sms) puts the group in both parts' contexts,
// and each part's pending blocks take the slots the plan gives the other (bursts-h200's chimera: the 22 SMs planned
// for b5-5-sgemm held blocks of five other launches). Here a group that the part shares with a part of another
// launch whose span overlaps its own is kept only by the part whose lowest SM in the group is the lowest (both where
// that SM is the same); a group no other launch contests at the time is kept as the cover keeps it. A part left with
// no group keeps its cover. Empty, as for covering_groups, where a part's groups are every group.
std::vector<std::vector<int>> claimed_groups_of_parts(const std::vector<std::vector<int>>& group_sms,
                                                      const std::vector<PartSpan>& parts);

}  // namespace gpusched
