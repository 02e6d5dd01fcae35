#include "gui/timeline_widget.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "gui/model/time_mapping.h"

namespace gpusched::gui {

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent), scroll_(new QScrollBar(Qt::Vertical, this)) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(240, 120);
  connect(scroll_, &QScrollBar::valueChanged, this, [this](int v) {
    view_.scroll_y = v;
    update();
  });
  setModel(std::make_shared<TimelineModel>());
}

void TimelineWidget::setModel(std::shared_ptr<const TimelineModel> model, const QString& title) {
  model_ = model ? std::move(model) : std::make_shared<TimelineModel>();
  view_.title = title;
  view_.selected_launch = -1;
  view_.scroll_y = 0;
  view_.time.set_width(plotWidth());
  // A little room on both sides so that the first and last bars are not on the frame.
  const double span = std::max<double>(TimeMapping::kMinSpanNs, static_cast<double>(model_->end() - model_->begin()));
  view_.time.set_limits(static_cast<double>(model_->begin()) - span * 0.01,
                        static_cast<double>(model_->end()) + span * 0.01);
  view_.time.fit();
  if (auto_lane_height_) fitLaneHeight();
  updateScrollBar();
  timeChanged();
}

void TimelineWidget::fitLaneHeight() {
  // Few SMs get tall lanes that fill the view; many get thin ones (and a scroll bar) but stay readable.
  const auto g = geometry();
  const int lanes = std::max<int>(1, static_cast<int>(model_->lanes().size()));
  const int room = g.viewport_height() - model_->gpu_count() * view_.metrics.band_height;
  view_.metrics.lane_height = std::clamp(room / lanes - view_.metrics.lane_gap, 6, 40);
}

int TimelineWidget::plotWidth() const {
  return std::max(1, width() - view_.metrics.label_width - scroll_->sizeHint().width());
}

TimelineGeometry TimelineWidget::geometry() const {
  return TimelineGeometry(*model_, view_.metrics, width() - scroll_->sizeHint().width(), height(), view_.scroll_y);
}

void TimelineWidget::updateScrollBar() {
  const auto g = geometry();
  const int w = scroll_->sizeHint().width();
  scroll_->setGeometry(width() - w, g.content_top(), w, std::max(0, height() - g.content_top()));
  scroll_->setRange(0, g.max_scroll());
  scroll_->setPageStep(std::max(1, g.viewport_height()));
  scroll_->setSingleStep(view_.metrics.lane_height + view_.metrics.lane_gap);
  view_.scroll_y = scroll_->value();
}

void TimelineWidget::timeChanged() {
  update();
  Q_EMIT timeRangeChanged(view_.time.begin(), view_.time.end());
}

void TimelineWidget::setSelectedLaunch(int launch) {
  if (launch >= static_cast<int>(model_->launches().size())) launch = -1;
  if (launch == view_.selected_launch) return;
  view_.selected_launch = launch;
  update();
  Q_EMIT launchSelected(launch);
}

void TimelineWidget::setTimeRange(double begin_ns, double end_ns) {
  TimeMapping next = view_.time;
  // A shared axis may come from a run with a different extent: widen the limits to show what is asked.
  next.set_limits(std::min(next.limit_begin(), begin_ns), std::max(next.limit_end(), end_ns));
  next.set_range(begin_ns, end_ns);
  if (next == view_.time) return;
  view_.time = next;
  timeChanged();
}

void TimelineWidget::fit() {
  view_.time.fit();
  timeChanged();
}

void TimelineWidget::zoomBy(double factor) {
  view_.time.zoom_at(plotWidth() / 2.0, factor);
  timeChanged();
}

void TimelineWidget::setLaneHeight(int px) {
  auto_lane_height_ = false;
  view_.metrics.lane_height = std::clamp(px, 3, 80);
  updateScrollBar();
  update();
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint_timeline(p, size(), *model_, view_, scroll_->sizeHint().width());
}

void TimelineWidget::resizeEvent(QResizeEvent*) {
  view_.time.set_width(plotWidth());
  if (auto_lane_height_) fitLaneHeight();
  updateScrollBar();
}

void TimelineWidget::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  if (e->modifiers() & Qt::ControlModifier) {
    setLaneHeight(laneHeight() + static_cast<int>(std::lround(steps * 2)));
  } else if (e->modifiers() & Qt::ShiftModifier) {
    scroll_->setValue(scroll_->value() - static_cast<int>(steps * 3 * scroll_->singleStep()));
  } else {
    view_.time.zoom_at(e->position().x() - view_.metrics.label_width, std::pow(1.25, steps));
    timeChanged();
  }
  e->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* e) {
  press_pos_ = last_pos_ = e->pos();
  moved_ = false;
  const bool box =
      e->button() == Qt::RightButton || (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier));
  drag_ = box ? Drag::Box : e->button() == Qt::LeftButton ? Drag::Pan : Drag::None;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e) {
  if (drag_ == Drag::None) return;
  if ((e->pos() - press_pos_).manhattanLength() > 3) moved_ = true;
  if (drag_ == Drag::Pan) {
    const QPoint d = e->pos() - last_pos_;
    view_.time.pan_pixels(d.x());
    scroll_->setValue(scroll_->value() - d.y());
    timeChanged();
  } else if (drag_ == Drag::Box && moved_) {
    view_.rubber_band = std::pair{press_pos_.x(), e->pos().x()};
    update();
  }
  last_pos_ = e->pos();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
  if (drag_ == Drag::Box && moved_) {
    const int left = view_.metrics.label_width;
    view_.time.zoom_to_pixels(press_pos_.x() - left, e->pos().x() - left);
    view_.rubber_band.reset();
    timeChanged();
  } else if (drag_ != Drag::None && !moved_ && e->button() == Qt::LeftButton) {
    setSelectedLaunch(launchAt(e->pos()));
  }
  drag_ = Drag::None;
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent*) {
  fit();
}

void TimelineWidget::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomBy(1.5);
      break;
    case Qt::Key_Minus:
      zoomBy(1 / 1.5);
      break;
    case Qt::Key_F:
    case Qt::Key_Home:
      fit();
      break;
    case Qt::Key_Left:
      view_.time.pan_pixels(plotWidth() / 8.0);
      timeChanged();
      break;
    case Qt::Key_Right:
      view_.time.pan_pixels(-plotWidth() / 8.0);
      timeChanged();
      break;
    case Qt::Key_Escape:
      setSelectedLaunch(-1);
      break;
    default:
      QWidget::keyPressEvent(e);
  }
}

int TimelineWidget::launchAt(QPoint pos) const {
  const auto hit = geometry().hit(pos.x(), pos.y());
  const double t = view_.time.to_time(pos.x() - view_.metrics.label_width);
  if (hit.kind == TimelineGeometry::Hit::Kind::Lane) {
    if (const auto* bar = model_->bar_at(hit.lane, hit.slot, t, 2 * view_.time.ns_per_pixel())) return bar->launch;
    return -1;
  }
  if (hit.kind == TimelineGeometry::Hit::Kind::Markers) {
    // The launch whose arrival or finish marker is nearest, within four pixels.
    int best = -1;
    double best_px = 4.0;
    for (std::size_t i = 0; i < model_->launches().size(); ++i) {
      const auto& l = model_->launches()[i];
      for (TimeNs m : {l.arrival, l.finish}) {
        if (m < 0) continue;
        const double d = std::abs(view_.time.to_x(static_cast<double>(m)) - (pos.x() - view_.metrics.label_width));
        if (d <= best_px) best_px = d, best = static_cast<int>(i);
      }
    }
    return best;
  }
  return -1;
}

QString TimelineWidget::describeAt(QPoint pos) const {
  const auto hit = geometry().hit(pos.x(), pos.y());
  const double t = view_.time.to_time(pos.x() - view_.metrics.label_width);
  const auto launch_text = [&](int i) {
    const auto& l = model_->launches()[static_cast<std::size_t>(i)];
    QString s = QStringLiteral("launch %1 (%2), kernel %3")
                    .arg(i)
                    .arg(QString::fromStdString(l.id), QString::fromStdString(l.kernel));
    if (!l.tenant.empty()) s += QStringLiteral(", tenant %1").arg(QString::fromStdString(l.tenant));
    return s;
  };
  if (pos.x() < view_.metrics.label_width) return {};
  switch (hit.kind) {
    case TimelineGeometry::Hit::Kind::Lane: {
      const auto* bar = model_->bar_at(hit.lane, hit.slot, t, 2 * view_.time.ns_per_pixel());
      if (!bar || bar->launch >= static_cast<int>(model_->launches().size())) return {};
      const auto& lane = model_->lanes()[static_cast<std::size_t>(hit.lane)];
      return launch_text(bar->launch) +
             QStringLiteral("\nblock %1 on GPU %2 SM %3\nstart %4, end %5\nduration %6\noutcome %7")
                 .arg(bar->block)
                 .arg(lane.gpu)
                 .arg(lane.sm)
                 .arg(QString::fromStdString(format_duration_ns(static_cast<double>(bar->start))),
                      QString::fromStdString(format_duration_ns(static_cast<double>(bar->end))),
                      QString::fromStdString(format_duration_ns(static_cast<double>(bar->end - bar->start))),
                      QString::fromUtf8(to_string(bar->outcome).data(),
                                        static_cast<qsizetype>(to_string(bar->outcome).size())));
    }
    case TimelineGeometry::Hit::Kind::Markers: {
      const int i = launchAt(pos);
      if (i < 0) return {};
      const auto& l = model_->launches()[static_cast<std::size_t>(i)];
      return launch_text(i) + QStringLiteral("\narrival %1, finish %2, %3 blocks%4")
                                  .arg(QString::fromStdString(format_duration_ns(static_cast<double>(l.arrival))),
                                       l.finish < 0
                                           ? QStringLiteral("none")
                                           : QString::fromStdString(format_duration_ns(static_cast<double>(l.finish))))
                                  .arg(l.blocks)
                                  .arg(l.killed ? QStringLiteral(", killed") : QString());
    }
    case TimelineGeometry::Hit::Kind::Band: {
      const auto& occ = model_->occupancy()[static_cast<std::size_t>(hit.gpu)];
      const auto it = std::upper_bound(occ.times.begin(), occ.times.end(), t,
                                       [](double v, TimeNs x) { return v < static_cast<double>(x); });
      const auto i = static_cast<std::size_t>(it - occ.times.begin());
      const int busy = i == 0 ? 0 : occ.busy_sms[i - 1], resident = i == 0 ? 0 : occ.resident[i - 1];
      return QStringLiteral("GPU %1 at %2\n%3 of %4 SMs busy, %5 blocks resident")
          .arg(hit.gpu)
          .arg(QString::fromStdString(format_duration_ns(t)))
          .arg(busy)
          .arg(occ.sms)
          .arg(resident);
    }
    default:
      return {};
  }
}

bool TimelineWidget::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = describeAt(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace gpusched::gui
