#include "gui/launch_legend.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QVBoxLayout>

#include "gui/model/palette.h"
#include "gui/model/time_mapping.h"

namespace gpusched::gui {

namespace {
QIcon swatch(std::uint32_t rgb) {
  QPixmap pm(12, 12);
  pm.fill(QColor::fromRgb(static_cast<QRgb>(rgb | 0xff000000u)));
  return QIcon(pm);
}

QString outcome_legend() {
  QString html = QStringLiteral("<small>markers: ");
  for (auto o : {PieceOutcome::Drained, PieceOutcome::Flushed, PieceOutcome::SwitchedOut, PieceOutcome::SwitchedIn,
                 PieceOutcome::Killed}) {
    const auto name = to_string(o);
    html += QStringLiteral("<span style='color:#%1'>&#9608;</span>&nbsp;%2 ")
                .arg(outcome_rgb(o), 6, 16, QLatin1Char('0'))
                .arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
  }
  return html + QStringLiteral("</small>");
}
}  // namespace

LaunchLegend::LaunchLegend(QWidget* parent) : QWidget(parent), tree_(new QTreeWidget(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* markers = new QLabel(outcome_legend(), this);
  markers->setWordWrap(true);
  layout->addWidget(markers);
  layout->addWidget(tree_);
  tree_->setRootIsDecorated(false);
  tree_->setUniformRowHeights(true);
  tree_->setHeaderLabels({tr("launch"), tr("kernel"), tr("tenant"), tr("arrival"), tr("finish"), tr("blocks")});
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (updating_) return;
    Q_EMIT launchSelected(item ? item->data(0, Qt::UserRole).toInt() : -1);
  });
}

void LaunchLegend::setModel(std::shared_ptr<const TimelineModel> model) {
  updating_ = true;
  tree_->clear();
  QList<QTreeWidgetItem*> items;
  if (model) {
    const auto& launches = model->launches();
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const auto& l = launches[i];
      auto* item = new QTreeWidgetItem(
          {QStringLiteral("%1 %2").arg(i).arg(QString::fromStdString(l.id)), QString::fromStdString(l.kernel),
           QString::fromStdString(l.tenant), QString::fromStdString(format_duration_ns(static_cast<double>(l.arrival))),
           l.finish < 0 ? (l.killed ? tr("killed") : tr("none"))
                        : QString::fromStdString(format_duration_ns(static_cast<double>(l.finish))),
           QString::number(l.blocks)});
      item->setIcon(0, swatch(launch_rgb(static_cast<int>(i))));
      item->setData(0, Qt::UserRole, static_cast<int>(i));
      items.push_back(item);
    }
  }
  tree_->addTopLevelItems(items);
  updating_ = false;
}

void LaunchLegend::setSelectedLaunch(int launch) {
  updating_ = true;
  if (launch >= 0 && launch < tree_->topLevelItemCount()) {
    tree_->setCurrentItem(tree_->topLevelItem(launch));
    tree_->scrollToItem(tree_->topLevelItem(launch));
  } else {
    tree_->setCurrentItem(nullptr);
    tree_->clearSelection();
  }
  updating_ = false;
}

}  // namespace gpusched::gui
