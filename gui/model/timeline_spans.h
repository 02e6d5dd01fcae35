// What to draw of one slot row (or one occupancy curve) in the visible range, at most one item per pixel column
// where bars are narrower than a pixel: the draw count is bounded by the width in pixels, not by the number of
// bars, which is what keeps a 1-million-block run smooth at any zoom (docs/gui.md, "Drawing").
#pragma once
#include <cstdint>
#include <vector>

#include "gui/model/time_mapping.h"
#include "gui/model/timeline_model.h"

namespace gpusched::gui {

// A horizontal run of pixels [x0, x1) coloured by one launch. `bar` is the first bar it stands for; `whole`
// says it is exactly that bar, wide enough to be drawn with its edges (otherwise it merges neighbouring bars
// of the same launch with sub-pixel gaps, or stands for every bar in its pixel column).
struct BarSpan {
  double x0 = 0, x1 = 0;
  std::int32_t launch = 0;
  std::uint32_t bar = 0;
  bool whole = false;
};

// A preemption marker: the bar it belongs to, at x (the end of a drained, flushed, switched-out or killed
// piece; the start of a switched-in piece). At most one per pixel column.
struct BarMark {
  double x = 0;
  std::uint32_t bar = 0;
  PieceOutcome outcome = PieceOutcome::Completed;
};

// Bars at least `min_whole_px` wide are drawn one by one.
void row_spans(const TimelineRow& row, const TimeMapping& m, std::vector<BarSpan>& out, double min_whole_px = 3.0);
void row_marks(const TimelineRow& row, const TimeMapping& m, std::vector<BarMark>& out);

// One pixel column of a step curve: its lowest and highest value inside the column (a vertical line from
// low to high draws every change the column hides) and the value at its right edge (where the next column
// continues from).
struct CurveColumn {
  int x = 0;
  std::int32_t low = 0, high = 0, last = 0;
};
void curve_columns(const std::vector<TimeNs>& times, const std::vector<std::int32_t>& values, const TimeMapping& m,
                   std::vector<CurveColumn>& out);

}  // namespace gpusched::gui
