// Which green-context groups a launch's workers need (docs/validation.md, "Green contexts"). Green contexts split
// the GPU's SMs into fixed groups (two SMs each on Hopper); a launch the plan confines to some SMs gets a green
// context of the groups holding them, so the hardware places its worker blocks there and nowhere else. Plain C++,
// no CUDA: unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

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

}  // namespace gpusched::live
