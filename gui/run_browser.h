// The run browser: a store's runs grouped by workload and, within one, by GPU, mode, interference model and
// seed (the runs a comparison puts side by side), with filters on mode, policy, GPU and free text.
#pragma once
#include <QComboBox>
#include <QLineEdit>
#include <QTreeWidget>
#include <QWidget>
#include <vector>

#include "core/store/store.h"
#include "gui/model/run_groups.h"

namespace gpusched::gui {

class RunBrowser : public QWidget {
  Q_OBJECT
 public:
  explicit RunBrowser(QWidget* parent = nullptr);
  void setRuns(std::vector<store::RunSummary> runs);
  const std::vector<store::RunSummary>& runs() const { return runs_; }
  // The runs passing the filters, in id order.
  std::vector<const store::RunSummary*> filteredRuns() const;
  // The comparison group of the current item (a group, or a run's group); nullptr when none.
  const ComparisonGroup* currentGroup() const;
  // The runs selected (run items only), in selection order.
  std::vector<std::int64_t> selectedRunIds() const;
  RunBrowserFilter filter() const;
  void setFilter(const RunBrowserFilter& f);
  QTreeWidget* tree() const { return tree_; }
  // Makes the run with this id current (and visible).
  bool selectRun(std::int64_t id);

 Q_SIGNALS:
  void runActivated(qint64 id);  // a run made current
  void groupChanged();           // the current comparison group changed (and after every rebuild of the list)
  void selectionChanged();

 private:
  void rebuild();
  QTreeWidgetItem* groupItemOf(QTreeWidgetItem* item) const;

  std::vector<store::RunSummary> runs_;
  std::vector<WorkloadGroup> groups_;
  QComboBox *mode_, *policy_, *gpu_;
  QLineEdit* text_;
  QTreeWidget* tree_;
};

}  // namespace gpusched::gui
