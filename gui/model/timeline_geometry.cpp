#include "gui/model/timeline_geometry.h"

#include <algorithm>

namespace gpusched::gui {

TimelineGeometry::TimelineGeometry(const TimelineModel& model, TimelineMetrics metrics, int width, int height,
                                   int scroll_y)
    : model_(model), m_(metrics), width_(width), height_(height), scroll_y_(scroll_y) {
  const int lanes = static_cast<int>(model.lanes().size());
  content_height_ = model.gpu_count() * m_.band_height + lanes * (m_.lane_height + m_.lane_gap);
}

int TimelineGeometry::max_scroll() const {
  return std::max(0, content_height_ - viewport_height());
}

int TimelineGeometry::band_top(int gpu) const {
  const int lanes_before = model_.first_lane(gpu);
  return content_top() - scroll_y_ + gpu * m_.band_height + lanes_before * (m_.lane_height + m_.lane_gap);
}

int TimelineGeometry::lane_top(int lane) const {
  const int gpu = model_.lanes()[static_cast<std::size_t>(lane)].gpu;
  return band_top(gpu) + m_.band_height + (lane - model_.first_lane(gpu)) * (m_.lane_height + m_.lane_gap);
}

int TimelineGeometry::slot_top(int lane, int slot, int slots) const {
  return lane_top(lane) + slot * m_.lane_height / std::max(1, slots);
}

int TimelineGeometry::slot_bottom(int lane, int slot, int slots) const {
  const int top = slot_top(lane, slot, slots);
  return std::max(top + 1, lane_top(lane) + (slot + 1) * m_.lane_height / std::max(1, slots));
}

TimelineGeometry::Hit TimelineGeometry::hit(int x, int y) const {
  Hit h;
  if (x < 0 || x >= width_ || y < 0 || y >= height_) return h;
  if (y < m_.axis_height) {
    h.kind = Hit::Kind::Axis;
    return h;
  }
  if (y < content_top()) {
    h.kind = Hit::Kind::Markers;
    return h;
  }
  for (int g = 0; g < model_.gpu_count(); ++g) {
    const int band = band_top(g);
    if (y >= band && y < band + m_.band_height) {
      h.kind = Hit::Kind::Band;
      h.gpu = g;
      return h;
    }
    const int first = model_.first_lane(g), last = model_.first_lane(g + 1);
    const int lanes_top = band + m_.band_height;
    if (y < lanes_top || y >= lanes_top + (last - first) * (m_.lane_height + m_.lane_gap)) continue;
    const int lane = first + (y - lanes_top) / (m_.lane_height + m_.lane_gap);
    const int within = y - lane_top(lane);
    if (within >= m_.lane_height) return h;  // the gap between lanes
    const int slots = static_cast<int>(model_.lanes()[static_cast<std::size_t>(lane)].slots.size());
    h.kind = Hit::Kind::Lane;
    h.gpu = g;
    h.lane = lane;
    // The slot whose [top, bottom) holds y; slots thinner than a pixel share it, and the first one wins.
    h.slot = std::min(slots - 1, (within * slots) / std::max(1, m_.lane_height));
    while (h.slot > 0 && slot_top(lane, h.slot, slots) > y) --h.slot;
    return h;
  }
  return h;
}

}  // namespace gpusched::gui
