#include "core/duration_format.h"

#include <fmt/format.h>

namespace gpusched {

std::string format_duration(TimeNs ns) {
  const double v = static_cast<double>(ns);
  if (ns >= kNsPerS) return fmt::format("{:.3f} s", v / 1e9);
  if (ns >= kNsPerMs) return fmt::format("{:.3f} ms", v / 1e6);
  if (ns >= kNsPerUs) return fmt::format("{:.3f} us", v / 1e3);
  return fmt::format("{} ns", ns);
}

}  // namespace gpusched
