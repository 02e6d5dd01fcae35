// priority: the hardware's block dispatcher with stream priorities. The pending blocks of the launch with the
// highest priority issue first, launches of one priority in release order, with fifo's head-of-line blocking
// within a level (a later launch issues once every earlier launch of its level and above has issued all its
// blocks). This is what CUDA does with streams created at different priorities, and what `gpusched-live validate`
// relies on when it carries a plan out natively (sim/launch_priorities.h). docs/policies/priority.md.
#include "sim/policies/ordered_issue.h"
#include "sim/registry.h"

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, priority, "priority",
                         "hardware dispatch with stream priorities: the highest launch.priority first, release order "
                         "within a level, blocks in order (fifo within a level)",
                         {gpusched::sim::placement_param()}, [](const gpusched::sim::Params& p) {
                           // Higher `priority` first (the workload's convention; CUDA's numbers run the other way).
                           return std::make_unique<gpusched::sim::SortedIssuePolicy>(
                               p, "priority", [](const gpusched::sim::EngineView& v, std::int32_t x, std::int32_t y) {
                                 return v.spec(x).priority > v.spec(y).priority;
                               });
                         })
