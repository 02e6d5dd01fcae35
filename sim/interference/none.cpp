// Interference model `none`: every block runs for its recorded duration, whatever shares its SM.
#include "sim/duration_model.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class NoInterference final : public DurationModel {
 public:
  TimeNs duration(const DurationQuery& q) const override {
    return recorded_duration(*q.kernel, q.block, q.draw_base);
  }
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, none, "none",
                         "recorded block durations, unchanged by co-running blocks", {},
                         [](const gpusched::sim::Params&) { return std::make_unique<gpusched::sim::NoInterference>(); })
