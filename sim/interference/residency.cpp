// Interference model `residency`: a block's duration depends on how many blocks share its SM when it is
// dispatched. Where the profile has records at exactly that residency, the block's own record there is
// used; otherwise its primary-residency duration is scaled by mean(r) / mean(primary), with mean(r)
// interpolated linearly between the recorded residencies (clamped outside them). With one record set
// this is the `none` model. docs/interference.md.
#include <algorithm>

#include "sim/duration_model.h"
#include "sim/registry.h"

namespace gpusched::sim {
namespace {

class ResidencyInterference final : public DurationModel {
 public:
  TimeNs duration(const DurationQuery& q) const override {
    const KernelProfile& k = *q.kernel;
    const TimeNs base = recorded_duration(k, q.block, q.draw_base);
    if (k.record_sets.size() < 2) return base;
    const int r = std::max(1, q.sm_resident_blocks);
    for (const auto& set : k.record_sets) {
      if (set.residency != r) continue;
      if (q.block < static_cast<std::int64_t>(set.duration_by_block.size())) {
        const TimeNs d = set.duration_by_block[static_cast<std::size_t>(q.block)];
        if (d >= 0) return d;
      }
      break;
    }
    const double primary = k.record_sets.back().mean_ns;
    if (primary <= 0) return base;
    return std::max<TimeNs>(1, static_cast<TimeNs>(static_cast<double>(base) * mean_block_ns_at(k, r) / primary));
  }
};

}  // namespace
}  // namespace gpusched::sim

GPUSCHED_REGISTER_PLUGIN(gpusched::sim::DurationModel, residency, "residency",
                         "block duration as a function of the blocks sharing its SM, interpolated from profiles "
                         "recorded at several residencies",
                         {}, [](const gpusched::sim::Params&) {
                           return std::make_unique<gpusched::sim::ResidencyInterference>();
                         })
