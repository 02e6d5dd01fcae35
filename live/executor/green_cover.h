// Which green-context groups a launch's workers need (docs/validation.md, "Green contexts"). The groups themselves,
// and which of them a list of SMs or a part needs, are plain data shared with the parts replay (core/green_groups.h);
// here the executor's side: the SMs a launch's per-SM queues use. Plain C++, no CUDA: unit-tested without a GPU.
#pragma once
#include <cstdint>
#include <vector>

#include "core/green_groups.h"
#include "live/executor/plan.h"

namespace gpusched::live {

using gpusched::claimed_groups_of_parts;
using gpusched::covering_groups;
using gpusched::covering_groups_of_sms;
using gpusched::PartSpan;

// The SMs (by %smid) where the launch has entries: result[s] != 0.
std::vector<std::uint8_t> planned_sms(const LaunchQueues& q);

}  // namespace gpusched::live
