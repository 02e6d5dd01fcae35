// A recorded kernel replayed alone against its own recording (docs/formats.md, "Block time"): one launch at
// t = 0 under fifo on the GPU it was recorded on, no interference; the simulated span (first block start to
// last block end, so the GPU's launch latency is left out on both sides) against the recording's span at its
// highest residency. A replay that does not reproduce its own recording cannot predict anything else.
#pragma once
#include <string>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/time.h"

namespace gpusched::sim {

struct ReplayCheck {
  std::string kernel;
  TimeNs recorded_span = 0;  // the primary record set's span
  TimeNs slot_span = 0;      // simulated, replaying slot occupancies (the default)
  TimeNs raw_span = 0;       // simulated, replaying end - start
  double slot_error() const { return error(slot_span); }
  double raw_error() const { return error(raw_span); }
  double error(TimeNs simulated) const {  // (simulated - recorded) / recorded
    return recorded_span > 0 ? static_cast<double>(simulated - recorded_span) / static_cast<double>(recorded_span)
                             : 0.0;
  }
};

// `kernel` read with both block times (profile_io); throws std::invalid_argument when it has no recorded span.
ReplayCheck replay_alone(const KernelProfile& kernel, const GpuSpec& gpu);

}  // namespace gpusched::sim
