// The legend beside a timeline: every launch with its colour, kernel, tenant, arrival and finish (clicking one
// selects it, as clicking its blocks does), and the preemption markers' colours.
#pragma once
#include <QTreeWidget>
#include <QWidget>
#include <memory>

#include "gui/model/timeline_model.h"

namespace gpusched::gui {

class LaunchLegend : public QWidget {
  Q_OBJECT
 public:
  explicit LaunchLegend(QWidget* parent = nullptr);
  void setModel(std::shared_ptr<const TimelineModel> model);
  int rowCount() const { return tree_->topLevelItemCount(); }

 public Q_SLOTS:
  void setSelectedLaunch(int launch);

 Q_SIGNALS:
  void launchSelected(int launch);

 private:
  QTreeWidget* tree_;
  bool updating_ = false;
};

}  // namespace gpusched::gui
