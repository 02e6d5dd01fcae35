#include "gui/compare_timelines.h"

#include <QFormLayout>
#include <QSplitter>
#include <QVBoxLayout>

#include "gui/model/run_timeline.h"

namespace gpusched::gui {

CompareTimelines::CompareTimelines(Loader loader, QWidget* parent)
    : QWidget(parent),
      loader_(std::move(loader)),
      pick_top_(new QComboBox(this)),
      pick_bottom_(new QComboBox(this)),
      top_(new TimelineWidget(this)),
      bottom_(new TimelineWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* form = new QFormLayout;
  form->addRow(tr("Top:"), pick_top_);
  form->addRow(tr("Bottom:"), pick_bottom_);
  layout->addLayout(form);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setObjectName(QStringLiteral("compareSplitter"));
  splitter->addWidget(top_);
  splitter->addWidget(bottom_);
  layout->addWidget(splitter, 1);
  for (auto [picker, view] : {std::pair{pick_top_, top_}, std::pair{pick_bottom_, bottom_}})
    connect(picker, &QComboBox::currentIndexChanged, this, [this, picker = picker, view = view] {
      load(picker, view);
      alignAxes();
    });
  // One selection: runs of one workload number their launches alike, so a launch picked in either is
  // highlighted in both.
  for (auto [from, to] : {std::pair{top_, bottom_}, std::pair{bottom_, top_}})
    connect(from, &TimelineWidget::launchSelected, this, [this, from = from, to = to](int launch) {
      if (syncing_ || from->model()->launches().size() != to->model()->launches().size()) return;
      syncing_ = true;
      to->setSelectedLaunch(launch);
      syncing_ = false;
    });
  // One time axis: a change in either is applied to the other.
  for (auto [from, to] : {std::pair{top_, bottom_}, std::pair{bottom_, top_}})
    connect(from, &TimelineWidget::timeRangeChanged, this, [this, to = to](double b, double e) {
      if (syncing_) return;
      syncing_ = true;
      to->setTimeRange(b, e);
      syncing_ = false;
    });
}

void CompareTimelines::setRuns(const std::vector<const store::RunSummary*>& runs) {
  for (auto* picker : {pick_top_, pick_bottom_}) {
    const auto current = picker->currentData();
    picker->blockSignals(true);
    picker->clear();
    for (const auto* r : runs)
      if (r->info.blocks_kept)
        picker->addItem(QString::fromStdString(run_title(r->info)), static_cast<qlonglong>(r->info.id));
    const int i = picker->findData(current);
    picker->setCurrentIndex(i < 0 ? -1 : i);
    picker->blockSignals(false);
  }
}

void CompareTimelines::showPair(std::int64_t a, std::int64_t b) {
  for (auto [picker, id] : {std::pair{pick_top_, a}, std::pair{pick_bottom_, b}}) {
    const int i = picker->findData(static_cast<qlonglong>(id));
    picker->blockSignals(true);
    picker->setCurrentIndex(i);
    picker->blockSignals(false);
  }
  load(pick_top_, top_);
  load(pick_bottom_, bottom_);
  alignAxes();
}

void CompareTimelines::load(QComboBox* picker, TimelineWidget* view) {
  if (picker->currentIndex() < 0) {
    view->setModel(nullptr);
    return;
  }
  view->setModel(loader_(picker->currentData().toLongLong()), picker->currentText());
}

void CompareTimelines::alignAxes() {
  // Both show the union of their extents.
  const auto* a = top_->model();
  const auto* b = bottom_->model();
  const double lo = static_cast<double>(std::min(a->begin(), b->empty() ? a->begin() : b->begin()));
  const double hi = static_cast<double>(std::max(a->end(), b->end()));
  const double pad = (hi - lo) * 0.01;
  syncing_ = true;
  top_->setTimeRange(lo - pad, hi + pad);
  bottom_->setTimeRange(lo - pad, hi + pad);
  syncing_ = false;
}

}  // namespace gpusched::gui
