// sjf: the oracle of seed 001 (section 6): shortest job first by true time alone, switching between
// launches at thread-block boundaries (no preemption of running blocks). docs/policies/sjf.md.
#include "sim/policies/ordered_issue.h"
#include "sim/registry.h"

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::Policy, sjf, "sjf",
                         "oracle shortest-job-first by true time alone, switching at block boundaries (seed 001)",
                         {gpusched::sim::placement_param()}, [](const gpusched::sim::Params& p) {
                           // Shortest time alone first; ties in release order.
                           return std::make_unique<gpusched::sim::SortedIssuePolicy>(
                               p, "sjf", [](const gpusched::sim::EngineView& v, std::int32_t x, std::int32_t y) {
                                 return v.launch(x).alone < v.launch(y).alone;
                               });
                         })
