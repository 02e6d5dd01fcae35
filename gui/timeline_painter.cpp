#include "gui/timeline_painter.h"

#include <QPainterPath>
#include <cmath>
#include <vector>

#include "gui/model/palette.h"
#include "gui/model/timeline_spans.h"

namespace gpusched::gui {

namespace {

QColor rgb(std::uint32_t c) {
  return QColor::fromRgb(static_cast<QRgb>(c | 0xff000000u));
}

const QColor kBackground(0xff, 0xff, 0xff);
const QColor kLaneEven(0xf6, 0xf7, 0xf9);
const QColor kLaneOdd(0xee, 0xf0, 0xf3);
const QColor kGrid(0xd0, 0xd4, 0xda);
const QColor kText(0x30, 0x33, 0x38);
const QColor kBusyFill(0x9e, 0xc5, 0xe8);
const QColor kResidentLine(0x1f, 0x4e, 0x79);

class Painter {
 public:
  Painter(QPainter& p, QSize size, const TimelineModel& model, const TimelineView& view, int right_margin)
      : p_(p),
        size_(size),
        model_(model),
        view_(view),
        geometry_(model, view.metrics, size.width() - right_margin, size.height(), view.scroll_y),
        time_(view.time) {
    time_.set_width(geometry_.plot_width());
    ticks_ = time_ticks(time_);  // for the grid and the axis labels
    const auto n = model.launches().size();
    colours_.reserve(std::max<std::size_t>(n, 1));
    for (std::size_t i = 0; i < std::max<std::size_t>(n, 1); ++i) {
      const auto c = launch_rgb(static_cast<int>(i));
      const bool faded = view.selected_launch >= 0 && static_cast<int>(i) != view.selected_launch;
      colours_.push_back(rgb(faded ? faded_rgb(c) : c));
    }
  }

  void paint() {
    p_.fillRect(QRect(QPoint(0, 0), size_), kBackground);
    const int left = geometry_.plot_left();
    const QRect content(left, geometry_.content_top(), geometry_.plot_width(), geometry_.viewport_height());
    p_.save();
    p_.setClipRect(content);
    p_.translate(left, 0);
    for (int g = 0; g < model_.gpu_count(); ++g) paint_gpu(g);
    paint_grid();
    paint_selection_lines();
    p_.restore();
    paint_labels();
    paint_axis();
    paint_markers();
    if (view_.rubber_band) {
      const auto [a, b] = *view_.rubber_band;
      const QRect box(std::min(a, b), geometry_.content_top(), std::abs(b - a), geometry_.viewport_height());
      p_.fillRect(box, QColor(0x33, 0x77, 0xcc, 0x30));
      p_.setPen(QColor(0x33, 0x77, 0xcc));
      p_.drawRect(box.adjusted(0, 0, -1, -1));
    }
  }

 private:
  bool visible(int top, int height) const { return top + height > geometry_.content_top() && top < size_.height(); }

  void paint_gpu(int g) {
    const int band = geometry_.band_top(g);
    const auto& m = view_.metrics;
    if (visible(band, m.band_height)) paint_band(g, band);
    for (int l = model_.first_lane(g); l < model_.first_lane(g + 1); ++l) {
      const int top = geometry_.lane_top(l);
      if (top >= size_.height()) break;
      if (!visible(top, m.lane_height)) continue;
      paint_lane(l, top);
    }
  }

  void paint_band(int g, int top) {
    const auto& occ = model_.occupancy()[static_cast<std::size_t>(g)];
    const int h = view_.metrics.band_height - 6;
    const int bottom = top + view_.metrics.band_height - 3;
    p_.fillRect(QRect(0, top, geometry_.plot_width(), view_.metrics.band_height), QColor(0xfb, 0xfb, 0xfc));
    p_.setPen(kGrid);
    p_.drawLine(0, bottom, geometry_.plot_width(), bottom);
    // Busy SMs as a filled area; resident blocks (relative to their peak) as a line.
    columns_.clear();
    curve_columns(occ.times, occ.busy_sms, time_, columns_);
    const double sms = std::max(1, occ.sms);
    for (const auto& c : columns_) {
      if (c.high == 0) continue;
      const int y = bottom - static_cast<int>(std::lround(h * c.high / sms));
      p_.fillRect(QRect(c.x, y, 1, bottom - y), kBusyFill);
    }
    columns_.clear();
    curve_columns(occ.times, occ.resident, time_, columns_);
    const double peak = std::max(1, occ.peak_resident);
    const auto y_of = [&](std::int32_t v) { return bottom - static_cast<int>(std::lround(h * v / peak)); };
    std::int32_t previous = columns_.empty() ? 0 : columns_.front().low;
    for (const auto& c : columns_) {
      // From the previous column's last value through everything this column holds: a continuous step line.
      const int y_top = y_of(std::max(c.high, previous)), y_bottom = y_of(std::min(c.low, previous));
      p_.fillRect(QRect(c.x, y_top, 1, y_bottom - y_top + 1), kResidentLine);
      previous = c.last;
    }
  }

  void paint_lane(int l, int top) {
    const auto& lane = model_.lanes()[static_cast<std::size_t>(l)];
    const auto& m = view_.metrics;
    p_.fillRect(QRect(0, top, geometry_.plot_width(), m.lane_height), lane.sm % 2 ? kLaneOdd : kLaneEven);
    const int slots = static_cast<int>(lane.slots.size());
    for (int s = 0; s < slots; ++s) {
      const auto& row = lane.slots[static_cast<std::size_t>(s)];
      const int row_top = geometry_.slot_top(l, s, slots), row_bottom = geometry_.slot_bottom(l, s, slots);
      spans_.clear();
      row_spans(row, time_, spans_);
      for (const auto& span : spans_) {
        const int x0 = static_cast<int>(std::floor(span.x0)), x1 = static_cast<int>(std::ceil(span.x1));
        // Whole bars wide enough show their edges as a one-pixel gap, so that neighbouring blocks of one launch
        // stay apart.
        const int edge = span.whole && x1 - x0 >= 5 ? 1 : 0;
        p_.fillRect(QRect(x0 + edge, row_top, std::max(1, x1 - x0 - edge), row_bottom - row_top),
                    colours_[static_cast<std::size_t>(span.launch) % colours_.size()]);
      }
      marks_.clear();
      row_marks(row, time_, marks_);
      for (const auto& mark : marks_) {
        const int x = static_cast<int>(std::lround(mark.x));
        p_.fillRect(QRect(mark.outcome == PieceOutcome::SwitchedIn ? x : x - 2, row_top, 2, row_bottom - row_top),
                    rgb(outcome_rgb(mark.outcome)));
      }
    }
  }

  void paint_grid() {
    p_.setPen(QPen(kGrid, 1, Qt::DotLine));
    for (const auto& tick : ticks_) {
      const int x = static_cast<int>(std::lround(time_.to_x(tick.time)));
      p_.drawLine(x, geometry_.content_top(), x, size_.height());
    }
  }

  void paint_selection_lines() {
    if (view_.selected_launch < 0 || view_.selected_launch >= static_cast<int>(model_.launches().size())) return;
    const auto& launch = model_.launches()[static_cast<std::size_t>(view_.selected_launch)];
    const QColor c = rgb(launch_rgb(view_.selected_launch)).darker(150);
    p_.setPen(QPen(c, 1, Qt::DashLine));
    for (TimeNs t : {launch.arrival, launch.finish}) {
      if (t < 0) continue;
      const int x = static_cast<int>(std::lround(time_.to_x(static_cast<double>(t))));
      p_.drawLine(x, geometry_.content_top(), x, size_.height());
    }
  }

  void paint_labels() {
    const auto& m = view_.metrics;
    p_.save();
    p_.setClipRect(QRect(0, geometry_.content_top(), m.label_width, geometry_.viewport_height()));
    p_.fillRect(QRect(0, geometry_.content_top(), m.label_width, geometry_.viewport_height()), kBackground);
    QFont small = p_.font();
    small.setPixelSize(std::clamp(m.lane_height - 3, 8, 11));
    QFont bold = p_.font();
    bold.setPixelSize(11);
    bold.setBold(true);
    p_.setPen(kText);
    // Labels every `step` lanes when lanes are too thin for each to carry one.
    const int step = std::max(1, (small.pixelSize() + 2 + m.lane_height) / (m.lane_height + m.lane_gap));
    for (int g = 0; g < model_.gpu_count(); ++g) {
      const int band = geometry_.band_top(g);
      if (visible(band, m.band_height)) {
        p_.setFont(bold);
        const auto& occ = model_.occupancy()[static_cast<std::size_t>(g)];
        p_.drawText(QRect(4, band + 2, m.label_width - 8, m.band_height - 4), Qt::AlignLeft | Qt::AlignTop,
                    QStringLiteral("GPU %1").arg(g));
        p_.setFont(small);
        p_.setPen(QColor(0x50, 0x70, 0x90));
        p_.drawText(QRect(4, band + 2, m.label_width - 8, m.band_height - 4), Qt::AlignLeft | Qt::AlignBottom,
                    QStringLiteral("busy SMs /%1\nblocks /%2").arg(occ.sms).arg(occ.peak_resident));
        p_.setPen(kText);
      }
      p_.setFont(small);
      for (int l = model_.first_lane(g); l < model_.first_lane(g + 1); l += step) {
        const int top = geometry_.lane_top(l);
        if (top >= size_.height()) break;
        if (!visible(top, m.lane_height)) continue;
        const auto& lane = model_.lanes()[static_cast<std::size_t>(l)];
        p_.drawText(QRect(4, top, m.label_width - 8, std::max(m.lane_height, small.pixelSize() + 2)),
                    Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("SM %1").arg(lane.sm));
      }
    }
    p_.restore();
  }

  void paint_axis() {
    const auto& m = view_.metrics;
    p_.fillRect(QRect(0, 0, size_.width(), m.axis_height), kBackground);
    p_.setPen(kGrid);
    p_.drawLine(0, m.axis_height - 1, size_.width(), m.axis_height - 1);
    QFont f = p_.font();
    f.setPixelSize(11);
    p_.setFont(f);
    p_.setPen(kText);
    const int left = geometry_.plot_left();
    for (const auto& tick : ticks_) {
      const int x = left + static_cast<int>(std::lround(time_.to_x(tick.time)));
      p_.drawLine(x, m.axis_height - 5, x, m.axis_height - 1);
      p_.drawText(QRect(x + 3, 0, 120, m.axis_height - 3), Qt::AlignLeft | Qt::AlignBottom,
                  QString::fromStdString(tick.label));
    }
    p_.fillRect(QRect(0, 0, left, m.axis_height - 1), kBackground);
    if (!view_.title.isEmpty())
      p_.drawText(QRect(4, 0, left - 4, m.axis_height - 3), Qt::AlignLeft | Qt::AlignBottom,
                  p_.fontMetrics().elidedText(view_.title, Qt::ElideRight, left - 6));
  }

  void paint_markers() {
    const auto& m = view_.metrics;
    const int top = m.axis_height, left = geometry_.plot_left();
    p_.save();
    p_.setClipRect(QRect(left, top, geometry_.plot_width(), m.marker_height));
    p_.setRenderHint(QPainter::Antialiasing, true);
    const auto& launches = model_.launches();
    // One arrival triangle and one finish bar per pixel column and kind: thousands of launches stay cheap.
    std::vector<char> arrival_drawn(static_cast<std::size_t>(geometry_.plot_width()) + 2, 0);
    std::vector<char> finish_drawn(arrival_drawn.size(), 0);
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const auto& l = launches[i];
      const bool selected = static_cast<int>(i) == view_.selected_launch;
      const QColor c = colours_[i % colours_.size()];
      const double xa = time_.to_x(static_cast<double>(l.arrival));
      if (xa >= -4 && xa <= geometry_.plot_width() + 4) {
        auto& drawn = arrival_drawn[static_cast<std::size_t>(std::clamp(xa, 0.0, geometry_.plot_width() + 1.0))];
        if (!drawn || selected) {
          drawn = 1;
          QPainterPath tri;
          const double x = left + xa;
          tri.moveTo(x - 4, top + 1);
          tri.lineTo(x + 4, top + 1);
          tri.lineTo(x, top + m.marker_height / 2.0 + 1);
          tri.closeSubpath();
          p_.fillPath(tri, selected ? c.darker(140) : c);
        }
      }
      if (l.finish < 0) continue;
      const double xf = time_.to_x(static_cast<double>(l.finish));
      if (xf < -4 || xf > geometry_.plot_width() + 4) continue;
      auto& drawn = finish_drawn[static_cast<std::size_t>(std::clamp(xf, 0.0, geometry_.plot_width() + 1.0))];
      if (drawn && !selected) continue;
      drawn = 1;
      p_.fillRect(QRectF(left + xf - 1, top + m.marker_height / 2.0, 2, m.marker_height / 2.0 - 1),
                  l.killed ? QColor(0x20, 0x20, 0x20) : (selected ? c.darker(140) : c));
    }
    p_.restore();
  }

  QPainter& p_;
  QSize size_;
  const TimelineModel& model_;
  const TimelineView& view_;
  TimelineGeometry geometry_;
  TimeMapping time_;
  std::vector<TimeTick> ticks_;
  std::vector<QColor> colours_;
  std::vector<BarSpan> spans_;
  std::vector<BarMark> marks_;
  std::vector<CurveColumn> columns_;
};

}  // namespace

void paint_timeline(QPainter& p, QSize size, const TimelineModel& model, const TimelineView& view, int right_margin) {
  Painter(p, size, model, view, right_margin).paint();
}

}  // namespace gpusched::gui
