#include "gui/model/palette.h"

#include <cmath>

namespace gpusched::gui {

namespace {
std::uint32_t hsv_to_rgb(double h, double s, double v) {
  const double c = v * s;
  const double hp = std::fmod(h, 360.0) / 60.0;
  const double x = c * (1 - std::abs(std::fmod(hp, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  if (hp < 1)
    r = c, g = x;
  else if (hp < 2)
    r = x, g = c;
  else if (hp < 3)
    g = c, b = x;
  else if (hp < 4)
    g = x, b = c;
  else if (hp < 5)
    r = x, b = c;
  else
    r = c, b = x;
  const double m = v - c;
  const auto byte = [](double u) { return static_cast<std::uint32_t>(std::lround(u * 255.0)); };
  return byte(r + m) << 16 | byte(g + m) << 8 | byte(b + m);
}
}  // namespace

std::uint32_t launch_rgb(int launch) {
  const double hue = std::fmod(200.0 + 137.50776 * launch, 360.0);
  // Alternate saturation and value a little so that launches with close hues still differ.
  const double sat = (launch / 3) % 2 ? 0.55 : 0.70;
  const double val = launch % 2 ? 0.80 : 0.92;
  return hsv_to_rgb(hue, sat, val);
}

std::uint32_t faded_rgb(std::uint32_t rgb) {
  const auto mix = [&](int shift) {
    const std::uint32_t c = (rgb >> shift) & 0xff;
    return ((c + 3 * 0xe4) / 4) << shift;  // a quarter of the colour on a light grey
  };
  return mix(16) | mix(8) | mix(0);
}

std::uint32_t outcome_rgb(PieceOutcome o) {
  switch (o) {
    case PieceOutcome::Completed:
      return 0;
    case PieceOutcome::Drained:
      return 0xe08a00;  // amber: waited for
    case PieceOutcome::Flushed:
      return 0xd62728;  // red: work lost
    case PieceOutcome::SwitchedOut:
      return 0x6a3d9a;  // purple: context saved
    case PieceOutcome::SwitchedIn:
      return 0x1f9e89;  // teal: context restored
    case PieceOutcome::Killed:
      return 0x202020;  // black: dropped
  }
  return 0;
}

}  // namespace gpusched::gui
