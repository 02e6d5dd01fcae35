// Colours of launches and preemption outcomes as 0xRRGGBB, in plain C++ so that rendering tests can check
// pixels against them.
#pragma once
#include <cstdint>

#include "core/schedule.h"

namespace gpusched::gui {

// Launch i's colour: hues a golden angle apart, so that neighbouring launches differ clearly.
std::uint32_t launch_rgb(int launch);
// The same colour faded towards the background (for launches other than the selected one).
std::uint32_t faded_rgb(std::uint32_t rgb);
// The marker colour of an outcome (Completed has none and returns 0).
std::uint32_t outcome_rgb(PieceOutcome o);

}  // namespace gpusched::gui
