// A duration for people: "12 ns", "3.500 us", "1.250 ms", "2.000 s".
#pragma once
#include <string>

#include "core/time.h"

namespace gpusched {
std::string format_duration(TimeNs ns);
}  // namespace gpusched
