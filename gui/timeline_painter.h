// Draws a TimelineModel with QPainter, over only the visible range (the spans of gui/model/timeline_spans.h):
// the time axis, launch arrival/finish markers, each GPU's occupancy band and its SM lanes. One routine for
// the widget, PNG/SVG export and the paint benchmark (tests/bench/bench_timeline_paint.cpp).
#pragma once
#include <QPainter>
#include <QSize>
#include <optional>

#include "gui/model/time_mapping.h"
#include "gui/model/timeline_geometry.h"
#include "gui/model/timeline_model.h"

namespace gpusched::gui {

struct TimelineView {
  TimeMapping time;  // its width is the plot width (widget width - labels - scroll bar)
  TimelineMetrics metrics;
  int scroll_y = 0;
  int selected_launch = -1;                        // -1: none; otherwise other launches are faded
  std::optional<std::pair<int, int>> rubber_band;  // box zoom in progress: x range in widget pixels
  QString title;                                   // drawn in the axis row's left corner
};

// Paints into `size` (origin at 0, 0). The view's time mapping must have the plot width
// (size.width() - metrics.label_width - right_margin).
void paint_timeline(QPainter& p, QSize size, const TimelineModel& model, const TimelineView& view,
                    int right_margin = 0);

}  // namespace gpusched::gui
