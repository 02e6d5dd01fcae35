// Whether an execution kept its workload's dependencies: a launch that waits for another (its stream predecessor or
// one it names in `after`) may not start a block before that one's last block has ended. `gpusched-live validate`
// checks every execution with it: a run that broke a dependency does not measure the plan it carried out (run_native's
// counted parts wait for counts in device memory instead of events: docs/validation.md, "Events behind parts").
#pragma once
#include <cstdint>
#include <vector>

#include "core/metrics.h"
#include "core/time.h"
#include "core/workload.h"

namespace gpusched {

struct DependencyBreach {
  std::int32_t launch = 0;       // started a block ...
  std::int32_t predecessor = 0;  // ... before this one's last block ended
  TimeNs early = 0;              // by this much (> 0)
};

// Every breach of `w`'s dependencies by a run whose launches had these outcomes (first block and finish, as a run's
// record keeps them), by launch then predecessor. A launch that ran no block (first_dispatch < 0) breaks nothing.
std::vector<DependencyBreach> dependency_breaches(const Workload& w, const std::vector<LaunchOutcome>& launches);

}  // namespace gpusched
