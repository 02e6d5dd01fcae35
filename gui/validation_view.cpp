#include "gui/validation_view.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QSplitter>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace gpusched::gui {

namespace {
constexpr std::size_t kCdfPoints = 400;  // per curve: a 70,000-block run drawn as 400 steps looks the same

struct ErrorFigure {
  const char* title;
  Spread PolicyValidation::*spread;
};
const ErrorFigure kFigures[] = {
    {"per-launch turnaround |error|, median (%)", &PolicyValidation::turnaround_median_pct},
    {"per-launch turnaround |error|, p90 (%)", &PolicyValidation::turnaround_p90_pct},
    {"makespan |error| (%)", &PolicyValidation::makespan_pct},
};

QChart* fresh_chart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->setAnimationOptions(QChart::NoAnimation);
  return chart;
}

void replace_chart(QChartView* view, QChart* chart) {
  QChart* old = view->chart();
  view->setChart(chart);
  delete old;
}

QString spread_text(const Spread& s, std::size_t n) {
  if (n <= 1) return QString::number(s.median, 'f', 1);
  return QStringLiteral("%1 (%2-%3)").arg(s.median, 0, 'f', 1).arg(s.min, 0, 'f', 1).arg(s.max, 0, 'f', 1);
}

QTableWidgetItem* item(const QString& text, double sort_value) {
  auto* it = new QTableWidgetItem(text);
  it->setData(Qt::UserRole, sort_value);
  it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return it;
}

// A value axis, logarithmic when the values span more than two decades (turnarounds of bursts of short
// launches beside long ones), with `lo`..`hi` in view.
QAbstractAxis* value_axis(double lo, double hi, const QString& title) {
  if (lo > 0 && hi / lo > 100) {
    auto* axis = new QLogValueAxis;
    axis->setBase(10);
    axis->setRange(lo / 1.2, hi * 1.2);
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setTitleText(title);
    return axis;
  }
  auto* axis = new QValueAxis;
  axis->setRange(0, hi * 1.05 + 1e-9);
  axis->applyNiceNumbers();
  axis->setTitleText(title);
  return axis;
}
}  // namespace

ValidationView::ValidationView(RunLoader loader, QWidget* parent)
    : QWidget(parent),
      loader_(std::move(loader)),
      title_(new QLabel(this)),
      table_(new QTableWidget(this)),
      picker_(new QComboBox(this)),
      pair_note_(new QLabel(this)),
      scatter_view_(new QChartView(this)),
      cdf_view_(new QChartView(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  title_->setWordWrap(true);
  layout->addWidget(title_);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setObjectName(QStringLiteral("validationSplitter"));

  auto* errors = new QWidget(splitter);
  auto* row = new QHBoxLayout(errors);
  row->setContentsMargins(0, 0, 0, 0);
  for (std::size_t i = 0; i < std::size(kFigures); ++i) {
    auto* view = new QChartView(errors);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(220, 180);
    row->addWidget(view);
    error_views_.push_back(view);
  }
  splitter->addWidget(errors);

  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  splitter->addWidget(table_);

  auto* pair = new QWidget(splitter);
  auto* pair_layout = new QVBoxLayout(pair);
  pair_layout->setContentsMargins(0, 0, 0, 0);
  auto* pick_row = new QHBoxLayout;
  pick_row->addWidget(new QLabel(tr("validation:"), pair));
  picker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  pick_row->addWidget(picker_);
  pick_row->addWidget(pair_note_, 1);
  pair_layout->addLayout(pick_row);
  auto* charts = new QHBoxLayout;
  for (auto* view : {scatter_view_, cdf_view_}) {
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(260, 220);
    charts->addWidget(view);
  }
  pair_layout->addLayout(charts, 1);
  splitter->addWidget(pair);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 1);
  splitter->setStretchFactor(2, 3);
  layout->addWidget(splitter, 1);

  connect(picker_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) showValidation(picker_->itemData(i).toInt());
  });
  // A policy's row picks its first validation below.
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int r, int, int, int) {
    if (r < 0) return;
    const QString policy = table_->item(r, 0)->text();
    for (int i = 0; i < picker_->count(); ++i) {
      const auto& e = summary_.entries[static_cast<std::size_t>(picker_->itemData(i).toInt())];
      if (QString::fromStdString(e.policy) == policy) {
        picker_->setCurrentIndex(i);
        return;
      }
    }
  });
  setSummary({});
}

void ValidationView::setSummary(ValidationSummary summary) {
  summary_ = std::move(summary);
  detail_.reset();
  if (summary_.entries.empty())
    title_->setText(
        tr("This store holds no validations. `gpusched-live validate --db STORE` stores a prediction "
           "and its execution on the GPU as one."));
  else
    title_->setText(tr("%1 validations of %2 policies. Errors are |measured - predicted| / measured; bars: median "
                       "over a policy's validations, whiskers: smallest to largest.")
                        .arg(summary_.entries.size())
                        .arg(summary_.policies.size()));
  fillErrorCharts();
  fillTable();
  const QSignalBlocker block(picker_);
  picker_->clear();
  for (std::size_t i = 0; i < summary_.entries.size(); ++i) {
    const auto& e = summary_.entries[i];
    picker_->addItem(QStringLiteral("%1 · %2 · %3 · %4  (runs %5 / %6)")
                         .arg(QString::fromStdString(e.policy), QString::fromStdString(e.workload),
                              QString::fromStdString(e.gpu), QString::fromStdString(e.created_at))
                         .arg(e.predicted_run)
                         .arg(e.live_run),
                     static_cast<int>(i));
  }
  if (summary_.entries.empty()) {
    pair_note_->clear();
    replace_chart(scatter_view_, fresh_chart(tr("predicted against measured turnaround")));
    replace_chart(cdf_view_, fresh_chart(tr("block times")));
    return;
  }
  showValidation(0);
}

void ValidationView::fillErrorCharts() {
  QStringList categories;
  for (const auto& p : summary_.policies) categories << QString::fromStdString(p.policy);
  for (std::size_t f = 0; f < std::size(kFigures); ++f) {
    auto* chart = fresh_chart(QString::fromLatin1(kFigures[f].title));
    chart->legend()->hide();
    auto* series = new QBoxPlotSeries;
    double hi = 1;
    // An error bar: the box collapsed onto the median, whiskers from the smallest to the largest validation.
    for (const auto& p : summary_.policies) {
      const Spread& s = p.*(kFigures[f].spread);
      auto* set = new QBoxSet(s.min, s.median, s.median, s.median, s.max, QString::fromStdString(p.policy));
      set->setBrush(QColor(0x4c, 0x78, 0xa8));
      series->append(set);
      hi = std::max(hi, s.max);
    }
    series->setBoxWidth(0.5);
    chart->addSeries(series);
    auto* names = new QBarCategoryAxis;
    names->append(categories);
    names->setTruncateLabels(false);
    if (categories.size() > 4) names->setLabelsAngle(-90);
    auto* values = new QValueAxis;
    values->setRange(0, hi * 1.08);
    values->applyNiceNumbers();
    chart->addAxis(names, Qt::AlignBottom);
    chart->addAxis(values, Qt::AlignLeft);
    series->attachAxis(names);
    series->attachAxis(values);
    replace_chart(error_views_[f], chart);
  }
}

void ValidationView::fillTable() {
  table_->clear();
  table_->setSortingEnabled(false);
  const QStringList headers{tr("policy"), tr("validations"), tr("turnaround |err| median %"),
                            tr("turnaround |err| p90 %"), tr("makespan |err| %")};
  table_->setColumnCount(static_cast<int>(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(summary_.policies.size()));
  for (std::size_t i = 0; i < summary_.policies.size(); ++i) {
    const auto& p = summary_.policies[i];
    const int r = static_cast<int>(i);
    table_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(p.policy)));
    table_->setItem(r, 1, item(QString::number(p.validations), static_cast<double>(p.validations)));
    table_->setItem(r, 2, item(spread_text(p.turnaround_median_pct, p.validations), p.turnaround_median_pct.median));
    table_->setItem(r, 3, item(spread_text(p.turnaround_p90_pct, p.validations), p.turnaround_p90_pct.median));
    table_->setItem(r, 4, item(spread_text(p.makespan_pct, p.validations), p.makespan_pct.median));
  }
  table_->resizeColumnsToContents();
}

bool ValidationView::showValidation(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= summary_.entries.size()) return false;
  const auto& e = summary_.entries[static_cast<std::size_t>(index)];
  {
    const QSignalBlocker block(picker_);
    picker_->setCurrentIndex(picker_->findData(index));
  }
  try {
    const store::RunRecord predicted = loader_(e.predicted_run);
    const store::RunRecord live = loader_(e.live_run);
    detail_ = validation_detail(predicted, live, predicted.info.workload_file);
  } catch (const std::exception& ex) {
    detail_.reset();
    pair_note_->setText(tr("cannot read runs %1 / %2: %3").arg(e.predicted_run).arg(e.live_run).arg(ex.what()));
    replace_chart(scatter_view_, fresh_chart(tr("predicted against measured turnaround")));
    replace_chart(cdf_view_, fresh_chart(tr("block times")));
    return false;
  }
  pair_note_->setText(tr("%1 launches: turnaround |error| median %2 %, p90 %3 %, max %4 %; makespan %5%6 %")
                          .arg(e.launches)
                          .arg(e.turnaround_median_pct, 0, 'f', 1)
                          .arg(e.turnaround_p90_pct, 0, 'f', 1)
                          .arg(e.turnaround_max_pct, 0, 'f', 1)
                          .arg(e.makespan_signed_pct >= 0 ? QStringLiteral("+") : QString())
                          .arg(e.makespan_signed_pct, 0, 'f', 1));

  // Scatter: one point per launch, in microseconds; on the diagonal the prediction is exact.
  auto* scatter = fresh_chart(tr("turnaround per launch (us): predicted against measured"));
  scatter->legend()->hide();
  auto* points = new QScatterSeries;
  points->setMarkerSize(7);
  points->setColor(QColor(0x4c, 0x78, 0xa8));
  double lo = INFINITY, hi = 0;
  for (const auto& [p, m] : detail_->turnarounds) {
    const double x = p / 1e3, y = m / 1e3;
    points->append(x, y);
    for (const double v : {x, y})
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!std::isfinite(lo)) lo = 1, hi = std::max(hi, 1.0);
  auto* diagonal = new QLineSeries;
  diagonal->setPen(QPen(QColor(0x88, 0x88, 0x88), 1, Qt::DashLine));
  diagonal->append(lo / 1.2, lo / 1.2);
  diagonal->append(hi * 1.2, hi * 1.2);
  scatter->addSeries(diagonal);
  scatter->addSeries(points);
  auto* x = value_axis(lo, hi, tr("predicted"));
  auto* y = value_axis(lo, hi, tr("measured"));
  scatter->addAxis(x, Qt::AlignBottom);
  scatter->addAxis(y, Qt::AlignLeft);
  for (auto* s : {static_cast<QAbstractSeries*>(diagonal), static_cast<QAbstractSeries*>(points)}) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  replace_chart(scatter_view_, scatter);

  // CDFs of the block times, in microseconds.
  const QString ks = detail_->block_time_ks ? QString::number(*detail_->block_time_ks, 'f', 3) : tr("n/a");
  auto* cdf =
      fresh_chart(tr("block times (us): KS %1%2")
                      .arg(ks, detail_->raw_equivalent ? QString() : tr(" (predicted as stored: slot occupancies)")));
  double t_hi = 0;
  const struct {
    const std::vector<double>* sample;
    QString name;
    QColor color;
  } curves[] = {{&detail_->predicted_block_times, tr("predicted"), QColor(0x4c, 0x78, 0xa8)},
                {&detail_->measured_block_times, tr("measured"), QColor(0xe4, 0x57, 0x56)}};
  std::vector<QLineSeries*> lines;
  for (const auto& c : curves) {
    auto* line = new QLineSeries;
    line->setName(c.name + QStringLiteral(" (%1 pieces)").arg(c.sample->size()));
    line->setPen(QPen(c.color, 2));
    double previous = 0;
    for (const auto& [t, f] : cdf_points(*c.sample, kCdfPoints)) {
      line->append(t / 1e3, previous);  // a step: F jumps at t
      line->append(t / 1e3, f);
      previous = f;
      t_hi = std::max(t_hi, t / 1e3);
    }
    cdf->addSeries(line);
    lines.push_back(line);
  }
  auto* tx = new QValueAxis;
  tx->setRange(0, t_hi * 1.05 + 1e-9);
  tx->applyNiceNumbers();
  auto* fy = new QValueAxis;
  fy->setRange(0, 1);
  cdf->addAxis(tx, Qt::AlignBottom);
  cdf->addAxis(fy, Qt::AlignLeft);
  for (auto* l : lines) {
    l->attachAxis(tx);
    l->attachAxis(fy);
  }
  cdf->legend()->setAlignment(Qt::AlignBottom);
  replace_chart(cdf_view_, cdf);
  return true;
}

}  // namespace gpusched::gui
