#include "sim/policies/issue.h"

#include <stdexcept>

namespace gpusched::sim {

ParamSpec placement_param() {
  return ParamSpec{"placement", ParamType::String, "auto",
                   "block placement: round-robin (Fermi/Kepler), most-free (Maxwell and later, Gilman et al.) or "
                   "auto (the GPU preset's)"};
}

BlockPlacement resolve_placement(const Params& p, const GpuSpec& gpu) {
  const auto& s = p.get_string("placement");
  if (s == "auto") return gpu.placement;
  if (auto pl = placement_from_string(s)) return *pl;
  throw std::invalid_argument("parameter 'placement' expects auto, round-robin or most-free, found \"" + s + "\"");
}

std::vector<std::int32_t> all_sms(const EngineView& v) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(v.sm_count()));
  for (int i = 0; i < v.sm_count(); ++i) out[static_cast<std::size_t>(i)] = i;
  return out;
}

bool structural(std::span<const EngineEvent> events) {
  for (const auto& e : events)
    if (e.kind != EventKind::BlockFinished) return true;
  return false;
}

}  // namespace gpusched::sim
