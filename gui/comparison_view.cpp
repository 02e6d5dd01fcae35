#include "gui/comparison_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QGridLayout>
#include <QHeaderView>
#include <QHorizontalBarSeries>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <map>

#include "core/store/report.h"
#include "gui/model/run_timeline.h"
#include "gui/model/time_mapping.h"

namespace gpusched::gui {

namespace {
QString metric_short(const std::string& name) {
  if (name == "stp") return QStringLiteral("STP");
  if (name == "antt") return QStringLiteral("ANTT");
  if (name == "strict_f") return QStringLiteral("StrictF");
  return QStringLiteral("mk/bound");
}

const char* metric_title(const std::string& name) {
  if (name == "stp") return "STP (higher is better)";
  if (name == "antt") return "ANTT (lower is better)";
  if (name == "strict_f") return "StrictF fairness (higher is better)";
  return "makespan / bound (lower is better)";
}

QChart* fresh_chart(const std::string& metric) {
  auto* chart = new QChart;
  chart->setTitle(QString::fromLatin1(metric_title(metric)));
  chart->legend()->hide();
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->setAnimationOptions(QChart::NoAnimation);
  return chart;
}

// Policies along the category axis (left for horizontal bars, so that long names stay readable; bottom for box
// plots, turned when there are many), values along the other.
void attach_axes(QChart* chart, QAbstractSeries* series, const QStringList& categories, double lo, double hi,
                 bool horizontal) {
  auto* names = new QBarCategoryAxis;
  names->append(categories);
  // Many policies get a small font, so that every name fits beside its bar instead of being elided.
  QFont small = names->labelsFont();
  small.setPixelSize(categories.size() > 12 ? 8 : categories.size() > 6 ? 10 : 11);
  names->setLabelsFont(small);
  names->setTruncateLabels(false);
  if (!horizontal && categories.size() > 5) names->setLabelsAngle(-90);
  auto* values = new QValueAxis;
  const double pad = (hi - lo) * 0.08 + 1e-9;
  values->setRange(std::min(0.0, lo), hi + pad);
  values->applyNiceNumbers();
  values->setLabelsFont(small);
  chart->addAxis(names, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
  chart->addAxis(values, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
  series->attachAxis(names);
  series->attachAxis(values);
}

QTableWidgetItem* number_item(double v, int decimals = 3) {
  auto* item = new QTableWidgetItem(QString::number(v, 'f', decimals));
  item->setData(Qt::UserRole, v);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}
}  // namespace

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent), title_(new QLabel(this)), table_(new QTableWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(title_);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setObjectName(QStringLiteral("comparisonSplitter"));
  auto* charts = new QWidget(splitter);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  for (int i = 0; i < 4; ++i) {
    auto* view = new QChartView(charts);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(260, 180);
    grid->addWidget(view, i / 2, i % 2);
    views_.push_back(view);
  }
  splitter->addWidget(charts);
  splitter->addWidget(table_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  layout->addWidget(splitter);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  showGroup({}, tr("Select a workload's runs in the browser to compare its policies."));
}

void ComparisonView::showGroup(const std::vector<const store::RunSummary*>& runs, const QString& title) {
  title_->setText(title);
  std::vector<const store::RunInfo*> infos;
  for (const auto* r : runs) infos.push_back(&r->info);
  const auto labels = distinct_labels(infos);
  QStringList categories;
  for (const auto& l : labels) categories << QString::fromStdString(l);

  const auto& metrics = store::report_metrics();
  for (std::size_t m = 0; m < metrics.size() && m < views_.size(); ++m) {
    auto* chart = fresh_chart(metrics[m].name);
    auto* set = new QBarSet(QString::fromLatin1(metrics[m].name));
    set->setColor(QColor(0x4c, 0x78, 0xa8));
    double lo = 0, hi = 0;
    // Horizontal bars go up from the axis origin: add them last to first so that the first is on top, as in the
    // table.
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      const double v = metrics[m].get((*it)->metrics);
      *set << v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    auto* series = new QHorizontalBarSeries;
    series->append(set);
    series->setBarWidth(0.7);
    series->setLabelsVisible(runs.size() <= 8);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(3);
    chart->addSeries(series);
    QStringList bottom_up = categories;
    std::reverse(bottom_up.begin(), bottom_up.end());
    attach_axes(chart, series, bottom_up, lo, hi, true);
    QChart* old = views_[m]->chart();
    views_[m]->setChart(chart);
    delete old;
  }

  table_->clear();
  table_->setSortingEnabled(false);
  const QStringList headers{tr("policy"),   tr("STP"),      tr("ANTT"),    tr("StrictF"),
                            tr("makespan"), tr("mk/bound"), tr("SM util"), tr("run")};
  table_->setColumnCount(static_cast<int>(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(runs.size()));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& m = runs[i]->metrics;
    const int row = static_cast<int>(i);
    table_->setItem(row, 0, new QTableWidgetItem(categories[row]));
    table_->setItem(row, 1, number_item(m.stp));
    table_->setItem(row, 2, number_item(m.antt));
    table_->setItem(row, 3, number_item(m.strict_f));
    auto* makespan = new QTableWidgetItem(QString::fromStdString(format_duration_ns(static_cast<double>(m.makespan))));
    makespan->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(row, 4, makespan);
    table_->setItem(row, 5, number_item(m.makespan_over_bound));
    table_->setItem(row, 6, number_item(100.0 * m.sm_utilization, 1));
    table_->setItem(row, 7, new QTableWidgetItem(QString::number(runs[i]->info.id)));
  }
  table_->resizeColumnsToContents();
}

void ComparisonView::showDistributions(const std::vector<const store::RunSummary*>& runs, const QString& title) {
  title_->setText(title);
  // Policies (with parameters where one policy ran with several) in order of first appearance.
  std::vector<const store::RunInfo*> infos;
  for (const auto* r : runs) infos.push_back(&r->info);
  const auto labels = distinct_labels(infos);
  std::vector<std::string> order;
  std::map<std::string, std::vector<const store::RunSummary*>> by_label;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!by_label.count(labels[i])) order.push_back(labels[i]);
    by_label[labels[i]].push_back(runs[i]);
  }
  QStringList categories;
  for (const auto& l : order) categories << QString::fromStdString(l);

  const auto& metrics = store::report_metrics();
  std::vector<std::vector<store::Stats>> stats(metrics.size());
  for (std::size_t m = 0; m < metrics.size() && m < views_.size(); ++m) {
    auto* chart = fresh_chart(metrics[m].name);
    auto* series = new QBoxPlotSeries;
    series->setBrush(QColor(0x9e, 0xc5, 0xe8));
    double lo = 0, hi = 0;
    for (const auto& label : order) {
      std::vector<double> values;
      for (const auto* r : by_label[label]) values.push_back(metrics[m].get(r->metrics));
      const auto s = store::summarize(values);
      stats[m].push_back(s);
      auto* box = new QBoxSet(QString::fromStdString(label));
      box->setValue(QBoxSet::LowerExtreme, s.min);
      box->setValue(QBoxSet::LowerQuartile, s.q1);
      box->setValue(QBoxSet::Median, s.median);
      box->setValue(QBoxSet::UpperQuartile, s.q3);
      box->setValue(QBoxSet::UpperExtreme, s.max);
      series->append(box);
      lo = std::min(lo, s.min);
      hi = std::max(hi, s.max);
    }
    chart->addSeries(series);
    attach_axes(chart, series, categories, lo, hi, false);
    QChart* old = views_[m]->chart();
    views_[m]->setChart(chart);
    delete old;
  }

  table_->clear();
  QStringList headers{tr("policy"), tr("runs")};
  for (const auto& m : metrics)
    headers << QStringLiteral("%1 median").arg(metric_short(m.name))
            << QStringLiteral("%1 q1..q3").arg(metric_short(m.name));
  table_->setColumnCount(static_cast<int>(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(order.size()));
  for (std::size_t p = 0; p < order.size(); ++p) {
    const int row = static_cast<int>(p);
    table_->setItem(row, 0, new QTableWidgetItem(categories[row]));
    table_->setItem(row, 1, new QTableWidgetItem(QString::number(by_label[order[p]].size())));
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      const auto& s = stats[m][p];
      table_->setItem(row, static_cast<int>(2 + 2 * m), number_item(s.median));
      table_->setItem(row, static_cast<int>(3 + 2 * m),
                      new QTableWidgetItem(QStringLiteral("%1 .. %2").arg(s.q1, 0, 'f', 3).arg(s.q3, 0, 'f', 3)));
    }
  }
  table_->resizeColumnsToContents();
}

}  // namespace gpusched::gui
