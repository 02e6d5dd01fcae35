#include "sim/replay_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

// First piece start and last piece end, as the engine hands the pieces out (no Schedule kept).
class SpanObserver final : public EngineObserver {
 public:
  void on_piece(const BlockPiece& p) override {
    first = std::min(first, p.start);
    last = std::max(last, p.end);
  }
  TimeNs first = INT64_MAX, last = 0;
};

// The kernel alone under fifo, straight on the engine: run_workload would simulate it a second time for its time
// alone, which the span does not need.
TimeNs simulated_span(const KernelProfile& kernel, const GpuSpec& gpu) {
  LaunchSpec spec;
  spec.kernel = &kernel;
  spec.id = kernel.name;
  Engine engine(EngineConfig{gpu, 1, 1, nullptr, {}}, {spec});
  SpanObserver span;
  engine.add_observer(&span);
  const auto* fifo = Registry<Policy>::instance().find("fifo");
  auto policy = fifo->make(Params::resolve("policy fifo", fifo->params, {}));
  engine.run(*policy);
  return span.last - span.first;
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
