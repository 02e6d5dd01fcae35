#include "gui/model/time_mapping.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpusched::gui {

TimeMapping::TimeMapping(double begin, double end, double width_px) {
  set_width(width_px);
  set_limits(begin, end);
  set_range(begin, end);
}

void TimeMapping::set_limits(double lo, double hi) {
  lo_ = lo;
  hi_ = std::max(hi, lo + kMinSpanNs);
  set_range(begin_, end_);
}

void TimeMapping::set_width(double width_px) {
  width_ = std::max(1.0, width_px);
}

void TimeMapping::set_range(double b, double e) {
  if (e < b) std::swap(b, e);
  const double full = hi_ - lo_;
  double span = std::clamp(e - b, kMinSpanNs, full);
  // Keep the centre of what was asked for when the span had to grow.
  const double centre = (b + e) / 2;
  b = centre - span / 2;
  b = std::clamp(b, lo_, hi_ - span);
  begin_ = b;
  end_ = b + span;
}

void TimeMapping::zoom_at(double x, double factor) {
  if (!(factor > 0)) return;
  const double anchor = to_time(x);
  const double span = std::max(kMinSpanNs, this->span() / factor);
  const double fraction = x / width_;
  set_range(anchor - fraction * span, anchor - fraction * span + span);
}

void TimeMapping::zoom_to_pixels(double x0, double x1) {
  if (std::abs(x1 - x0) < 2.0) return;
  set_range(to_time(std::min(x0, x1)), to_time(std::max(x0, x1)));
}

void TimeMapping::pan_pixels(double dx) {
  const double shift = -dx * ns_per_pixel();
  set_range(begin_ + shift, end_ + shift);
}

double tick_step(const TimeMapping& m, double min_spacing_px) {
  const double min_step = std::max(1.0, m.ns_per_pixel() * min_spacing_px);
  double power = std::pow(10.0, std::floor(std::log10(min_step)));
  for (;;) {
    for (double mult : {1.0, 2.0, 5.0})
      if (power * mult >= min_step * (1 - 1e-12)) return power * mult;
    power *= 10;
  }
}

std::vector<TimeTick> time_ticks(const TimeMapping& m, double min_spacing_px) {
  const double step = tick_step(m, min_spacing_px);
  std::vector<TimeTick> ticks;
  const double first = std::ceil(m.begin() / step - 1e-9) * step;
  for (double t = first; t <= m.end() + step * 1e-9; t += step) {
    const double exact = std::round(t / step) * step;  // no accumulated rounding in labels
    ticks.push_back({exact, format_tick(exact, step)});
    if (ticks.size() > 10000) break;  // cannot happen with a sane width; a bound on a loop over doubles
  }
  return ticks;
}

namespace {
struct Unit {
  double ns;
  const char* name;
};
constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};

const Unit& unit_for(double ns) {
  for (const auto& u : kUnits)
    if (std::abs(ns) >= u.ns) return u;
  return kUnits[3];
}
}  // namespace

std::string format_tick(double t_ns, double step_ns) {
  const Unit& u = unit_for(step_ns);
  const double step_in_unit = step_ns / u.ns;
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step_in_unit) + 1e-9)));
  double value = t_ns / u.ns;
  if (std::abs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;  // no "-0"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, u.name);
  return buf;
}

std::string format_duration_ns(double ns) {
  const Unit& u = unit_for(ns);
  char buf[64];
  if (u.ns == 1)
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else
    std::snprintf(buf, sizeof buf, "%.3f %s", ns / u.ns, u.name);
  return buf;
}

}  // namespace gpusched::gui
