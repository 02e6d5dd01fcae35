// The stored validations (issue "Fidelity 2"): per policy, the spread over its validations of the per-launch
// turnaround error (median and p90 of each validation) and of the makespan error, as error bars and a table;
// for the validation picked below them, predicted against measured turnaround per launch (a scatter with the
// diagonal) and the two block-time distributions as CDFs with their KS statistic.
#pragma once
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "gui/model/validation_summary.h"

namespace gpusched::gui {

class ValidationView : public QWidget {
  Q_OBJECT
 public:
  // Reads a stored run with its blocks (the picked validation's two runs); may throw.
  using RunLoader = std::function<store::RunRecord(std::int64_t)>;
  explicit ValidationView(RunLoader loader, QWidget* parent = nullptr);

  // Shows a store's validations (none: a hint) and picks the first.
  void setSummary(ValidationSummary summary);
  // Picks validation `index` of the summary's entries for the scatter and the CDFs; false when out of range or
  // its runs cannot be read (the message is shown in the view).
  bool showValidation(int index);

  const ValidationSummary& summary() const { return summary_; }
  const std::optional<ValidationDetail>& detail() const { return detail_; }
  QTableWidget* table() const { return table_; }
  QComboBox* picker() const { return picker_; }
  QChart* errorChart(int figure) const { return error_views_.at(static_cast<std::size_t>(figure))->chart(); }
  QChart* scatterChart() const { return scatter_view_->chart(); }
  QChart* cdfChart() const { return cdf_view_->chart(); }

 private:
  void fillErrorCharts();
  void fillTable();

  RunLoader loader_;
  ValidationSummary summary_;
  std::optional<ValidationDetail> detail_;
  QLabel* title_;
  std::vector<QChartView*> error_views_;
  QTableWidget* table_;
  QComboBox* picker_;
  QLabel* pair_note_;
  QChartView* scatter_view_;
  QChartView* cdf_view_;
};

}  // namespace gpusched::gui
