// Time in gpusched is an integer count of nanoseconds everywhere (DESIGN, "Core vocabulary").
#pragma once
#include <cmath>
#include <cstdint>

namespace gpusched {

using TimeNs = std::int64_t;

inline constexpr TimeNs kNsPerUs = 1'000;
inline constexpr TimeNs kNsPerMs = 1'000'000;
inline constexpr TimeNs kNsPerS = 1'000'000'000;

// Cycles at a clock in MHz to nanoseconds, rounded to the nearest ns.
inline TimeNs cycles_to_ns(std::int64_t cycles, double clock_mhz) {
  return static_cast<TimeNs>(std::llround(static_cast<double>(cycles) * 1000.0 / clock_mhz));
}

}  // namespace gpusched
