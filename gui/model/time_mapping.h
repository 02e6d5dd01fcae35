// The visible time range of a timeline and its mapping to pixels, in plain C++ (no Qt types) so that it is
// tested by itself (tests/gui/tst_time_mapping.cpp) and shared by every timeline drawn with a common axis.
//
//   x = (t - begin) * width / (end - begin)       t = begin + x * (end - begin) / width
//
// Times are nanoseconds as doubles (zooming needs fractions of a nanosecond per pixel); x is measured from the
// left edge of the plot area.
#pragma once
#include <string>
#include <vector>

namespace gpusched::gui {

class TimeMapping {
 public:
  // The smallest visible span: below this a pixel would be a small fraction of a nanosecond.
  static constexpr double kMinSpanNs = 10.0;

  TimeMapping() = default;
  TimeMapping(double begin, double end, double width_px);

  double begin() const { return begin_; }
  double end() const { return end_; }
  double span() const { return end_ - begin_; }
  double width() const { return width_; }
  double ns_per_pixel() const { return span() / width_; }

  double to_x(double t) const { return (t - begin_) * width_ / span(); }
  double to_time(double x) const { return begin_ + x * span() / width_; }

  // The data's extent: zooming out stops at it and panning stays inside it. An empty extent (hi <= lo)
  // becomes [lo, lo + kMinSpanNs].
  void set_limits(double lo, double hi);
  double limit_begin() const { return lo_; }
  double limit_end() const { return hi_; }

  void set_width(double width_px);  // at least one pixel
  // Shows [b, e], clamped to the limits and to kMinSpanNs.
  void set_range(double b, double e);
  // Multiplies the zoom by `factor` (> 1 zooms in) keeping the time under pixel `x` where it is.
  void zoom_at(double x, double factor);
  // Shows the time between two pixels (box zoom); ignored when they are less than two pixels apart.
  void zoom_to_pixels(double x0, double x1);
  // Moves the view as a drag by `dx` pixels does: the content follows the pointer.
  void pan_pixels(double dx);
  // Shows the whole extent.
  void fit() { set_range(lo_, hi_); }

  friend bool operator==(const TimeMapping&, const TimeMapping&) = default;

 private:
  double begin_ = 0, end_ = 1000, width_ = 1000;
  double lo_ = 0, hi_ = 1000;
};

// A tick of the time axis: its time and its label in the unit that suits the step.
struct TimeTick {
  double time = 0;
  std::string label;
};

// Ticks at steps of 1, 2 or 5 times a power of ten nanoseconds, at least `min_spacing_px` apart, covering the
// visible range.
std::vector<TimeTick> time_ticks(const TimeMapping& m, double min_spacing_px = 80.0);
// The step time_ticks chooses.
double tick_step(const TimeMapping& m, double min_spacing_px = 80.0);

// "1.5 ms", "250 us", "12 ns", "2 s": the unit is the largest one not above `step_ns`, with as many decimals
// as the step needs.
std::string format_tick(double t_ns, double step_ns);
// A duration for tooltips and labels: "1.234 ms", "12.5 us", "800 ns" (three significant decimals).
std::string format_duration_ns(double ns);

}  // namespace gpusched::gui
