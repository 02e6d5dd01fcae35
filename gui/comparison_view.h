// Policies side by side: for one comparison group (one workload, GPU, mode, model, seed) a bar chart per metric
// (STP, ANTT, StrictF, makespan over bound) and a table; for many workloads (a sweep) a box plot per metric of
// each policy's distribution, and a table of medians and quartiles.
#pragma once
#include <QChartView>
#include <QLabel>
#include <QTableWidget>
#include <QWidget>
#include <vector>

#include "core/store/store.h"

namespace gpusched::gui {

class ComparisonView : public QWidget {
  Q_OBJECT
 public:
  explicit ComparisonView(QWidget* parent = nullptr);
  void showGroup(const std::vector<const store::RunSummary*>& runs, const QString& title);
  void showDistributions(const std::vector<const store::RunSummary*>& runs, const QString& title);
  QTableWidget* table() const { return table_; }
  QChart* chart(int metric) const { return views_.at(static_cast<std::size_t>(metric))->chart(); }

 private:
  QLabel* title_;
  std::vector<QChartView*> views_;
  QTableWidget* table_;
};

}  // namespace gpusched::gui
