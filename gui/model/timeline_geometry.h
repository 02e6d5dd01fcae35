// Where things are drawn in a timeline view, in plain C++: the left label gutter, the time axis and the launch
// marker strip at the top (fixed), and below them, scrolled vertically, for each GPU an occupancy band followed
// by its SM lanes. Each lane is split evenly among its residency slots. Hit tests turn a pixel back into a
// lane and slot.
#pragma once
#include "gui/model/timeline_model.h"

namespace gpusched::gui {

struct TimelineMetrics {
  int label_width = 86;    // SM names on the left
  int axis_height = 22;    // tick labels
  int marker_height = 14;  // arrival and finish markers of every launch
  int band_height = 44;    // each GPU's occupancy curves
  int lane_height = 14;    // one SM
  int lane_gap = 1;        // between lanes
};

class TimelineGeometry {
 public:
  TimelineGeometry(const TimelineModel& model, TimelineMetrics metrics, int width, int height, int scroll_y);

  const TimelineMetrics& metrics() const { return m_; }
  // The plot area: right of the labels, below the axis and markers.
  int plot_left() const { return m_.label_width; }
  int plot_width() const { return width_ - m_.label_width; }
  int content_top() const { return m_.axis_height + m_.marker_height; }
  int viewport_height() const { return height_ - content_top(); }
  // The height of everything that scrolls, and the largest useful scroll offset.
  int content_height() const { return content_height_; }
  int max_scroll() const;

  // Window y (scroll applied) of a GPU's occupancy band and of a lane.
  int band_top(int gpu) const;
  int lane_top(int lane) const;
  // [top, bottom) of slot `slot` of `lane` when the lane has `slots` slots; at least one pixel high.
  int slot_top(int lane, int slot, int slots) const;
  int slot_bottom(int lane, int slot, int slots) const;

  struct Hit {
    enum class Kind { None, Axis, Markers, Band, Lane } kind = Kind::None;
    int gpu = -1;   // Band, Lane
    int lane = -1;  // Lane
    int slot = -1;  // Lane
  };
  Hit hit(int x, int y) const;

 private:
  const TimelineModel& model_;
  TimelineMetrics m_;
  int width_, height_, scroll_y_;
  int content_height_ = 0;
};

}  // namespace gpusched::gui
