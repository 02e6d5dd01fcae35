// Two timelines stacked with one time axis: two policies on the same workload, or a live run against the run
// that predicted it. Zooming or panning either moves both.
#pragma once
#include <QComboBox>
#include <QWidget>
#include <functional>
#include <memory>

#include "core/store/store.h"
#include "gui/model/timeline_model.h"
#include "gui/timeline_widget.h"

namespace gpusched::gui {

class CompareTimelines : public QWidget {
  Q_OBJECT
 public:
  using Loader = std::function<std::shared_ptr<const TimelineModel>(std::int64_t run)>;
  explicit CompareTimelines(Loader loader, QWidget* parent = nullptr);
  // The runs offered in both pickers (those with blocks kept).
  void setRuns(const std::vector<const store::RunSummary*>& runs);
  void showPair(std::int64_t a, std::int64_t b);
  TimelineWidget* top() const { return top_; }
  TimelineWidget* bottom() const { return bottom_; }

 private:
  void load(QComboBox* picker, TimelineWidget* view);
  void alignAxes();

  Loader loader_;
  QComboBox *pick_top_, *pick_bottom_;
  TimelineWidget *top_, *bottom_;
  bool syncing_ = false;
};

}  // namespace gpusched::gui
