// The main window on a test store: the browser's groups, a run's timeline, the comparison's charts and table,
// distributions, two stacked timelines, export to PNG and SVG, remembered layout, and the errors a user sees
// for a foreign or missing store.
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QFile>
#include <QImage>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "core/store/store.h"
#include "gui/main_window.h"
#include "gui/model/sim_job.h"

using namespace gpusched;
using namespace gpusched::gui;

namespace {
const QString kSmall = QStringLiteral(GPUSCHED_TEST_DATA "/small/small.toml");

std::vector<std::int64_t> simulate(const QString& db, const std::vector<std::string>& policies,
                                   const std::string& gpu = "") {
  SimJobRequest r;
  r.workload_file = kSmall.toStdString();
  r.gpu = gpu;
  r.policies = policies;
  r.db_path = db.toStdString();
  return run_sim_job(r, [](const SimJobProgress&) { return true; }).run_ids;
}
}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
    QSettings().clear();
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath(QStringLiteral("test.db"));
    QCOMPARE(simulate(db_, {"fifo", "srtf", "serial"}).size(), std::size_t{3});
    QCOMPARE(simulate(db_, {"fifo", "srtf"}, "h100").size(), std::size_t{2});  // a second group: another GPU
  }

  void loads_store_into_browser() {
    MainWindow w;
    w.setShowErrorDialogs(false);
    QVERIFY(w.openStore(db_));
    QCOMPARE(w.browser()->runs().size(), std::size_t{5});
    auto* tree = w.browser()->tree();
    QCOMPARE(tree->topLevelItemCount(), 1);  // one workload
    QVERIFY(tree->topLevelItem(0)->text(0).startsWith(QStringLiteral("small  (5 runs)")));
    QCOMPARE(tree->topLevelItem(0)->childCount(), 2);  // two GPUs: two comparison groups
    QCOMPARE(tree->topLevelItem(0)->child(0)->childCount(), 3);
    QCOMPARE(tree->topLevelItem(0)->child(0)->child(1)->text(0), QStringLiteral("srtf"));
    // Filters: one policy, one GPU, free text, a mode no run has.
    w.browser()->setFilter({"", "srtf", "", ""});
    QCOMPARE(w.browser()->filteredRuns().size(), std::size_t{2});
    QCOMPARE(tree->topLevelItem(0)->childCount(), 2);
    w.browser()->setFilter({"", "", "h100", ""});  // the GPU named exactly (the other is "h100-4sm")
    QCOMPARE(w.browser()->filteredRuns().size(), std::size_t{2});
    QCOMPARE(tree->topLevelItem(0)->childCount(), 1);
    w.browser()->setFilter({"", "", "", "SERIAL"});  // free text, any case
    QCOMPARE(w.browser()->filteredRuns().size(), std::size_t{1});
    w.browser()->setFilter({"live", "", "", ""});
    QCOMPARE(tree->topLevelItemCount(), 0);
    w.browser()->setFilter({});
    QVERIFY(w.recentFiles().contains(QFileInfo(db_).absoluteFilePath()));
  }

  void shows_a_runs_timeline_and_selection() {
    MainWindow w;
    w.setShowErrorDialogs(false);
    QVERIFY(w.openStore(db_));
    const auto db = store::Store::open(db_.toStdString(), store::Store::Mode::ReadOnly);
    const auto record = db.load_run(2);
    // Through the browser: the run loads in the background and then shows.
    QSignalSpy shown(&w, &MainWindow::runShown);
    QVERIFY(w.browser()->selectRun(2));
    QVERIFY(shown.wait(10000));
    QCOMPARE(w.shownRun(), std::int64_t{2});
    QCOMPARE(w.timeline()->model()->piece_count(), static_cast<std::int64_t>(record.schedule.pieces.size()));
    QCOMPARE(w.timeline()->model()->launches().size(), record.launches.size());
    QCOMPARE(w.legend()->rowCount(), static_cast<int>(record.launches.size()));
    // gpu4.toml is not a preset: lanes come from the SMs used (4).
    QCOMPARE(w.timeline()->model()->lanes().size(), std::size_t{4});
    // Selecting in the timeline selects in the legend and back.
    w.timeline()->setSelectedLaunch(1);
    w.legend()->setSelectedLaunch(2);
    QCOMPARE(w.timeline()->selectedLaunch(), 1);  // setting the legend programmatically does not echo
    // The H100 run has a lane for each of the preset's 132 SMs.
    QVERIFY(w.showRun(4));
    QCOMPARE(w.timeline()->model()->lanes().size(), std::size_t{132});
    // An unknown run: a message, no crash.
    QVERIFY(!w.showRun(999));
    QVERIFY(w.lastError().contains(QStringLiteral("999")));
  }

  void compares_policies() {
    MainWindow w;
    w.setShowErrorDialogs(false);
    QVERIFY(w.openStore(db_));
    QVERIFY(w.browser()->selectRun(1));
    auto* table = w.comparison()->table();
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->item(1, 0)->text(), QStringLiteral("srtf"));
    const auto db = store::Store::open(db_.toStdString(), store::Store::Mode::ReadOnly);
    const auto srtf = db.run_summary(2);
    QCOMPARE(table->item(1, 1)->data(Qt::UserRole).toDouble(), srtf->metrics.stp);
    // The STP chart's bars hold the same values.
    auto* series = qobject_cast<QAbstractBarSeries*>(w.comparison()->chart(0)->series().at(0));
    QVERIFY(series);
    QCOMPARE(series->barSets().at(0)->count(), 3);
    QCOMPARE(series->barSets().at(0)->at(1), srtf->metrics.stp);  // the middle of three, either way up
    // Distributions over every filtered run: one box per policy (fifo, srtf, serial), fifo from two runs.
    auto* all = w.findChild<QRadioButton*>();
    QVERIFY(all);
    const auto radios = w.findChildren<QRadioButton*>();
    radios.at(1)->setChecked(true);
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("fifo"));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("2"));
    auto* boxes = qobject_cast<QBoxPlotSeries*>(w.comparison()->chart(0)->series().at(0));
    QVERIFY(boxes);
    QCOMPARE(boxes->count(), 3);
  }

  void two_timelines_share_an_axis() {
    MainWindow w;
    w.setShowErrorDialogs(false);
    QVERIFY(w.openStore(db_));
    auto* c = w.compareTimelines();
    c->showPair(1, 2);
    QVERIFY(c->top()->model()->piece_count() > 0);
    QVERIFY(c->bottom()->model()->piece_count() > 0);
    QCOMPARE(c->top()->timeMapping().begin(), c->bottom()->timeMapping().begin());
    c->top()->zoomBy(3);
    QCOMPARE(c->bottom()->timeMapping().begin(), c->top()->timeMapping().begin());
    QCOMPARE(c->bottom()->timeMapping().end(), c->top()->timeMapping().end());
  }

  void live_run_beside_its_prediction() {
    // A live run linked to the run that predicted it (here a copy of run 1 stored as live): selecting it puts
    // the prediction on top and the measurement below, on one axis, with one selection.
    const QString db = dir_.filePath(QStringLiteral("validation.db"));
    QFile::copy(db_, db);
    std::int64_t live = 0;
    {
      auto s = store::Store::open(db.toStdString());
      auto record = s.load_run(1);
      record.info.mode = "live";
      record.info.key = store::make_run_key(record.info, "test host, now");
      live = s.write_run(record);
      s.link_validation(live, 1);
    }
    MainWindow w;
    w.setShowErrorDialogs(false);
    QVERIFY(w.openStore(db));
    QVERIFY(w.browser()->selectRun(live));
    auto* c = w.compareTimelines();
    QVERIFY(c->top()->view().title.startsWith(QStringLiteral("#1 ")));
    QVERIFY(c->bottom()->view().title.startsWith(QStringLiteral("#%1 ").arg(live)));
    QVERIFY(c->bottom()->view().title.contains(QStringLiteral("live")));
    c->top()->setSelectedLaunch(2);
    QCOMPARE(c->bottom()->selectedLaunch(), 2);
  }

  void exports_png_and_svg() {
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openStore(db_));
    QVERIFY(w.showRun(1));
    const QString png = dir_.filePath(QStringLiteral("view.png")), svg = dir_.filePath(QStringLiteral("view.svg"));
    QVERIFY(w.exportView(png));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), w.tabs()->currentWidget()->size());
    QVERIFY(w.exportView(svg));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("SM 0"));  // lane labels are drawn as text, not pixels
    QVERIFY(!w.exportView(dir_.filePath(QStringLiteral("no/such/dir/view.png"))));
  }

  void remembers_layout() {
    {
      MainWindow w;
      w.resize(1000, 700);
      w.tabs()->setCurrentIndex(2);
      w.close();
    }
    MainWindow again;
    QCOMPARE(again.tabs()->currentIndex(), 2);
    QCOMPARE(again.size(), QSize(1000, 700));
  }

  void reports_bad_stores() {
    MainWindow w;
    w.setShowErrorDialogs(false);
    const QString foreign = dir_.filePath(QStringLiteral("notes.db"));
    QFile f(foreign);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("these are not the runs you are looking for\n");
    f.close();
    QVERIFY(!w.openStore(foreign));
    QVERIFY2(w.lastError().contains(QStringLiteral("notes.db")), qPrintable(w.lastError()));
    QVERIFY(!w.openStore(dir_.filePath(QStringLiteral("missing.db"))));
    QVERIFY(w.lastError().contains(QStringLiteral("missing.db")));
    QVERIFY(w.storePath().isEmpty());  // nothing was opened
  }
};

QTEST_MAIN(MainWindowTest)
#include "tst_main_window.moc"
