// The green contexts a plan's parts run in, for the parts replay (sim/parts_replay.h) and for `gpusched-live validate
// --part-context` (docs/validation.md, "Green contexts in the parts replay"). The executor runs each part as a grid in
// a green context of whole groups of SMs (core/green_groups.h), so its blocks may go to every SM of those groups, not
// only to the SMs the plan runs the part on; the replay confined to the planned SMs did not see that spill. Plain
// C++: tested without a GPU.
#pragma once
#include <string_view>
#include <vector>

#include "core/green_groups.h"
#include "core/run_result.h"
#include "sim/planned_parts.h"

namespace gpusched::sim {

// How a part's green context is made from its planned SMs: every group holding one of them (cover, validate's
// default), or only the groups no other launch's part holds at the same time with a lower SM there (claimed:
// claimed_groups_of_parts).
enum class PartContext { Cover, Claimed };
const char* part_context_name(PartContext how);      // "cover", "claimed"
PartContext part_context_of(std::string_view name);  // "cover" or "claimed"; throws std::invalid_argument else

// Each part of a cut, launch by launch and part by part (flattened): its launch, planned SMs and the span of its
// planned pieces [its planned start, the latest end of its pieces).
std::vector<PartSpan> part_spans(const RunResult& plan, const std::vector<std::vector<PlannedPart>>& cut);
std::vector<PartSpan> part_spans(const RunResult& plan, const std::vector<std::vector<PlannedPieces>>& cut);

// Per part of `spans`: the groups of its green context (indices into `group_sms`), empty where they are every group
// (the executor then issues the part on a plain stream).
std::vector<std::vector<int>> part_context_groups(const std::vector<std::vector<int>>& group_sms,
                                                  const std::vector<PartSpan>& spans, PartContext how);

// Per part of `spans`: the SMs of its green context, ascending; empty where the context is every SM.
std::vector<std::vector<int>> part_context_sms(const std::vector<std::vector<int>>& group_sms,
                                               const std::vector<PartSpan>& spans, PartContext how);

}  // namespace gpusched::sim
