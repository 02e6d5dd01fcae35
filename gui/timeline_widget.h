// An interactive timeline: wheel zooms at the pointer (Shift+wheel scrolls the lanes, Ctrl+wheel changes
// the lane height), dragging pans, dragging with the right button (or Shift) zooms to a box, double-click fits,
// hovering shows a block's details, clicking a block selects its launch. Several widgets can share a time
// axis (setTimeRange from another's timeRangeChanged).
#pragma once
#include <QScrollBar>
#include <QWidget>
#include <memory>

#include "gui/model/timeline_model.h"
#include "gui/timeline_painter.h"

namespace gpusched::gui {

class TimelineWidget : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void setModel(std::shared_ptr<const TimelineModel> model, const QString& title = {});
  const TimelineModel* model() const { return model_.get(); }
  const TimeMapping& timeMapping() const { return view_.time; }
  const TimelineView& view() const { return view_; }
  int selectedLaunch() const { return view_.selected_launch; }
  int laneHeight() const { return view_.metrics.lane_height; }
  // The hover text at a widget position ("" when nothing is there); what the tooltip shows.
  QString describeAt(QPoint pos) const;
  // The launch whose block is at a widget position, or -1.
  int launchAt(QPoint pos) const;
  QSize sizeHint() const override { return {900, 600}; }

 public Q_SLOTS:
  void setSelectedLaunch(int launch);
  void setTimeRange(double begin_ns, double end_ns);
  void fit();
  void zoomBy(double factor);  // around the middle
  void setLaneHeight(int px);  // and stop fitting lanes to the view

 Q_SIGNALS:
  void launchSelected(int launch);
  void timeRangeChanged(double begin_ns, double end_ns);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;
  void keyPressEvent(QKeyEvent*) override;
  bool event(QEvent*) override;

 private:
  TimelineGeometry geometry() const;
  int plotWidth() const;
  void timeChanged();
  void updateScrollBar();
  void fitLaneHeight();

  std::shared_ptr<const TimelineModel> model_;
  TimelineView view_;
  QScrollBar* scroll_;
  enum class Drag { None, Pan, Box } drag_ = Drag::None;
  QPoint press_pos_, last_pos_;
  bool moved_ = false;
  bool auto_lane_height_ = true;  // until the user sets a height
};

}  // namespace gpusched::gui
