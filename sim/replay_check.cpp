#include "sim/replay_check.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/workload.h"
#include "sim/runner.h"

namespace gpusched::sim {
namespace {

TimeNs simulated_span(const KernelProfile& kernel, const GpuSpec& gpu) {
  Launch launch;
  launch.id = kernel.name;
  auto w = make_workload(kernel.name, {std::make_shared<KernelProfile>(kernel)}, {launch});
  RunOptions o;
  o.policy = "fifo";
  AloneTimeCache alone;
  const RunResult r = run_workload(w, gpu, o, alone);
  TimeNs first = r.schedule.pieces.front().start, last = r.schedule.pieces.front().end;
  for (const auto& p : r.schedule.pieces) {
    first = std::min(first, p.start);
    last = std::max(last, p.end);
  }
  return last - first;
}

}  // namespace

ReplayCheck replay_alone(const KernelProfile& kernel, const GpuSpec& gpu) {
  const RecordSet* set = kernel.primary_records();
  if (!set || set->span <= 0)
    throw std::invalid_argument(fmt::format("{}: kernel '{}' has no recorded span to compare with",
                                            kernel.file.empty() ? kernel.name : kernel.file, kernel.name));
  ReplayCheck c;
  c.kernel = kernel.name;
  c.recorded_span = set->span;
  KernelProfile k = kernel;
  select_block_time(k, BlockTime::Slot);
  c.slot_span = simulated_span(k, gpu);
  select_block_time(k, BlockTime::Raw);
  c.raw_span = simulated_span(k, gpu);
  return c;
}

}  // namespace gpusched::sim
