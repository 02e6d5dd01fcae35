#include "gui/model/timeline_spans.h"

#include <algorithm>
#include <cmath>

namespace gpusched::gui {

namespace {

// The first entry at or after `from` whose start is at or after time t.
std::size_t first_starting_at(const std::vector<TimelineBar>& bars, std::size_t from, double t) {
  // Usually the next entry or the one after: look there before searching.
  for (std::size_t i = from; i < bars.size() && i < from + 4; ++i)
    if (static_cast<double>(bars[i].start) >= t) return i;
  return static_cast<std::size_t>(
      std::lower_bound(bars.begin() + static_cast<std::ptrdiff_t>(std::min(from + 4, bars.size())), bars.end(), t,
                       [](const TimelineBar& b, double v) { return static_cast<double>(b.start) < v; }) -
      bars.begin());
}

// The span algorithm over `bars` (a row's bars, or the runs of one of its levels); `bar_index(i)` is the row
// index of entry i's first bar and `single(i)` whether entry i is one bar.
template <class BarIndex, class Single>
void spans_of(const std::vector<TimelineBar>& bars, const TimeMapping& m, std::vector<BarSpan>& out,
              double min_whole_px, BarIndex bar_index, Single single) {
  const double width = m.width();
  // Entries do not overlap, so their ends are sorted too: the first visible one is the first ending after begin.
  std::size_t i = static_cast<std::size_t>(
      std::upper_bound(bars.begin(), bars.end(), m.begin(),
                       [](double v, const TimelineBar& b) { return v < static_cast<double>(b.end); }) -
      bars.begin());
  while (i < bars.size() && static_cast<double>(bars[i].start) < m.end()) {
    const auto& bar = bars[i];
    const double x0 = std::max(-1.0, m.to_x(static_cast<double>(bar.start)));
    const double x1 = std::min(width + 1, m.to_x(static_cast<double>(bar.end)));
    if (x1 - x0 >= min_whole_px && single(i)) {
      out.push_back({x0, x1, bar.launch, bar_index(i), true});
      ++i;
      continue;
    }
    // Narrow (or a merged run of narrow bars): it stands for its pixel columns, and the span grows over
    // following entries of the same launch that are narrow too and start less than a pixel after it ends.
    const double col = std::floor(x0);
    double span_end = std::max(x1, col + 1);
    std::size_t next = i + 1;
    for (;;) {
      // Skip every entry starting inside the pixels covered so far; the last skipped one ends last.
      const std::size_t k = first_starting_at(bars, next, m.to_time(span_end));
      if (k > next) span_end = std::max(span_end, std::min(width + 1, m.to_x(static_cast<double>(bars[k - 1].end))));
      next = std::max(next, k);
      if (next >= bars.size() || span_end >= width) break;
      const auto& b = bars[next];
      const double bx0 = m.to_x(static_cast<double>(b.start)), bx1 = m.to_x(static_cast<double>(b.end));
      if (b.launch != bar.launch || bx0 > span_end + 1 || (bx1 - bx0 >= min_whole_px && single(next))) break;
      span_end = std::max({span_end, bx1, std::floor(bx0) + 1});
      ++next;
    }
    out.push_back({col, std::min(span_end, width + 1), bar.launch, bar_index(i), false});
    i = next;
  }
}

}  // namespace

void row_spans(const TimelineRow& row, const TimeMapping& m, std::vector<BarSpan>& out, double min_whole_px) {
  // The coarsest level this zoom allows: its merges are ones the algorithm would make on the bars.
  const TimelineLevel* level = nullptr;
  for (const auto& l : row.levels)
    if (l.min_ns_per_px <= m.ns_per_pixel()) level = &l;
  if (!level) {
    spans_of(
        row.bars, m, out, min_whole_px, [](std::size_t i) { return static_cast<std::uint32_t>(i); },
        [](std::size_t) { return true; });
    return;
  }
  const auto& first = level->first_bar;
  spans_of(
      level->runs, m, out, min_whole_px, [&](std::size_t i) { return first[i]; },
      [&](std::size_t i) { return first[i + 1] - first[i] == 1; });
}

void row_marks(const TimelineRow& row, const TimeMapping& m, std::vector<BarMark>& out) {
  const auto& bars = row.bars;
  const auto& marks = row.marks;
  const auto x_of = [&](std::uint32_t b) {
    const auto& bar = bars[b];
    return m.to_x(static_cast<double>(bar.outcome == PieceOutcome::SwitchedIn ? bar.start : bar.end));
  };
  // Marks are in bar order, so their x is sorted: binary search for the first visible one, then jump a column.
  auto it = std::lower_bound(marks.begin(), marks.end(), -1.0, [&](std::uint32_t b, double v) { return x_of(b) < v; });
  while (it != marks.end()) {
    const double x = x_of(*it);
    if (x > m.width() + 1) break;
    out.push_back({x, *it, bars[*it].outcome});
    const double next_column = std::floor(x) + 1;
    it = std::lower_bound(it + 1, marks.end(), next_column, [&](std::uint32_t b, double v) { return x_of(b) < v; });
  }
}

void curve_columns(const std::vector<TimeNs>& times, const std::vector<std::int32_t>& values, const TimeMapping& m,
                   std::vector<CurveColumn>& out) {
  if (times.empty()) return;
  const int width = static_cast<int>(std::ceil(m.width()));
  // The value in force at the left edge: the last change at or before it (0 before the first change).
  auto it = std::upper_bound(times.begin(), times.end(), m.begin(),
                             [](double v, TimeNs t) { return v < static_cast<double>(t); });
  std::int32_t current = it == times.begin() ? 0 : values[static_cast<std::size_t>(it - times.begin() - 1)];
  for (int x = 0; x < width; ++x) {
    const double column_end = m.to_time(x + 1);
    std::int32_t low = current, high = current;
    // Every change inside this column; a column holding thousands of changes is walked once, and the walk is
    // bounded by the changes in the visible range.
    while (it != times.end() && static_cast<double>(*it) < column_end) {
      current = values[static_cast<std::size_t>(it - times.begin())];
      low = std::min(low, current);
      high = std::max(high, current);
      ++it;
    }
    out.push_back({x, low, high, current});
  }
}

}  // namespace gpusched::gui
