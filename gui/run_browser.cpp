#include "gui/run_browser.h"

#include <fmt/format.h>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QVBoxLayout>

#include "gui/model/run_timeline.h"
#include "gui/model/time_mapping.h"

namespace gpusched::gui {

namespace {
enum Role { RunIdRole = Qt::UserRole, GroupRole };
enum Kind { WorkloadItem = QTreeWidgetItem::UserType, GroupItem, RunItem };

void fill_combo(QComboBox* combo, const QString& all, const std::vector<std::string>& values) {
  const QString current = combo->currentData().toString();
  combo->blockSignals(true);
  combo->clear();
  combo->addItem(all, QString());
  for (const auto& v : values) combo->addItem(QString::fromStdString(v), QString::fromStdString(v));
  const int i = combo->findData(current);
  combo->setCurrentIndex(i < 0 ? 0 : i);
  combo->blockSignals(false);
}
}  // namespace

RunBrowser::RunBrowser(QWidget* parent)
    : QWidget(parent),
      mode_(new QComboBox(this)),
      policy_(new QComboBox(this)),
      gpu_(new QComboBox(this)),
      text_(new QLineEdit(this)),
      tree_(new QTreeWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* filters = new QHBoxLayout;
  mode_->addItem(tr("sim and live"), QString());
  mode_->addItem(tr("sim"), QStringLiteral("sim"));
  mode_->addItem(tr("live"), QStringLiteral("live"));
  text_->setPlaceholderText(tr("filter: workload, policy, GPU, sweep..."));
  text_->setClearButtonEnabled(true);
  filters->addWidget(mode_);
  filters->addWidget(policy_);
  filters->addWidget(gpu_);
  layout->addLayout(filters);
  layout->addWidget(text_);
  layout->addWidget(tree_);
  tree_->setHeaderLabels({tr("run"), tr("STP"), tr("ANTT"), tr("StrictF"), tr("makespan"), tr("mk/bound"), tr("id")});
  tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  tree_->setUniformRowHeights(true);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  fill_combo(policy_, tr("all policies"), {});
  fill_combo(gpu_, tr("all GPUs"), {});
  for (auto* combo : {mode_, policy_, gpu_})
    connect(combo, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  connect(text_, &QLineEdit::textChanged, this, [this] { rebuild(); });
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* now, QTreeWidgetItem* before) {
    if (now && now->type() == RunItem) Q_EMIT runActivated(now->data(0, RunIdRole).toLongLong());
    if (groupItemOf(now) != groupItemOf(before)) Q_EMIT groupChanged();
  });
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, &RunBrowser::selectionChanged);
}

void RunBrowser::setRuns(std::vector<store::RunSummary> runs) {
  runs_ = std::move(runs);
  fill_combo(policy_, tr("all policies"), distinct_values(runs_, "policy"));
  fill_combo(gpu_, tr("all GPUs"), distinct_values(runs_, "gpu"));
  rebuild();
}

RunBrowserFilter RunBrowser::filter() const {
  return {mode_->currentData().toString().toStdString(), policy_->currentData().toString().toStdString(),
          gpu_->currentData().toString().toStdString(), text_->text().toStdString()};
}

void RunBrowser::setFilter(const RunBrowserFilter& f) {
  const auto pick = [](QComboBox* c, const std::string& v) {
    const int i = c->findData(QString::fromStdString(v));
    c->setCurrentIndex(i < 0 ? 0 : i);
  };
  pick(mode_, f.mode);
  pick(policy_, f.policy);
  pick(gpu_, f.gpu);
  text_->setText(QString::fromStdString(f.text));
}

std::vector<const store::RunSummary*> RunBrowser::filteredRuns() const {
  std::vector<const store::RunSummary*> out;
  const auto f = filter();
  for (const auto& r : runs_)
    if (matches(r, f)) out.push_back(&r);
  return out;
}

void RunBrowser::rebuild() {
  const std::int64_t current = tree_->currentItem() && tree_->currentItem()->type() == RunItem
                                   ? tree_->currentItem()->data(0, RunIdRole).toLongLong()
                                   : -1;
  groups_ = group_runs_for_browser(runs_, filter());
  tree_->blockSignals(true);
  tree_->clear();
  for (std::size_t w = 0; w < groups_.size(); ++w) {
    const auto& wg = groups_[w];
    auto* wi = new QTreeWidgetItem(
        tree_, {QStringLiteral("%1  (%2 runs)").arg(QString::fromStdString(wg.workload)).arg(wg.run_count())},
        WorkloadItem);
    for (std::size_t g = 0; g < wg.groups.size(); ++g) {
      const auto& group = wg.groups[g];
      auto* gi = new QTreeWidgetItem(wi, {QString::fromStdString(group.title())}, GroupItem);
      gi->setData(0, GroupRole, QPoint(static_cast<int>(w), static_cast<int>(g)));
      std::vector<const store::RunInfo*> infos;
      for (const auto* r : group.runs) infos.push_back(&r->info);
      const auto labels = distinct_labels(infos);
      for (std::size_t i = 0; i < group.runs.size(); ++i) {
        const auto& r = *group.runs[i];
        const auto& m = r.metrics;
        auto* ri = new QTreeWidgetItem(gi,
                                       {QString::fromStdString(labels[i]), QString::number(m.stp, 'f', 3),
                                        QString::number(m.antt, 'f', 3), QString::number(m.strict_f, 'f', 3),
                                        QString::fromStdString(format_duration_ns(static_cast<double>(m.makespan))),
                                        QString::number(m.makespan_over_bound, 'f', 3), QString::number(r.info.id)},
                                       RunItem);
        ri->setData(0, RunIdRole, static_cast<qlonglong>(r.info.id));
        ri->setData(0, GroupRole, QPoint(static_cast<int>(w), static_cast<int>(g)));
        if (!r.info.blocks_kept) ri->setToolTip(0, tr("blocks not kept: no timeline"));
      }
    }
  }
  tree_->expandAll();
  // The run that was current stays current, quietly (its timeline is already shown); the groups changed.
  if (current >= 0) selectRun(current);
  tree_->blockSignals(false);
  Q_EMIT groupChanged();
}

bool RunBrowser::selectRun(std::int64_t id) {
  for (QTreeWidgetItemIterator it(tree_); *it; ++it)
    if ((*it)->type() == RunItem && (*it)->data(0, RunIdRole).toLongLong() == id) {
      tree_->setCurrentItem(*it);
      tree_->scrollToItem(*it);
      return true;
    }
  return false;
}

QTreeWidgetItem* RunBrowser::groupItemOf(QTreeWidgetItem* item) const {
  if (!item) return nullptr;
  if (item->type() == RunItem) return item->parent();
  if (item->type() == GroupItem) return item;
  if (item->type() == WorkloadItem && item->childCount() == 1) return item->child(0);
  return nullptr;
}

const ComparisonGroup* RunBrowser::currentGroup() const {
  const auto* item = groupItemOf(tree_->currentItem());
  if (!item) return nullptr;
  const QPoint at = item->data(0, GroupRole).toPoint();
  return &groups_.at(static_cast<std::size_t>(at.x())).groups.at(static_cast<std::size_t>(at.y()));
}

std::vector<std::int64_t> RunBrowser::selectedRunIds() const {
  std::vector<std::int64_t> ids;
  for (const auto* item : tree_->selectedItems())
    if (item->type() == RunItem) ids.push_back(item->data(0, RunIdRole).toLongLong());
  return ids;
}

}  // namespace gpusched::gui
