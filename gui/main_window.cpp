#include "gui/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QThread>
#include <QVBoxLayout>
#include <stdexcept>

#include "gui/model/run_timeline.h"
#include "gui/run_dialog.h"

namespace gpusched::gui {

namespace {
constexpr int kMaxRecent = 8;
constexpr std::size_t kCachedRuns = 4;
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      splitter_(new QSplitter(Qt::Horizontal, this)),
      timeline_splitter_(new QSplitter(Qt::Horizontal, this)),
      browser_(new RunBrowser(this)),
      tabs_(new QTabWidget(this)),
      timeline_(new TimelineWidget(this)),
      legend_(new LaunchLegend(this)),
      comparison_(new ComparisonView(this)),
      compare_group_(new QRadioButton(tr("current workload's policies"), this)),
      compare_all_(new QRadioButton(tr("distributions over all filtered runs (sweeps)"), this)),
      compare_(new CompareTimelines([this](std::int64_t id) { return loadModel(id); }, this)),
      validation_(new ValidationView(
          [this](std::int64_t id) {
            if (!store_) throw std::runtime_error("no store is open");
            return store_->load_run(id);
          },
          this)),
      status_(new QLabel(this)) {
  setWindowTitle(tr("gpusched"));
  splitter_->setObjectName(QStringLiteral("mainSplitter"));
  timeline_splitter_->setObjectName(QStringLiteral("timelineSplitter"));
  timeline_splitter_->addWidget(timeline_);
  timeline_splitter_->addWidget(legend_);
  timeline_splitter_->setStretchFactor(0, 4);
  timeline_splitter_->setStretchFactor(1, 1);
  tabs_->addTab(timeline_splitter_, tr("Timeline"));
  auto* compare_page = new QWidget(this);
  auto* compare_layout = new QVBoxLayout(compare_page);
  auto* mode_row = new QHBoxLayout;
  mode_row->addWidget(compare_group_);
  mode_row->addWidget(compare_all_);
  mode_row->addStretch();
  compare_group_->setChecked(true);
  compare_layout->addLayout(mode_row);
  compare_layout->addWidget(comparison_, 1);
  tabs_->addTab(compare_page, tr("Compare policies"));
  tabs_->addTab(compare_, tr("Two timelines"));
  tabs_->addTab(validation_, tr("Validation"));
  splitter_->addWidget(browser_);
  splitter_->addWidget(tabs_);
  splitter_->setStretchFactor(0, 1);
  splitter_->setStretchFactor(1, 3);
  setCentralWidget(splitter_);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(new QLabel(
      tr("wheel: zoom · drag: pan · right-drag: box zoom · double-click: fit · click: select launch"), this));
  buildMenus();

  connect(browser_, &RunBrowser::runActivated, this, [this](qint64 id) {
    showRunAsync(id);
    // A live run that a simulation predicted: put the prediction above it in "Two timelines".
    if (const auto it = predicted_by_.find(id); it != predicted_by_.end()) compare_->showPair(it->second, id);
  });
  connect(browser_, &RunBrowser::groupChanged, this, &MainWindow::updateComparison);
  connect(browser_, &RunBrowser::selectionChanged, this, [this] {
    const auto ids = browser_->selectedRunIds();
    if (ids.size() == 2) compare_->showPair(ids[0], ids[1]);
  });
  connect(compare_group_, &QRadioButton::toggled, this, &MainWindow::updateComparison);
  connect(timeline_, &TimelineWidget::launchSelected, legend_, &LaunchLegend::setSelectedLaunch);
  connect(legend_, &LaunchLegend::launchSelected, timeline_, &TimelineWidget::setSelectedLaunch);

  QSettings settings;
  resize(1400, 860);
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  splitter_->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
  timeline_splitter_->restoreState(settings.value(QStringLiteral("window/timelineSplitter")).toByteArray());
  tabs_->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
  first_layout_ = !settings.contains(QStringLiteral("window/mainSplitter"));
  updateRecentMenu();
  status_->setText(tr("Open a result store (File > Open) or run simulations (File > Run simulations)."));
}

MainWindow::~MainWindow() = default;

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (!first_layout_) return;
  // No remembered layout: give the browser and the legend room for their columns (in pixels, now that the
  // window has its size).
  first_layout_ = false;
  const int w = splitter_->width();
  splitter_->setSizes({std::min(440, w / 3), w - std::min(440, w / 3)});
  const int t = timeline_splitter_->width();
  timeline_splitter_->setSizes({t - std::min(300, t / 4), std::min(300, t / 4)});
}

void MainWindow::closeEvent(QCloseEvent* e) {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("window/mainSplitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("window/timelineSplitter"), timeline_splitter_->saveState());
  settings.setValue(QStringLiteral("window/tab"), tabs_->currentIndex());
  QMainWindow::closeEvent(e);
}

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open store..."), QKeySequence::Open, this, &MainWindow::openDialog);
  file->addAction(tr("&New store..."), QKeySequence::New, this, &MainWindow::newStoreDialog);
  recent_menu_ = file->addMenu(tr("Open &recent"));
  file->addAction(tr("&Reload"), QKeySequence::Refresh, this, &MainWindow::reload);
  file->addSeparator();
  file->addAction(tr("&Run simulations..."), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::runDialog);
  file->addAction(tr("&Export view as PNG or SVG..."), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                  &MainWindow::exportDialog);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  auto* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), timeline_, &TimelineWidget::fit);
  view->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, timeline_, [this] { timeline_->zoomBy(1.5); });
  view->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, timeline_, [this] { timeline_->zoomBy(1 / 1.5); });
  view->addAction(tr("Taller lanes"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Up), this,
                  [this] { timeline_->setLaneHeight(timeline_->laneHeight() + 2); });
  view->addAction(tr("Shorter lanes"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Down), this,
                  [this] { timeline_->setLaneHeight(timeline_->laneHeight() - 2); });
}

void MainWindow::error(const QString& title, const QString& message) {
  last_error_ = message;
  if (show_error_dialogs_) QMessageBox::critical(this, title, message);
}

bool MainWindow::openStore(const QString& path, bool create) {
  try {
    const bool exists = QFileInfo::exists(path);
    if (!exists && !create) throw std::runtime_error(path.toStdString() + ": no such file");
    auto opened =
        store::Store::open(path.toStdString(), exists ? store::Store::Mode::ReadOnly : store::Store::Mode::ReadWrite);
    store_.emplace(std::move(opened));
  } catch (const std::exception& e) {
    error(tr("Cannot open the store"), QString::fromStdString(e.what()));
    return false;
  }
  store_path_ = QFileInfo(path).absoluteFilePath();
  cache_.clear();
  shown_run_ = -1;
  timeline_->setModel(nullptr);
  legend_->setModel(nullptr);
  setWindowTitle(tr("gpusched - %1").arg(QFileInfo(path).fileName()));
  addRecent(store_path_);
  reload();
  return true;
}

void MainWindow::reload() {
  if (!store_) return;
  try {
    // A store opened read-only sees other writers' committed runs on the next query (WAL).
    browser_->setRuns(store_->list_runs());
    predicted_by_.clear();
    for (const auto& v : store_->validations()) predicted_by_[v.live_run] = v.predicted_run;
    validation_->setSummary(summarize_validations(*store_));
  } catch (const std::exception& e) {
    error(tr("Cannot read the store"), QString::fromStdString(e.what()));
    return;
  }
  // The browser's rebuild announced its group, which updated the comparison and the pickers.
  status_->setText(tr("%1: %2 runs").arg(store_path_).arg(browser_->runs().size()));
}

void MainWindow::remember(std::int64_t id, std::shared_ptr<const TimelineModel> model) {
  if (cache_.size() >= kCachedRuns) cache_.erase(cache_.begin());
  cache_[id] = std::move(model);
}

std::shared_ptr<const TimelineModel> MainWindow::loadModel(std::int64_t id) {
  if (auto it = cache_.find(id); it != cache_.end()) return it->second;
  if (!store_) return nullptr;
  try {
    auto model = std::make_shared<const TimelineModel>(timeline_from_record(store_->load_run(id)));
    remember(id, model);
    return model;
  } catch (const std::exception& e) {
    error(tr("Cannot load run %1").arg(id), QString::fromStdString(e.what()));
    return nullptr;
  }
}

bool MainWindow::showRun(std::int64_t id) {
  auto model = loadModel(id);
  if (!model) return false;
  const auto summary = store_->run_summary(id);
  setTimeline(id, model, summary ? QString::fromStdString(run_title(summary->info)) : QString());
  return true;
}

void MainWindow::showRunAsync(std::int64_t id) {
  if (auto it = cache_.find(id); it != cache_.end() || !store_) {
    showRun(id);
    return;
  }
  // Large runs take a moment to read and lay out: do it on a worker with its own connection, so that the
  // window keeps responding; only the last request shows.
  const int generation = ++load_generation_;
  const std::string path = store_path_.toStdString();
  status_->setText(tr("Loading run %1...").arg(id));
  QThread* worker = QThread::create([this, path, id, generation] {
    std::shared_ptr<const TimelineModel> model;
    QString title, failure;
    try {
      const auto db = store::Store::open(path, store::Store::Mode::ReadOnly);
      const auto record = db.load_run(id);
      title = QString::fromStdString(run_title(record.info));
      model = std::make_shared<const TimelineModel>(timeline_from_record(record));
    } catch (const std::exception& e) {
      failure = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this,
        [this, id, generation, model, title, failure] {
          if (generation != load_generation_) return;
          if (!model) {
            error(tr("Cannot load run %1").arg(id), failure);
            return;
          }
          remember(id, model);
          setTimeline(id, model, title);
        },
        Qt::QueuedConnection);
  });
  connect(worker, &QThread::finished, worker, &QObject::deleteLater);
  worker->start();
}

void MainWindow::setTimeline(std::int64_t id, std::shared_ptr<const TimelineModel> model, const QString& title) {
  shown_run_ = id;
  timeline_->setModel(model, title);
  legend_->setModel(model);
  status_->setText(tr("%1: %2 runs · run %3: %4 block pieces, %5 launches")
                       .arg(store_path_)
                       .arg(browser_->runs().size())
                       .arg(id)
                       .arg(model->piece_count())
                       .arg(model->launches().size()));
  Q_EMIT runShown(id);
}

void MainWindow::updateComparison() {
  const auto runs = browser_->filteredRuns();
  compare_->setRuns(runs);
  if (compare_all_->isChecked()) {
    comparison_->showDistributions(runs, tr("%1 runs passing the filters, per policy").arg(runs.size()));
    return;
  }
  const ComparisonGroup* group = browser_->currentGroup();
  if (!group) {
    comparison_->showGroup({}, tr("Select a workload's runs in the browser to compare its policies."));
    return;
  }
  comparison_->showGroup(group->runs, tr("Workload %1 on %2")
                                          .arg(QString::fromStdString(group->runs.front()->info.workload))
                                          .arg(QString::fromStdString(group->title())));
}

void MainWindow::openDialog() {
  QSettings settings;
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a result store"),
                                                    settings.value(QStringLiteral("lastDir")).toString(),
                                                    tr("gpusched stores (*.db *.sqlite);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
  openStore(path);
}

void MainWindow::newStoreDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("New result store"), QString(), tr("gpusched stores (*.db)"));
  if (!path.isEmpty()) openStore(path, true);
}

void MainWindow::runDialog() {
  if (!store_) {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Store the runs in"), QStringLiteral("runs.db"),
                                     tr("gpusched stores (*.db)"), nullptr, QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty() || !openStore(path, true)) return;
  }
  auto* dialog = new RunDialog(store_path_, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  // Once the job ends (stored, failed or cancelled) the list is read again, once, and the first stored run shown.
  auto first_stored = std::make_shared<qint64>(-1);
  connect(dialog, &RunDialog::runsStored, this, [first_stored](const QList<qint64>& ids) {
    if (!ids.isEmpty()) *first_stored = ids.front();
  });
  connect(dialog, &RunDialog::jobFinished, this, [this, first_stored](bool, const QString&) {
    reload();
    if (*first_stored >= 0) browser_->selectRun(*first_stored);
    *first_stored = -1;
  });
  dialog->show();
}

bool MainWindow::exportView(const QString& path) {
  QWidget* page = tabs_->currentWidget();
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(page->size());
    svg.setViewBox(QRect(QPoint(0, 0), page->size()));
    svg.setTitle(windowTitle());
    svg.setDescription(tr("gpusched view"));
    QPainter p;
    if (!p.begin(&svg)) {
      error(tr("Export failed"), tr("%1: cannot write").arg(path));
      return false;
    }
    page->render(&p);
    p.end();
    return true;
  }
  if (!page->grab().save(path, "PNG")) {
    error(tr("Export failed"), tr("%1: cannot write a PNG there").arg(path));
    return false;
  }
  return true;
}

void MainWindow::exportDialog() {
  QString selected;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export the view"), QStringLiteral("view.png"),
                                                    tr("PNG image (*.png);;SVG drawing (*.svg)"), &selected);
  if (path.isEmpty()) return;
  QString file = path;
  if (!file.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive) &&
      !file.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive))
    file += selected.contains(QStringLiteral("svg")) ? QStringLiteral(".svg") : QStringLiteral(".png");
  if (exportView(file)) status_->setText(tr("Exported %1").arg(file));
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecent(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue(QStringLiteral("recentFiles"), files);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  if (!recent_menu_) return;
  recent_menu_->clear();
  const auto files = recentFiles();
  for (const auto& f : files) recent_menu_->addAction(f, this, [this, f] { openStore(f); });
  recent_menu_->setEnabled(!files.isEmpty());
}

}  // namespace gpusched::gui
