// The Validation view on a store of hand-made validations: per-launch and makespan errors computed by hand,
// their spread per policy, the picked validation's scatter and block-time CDFs with the KS statistic, and the
// view as the main window shows it.
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "core/store/store.h"
#include "gui/main_window.h"
#include "gui/model/validation_summary.h"
#include "gui/validation_view.h"

using namespace gpusched;
using namespace gpusched::gui;

namespace {
constexpr TimeNs kUs = 1000;

// A run of four launches with the given turnarounds (us) and makespan (us), and one piece per launch of the
// given durations (us).
store::RunRecord make_run(const std::string& mode, const std::string& policy, const std::string& unique,
                          const std::vector<TimeNs>& turnarounds_us, TimeNs makespan_us,
                          const std::vector<TimeNs>& piece_us) {
  store::RunRecord r;
  r.info.mode = mode;
  r.info.workload = "four";
  r.info.workload_hash = "hash-of-four";
  r.info.policy = policy;
  r.info.gpu = "h100";
  r.info.gpu_hash = "hash-of-h100";
  r.info.interference = "none";
  r.info.started_at = r.info.finished_at = "2026-11-24T00:00:00Z";
  r.info.blocks_kept = true;
  r.info.key = store::make_run_key(r.info, unique);
  for (std::size_t i = 0; i < turnarounds_us.size(); ++i) {
    store::LaunchRow l;
    l.index = static_cast<int>(i);
    l.id = "k" + std::to_string(i);
    l.kernel = "k";
    l.outcome.turnaround = turnarounds_us[i] * kUs;
    l.outcome.finish = l.outcome.turnaround;
    l.outcome.first_dispatch = 0;
    l.outcome.alone = l.outcome.turnaround;
    l.outcome.slowdown = 1;
    l.outcome.blocks = 1;
    r.launches.push_back(l);
  }
  r.info.launch_count = static_cast<int>(r.launches.size());
  r.metrics.makespan = makespan_us * kUs;
  TimeNs t = 0;
  for (std::size_t i = 0; i < piece_us.size(); ++i) {
    r.schedule.pieces.push_back(BlockPiece{t, t + piece_us[i] * kUs, static_cast<std::int32_t>(i), 0, 0, 0});
    t += piece_us[i] * kUs;
  }
  r.info.piece_count = static_cast<std::int64_t>(r.schedule.pieces.size());
  return r;
}

void add_validation(store::Store& s, const store::RunRecord& predicted, const store::RunRecord& live) {
  const auto p = s.write_run(predicted);
  s.write_run(live, nullptr, {}, p);
}
}  // namespace

class ValidationViewTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath(QStringLiteral("validations.db"));
    auto s = store::Store::open(db_.toStdString());
    // fifo, first validation. Errors |m - p| / m: 10/110 = 9.09 %, 20/180 = 11.11 %, 0/300 = 0 %, 100/500 = 20 %.
    // Sorted 0, 9.09, 11.11, 20: median by nearest rank = the ceil(0.5 * 4) = 2nd = 9.09 %, p90 = the
    // ceil(0.9 * 4) = 4th = 20 %. Makespan 500 predicted, 550 measured: |50| / 550 = 9.09 %, signed -9.09 %.
    add_validation(s, make_run("sim", "fifo", "", {100, 200, 300, 400}, 500, {10, 20, 30, 40}),
                   make_run("live", "fifo", "a", {110, 180, 300, 500}, 550, {10, 20, 30, 50}));
    // fifo, second: exact (every error 0).
    add_validation(s, make_run("sim", "fifo", "", {100, 200, 300, 400}, 500, {10, 20, 30, 40}),
                   make_run("live", "fifo", "b", {100, 200, 300, 400}, 500, {10, 20, 30, 40}));
    // srtf: measured twice the prediction everywhere: every error |2p - p| / 2p = 50 %.
    add_validation(s, make_run("sim", "srtf", "", {100, 200, 300, 400}, 500, {10, 20, 30, 40}),
                   make_run("live", "srtf", "c", {200, 400, 600, 800}, 1000, {20, 40, 60, 80}));
  }

  void errors_by_hand() {
    const auto s = store::Store::open(db_.toStdString(), store::Store::Mode::ReadOnly);
    const auto summary = summarize_validations(s);
    QCOMPARE(summary.entries.size(), std::size_t{3});
    const auto& e = summary.entries[0];
    QCOMPARE(e.policy, std::string("fifo"));
    QCOMPARE(e.launches, std::size_t{4});
    QVERIFY(std::abs(e.turnaround_median_pct - 100.0 * 10 / 110) < 1e-9);
    QVERIFY(std::abs(e.turnaround_p90_pct - 20.0) < 1e-9);
    QVERIFY(std::abs(e.turnaround_max_pct - 20.0) < 1e-9);
    QVERIFY(std::abs(e.makespan_pct - 100.0 * 50 / 550) < 1e-9);
    QVERIFY(std::abs(e.makespan_signed_pct + 100.0 * 50 / 550) < 1e-9);
    QCOMPARE(summary.entries[1].turnaround_p90_pct, 0.0);
    QVERIFY(std::abs(summary.entries[2].turnaround_median_pct - 50.0) < 1e-9);

    // Per policy: fifo's two validations have medians {9.09, 0}: median by nearest rank the 1st = 0, range
    // 0-9.09; p90s {20, 0}: 0 (0-20). srtf: one validation, 50 % throughout.
    QCOMPARE(summary.policies.size(), std::size_t{2});
    const auto& fifo = summary.policies[0];
    QCOMPARE(fifo.policy, std::string("fifo"));
    QCOMPARE(fifo.validations, std::size_t{2});
    QCOMPARE(fifo.turnaround_median_pct.median, 0.0);
    QVERIFY(std::abs(fifo.turnaround_median_pct.max - 100.0 * 10 / 110) < 1e-9);
    QCOMPARE(fifo.turnaround_p90_pct.max, 20.0);
    QCOMPARE(summary.policies[1].policy, std::string("srtf"));
    QVERIFY(std::abs(summary.policies[1].makespan_pct.median - 50.0) < 1e-9);
  }

  void detail_and_cdf() {
    const auto s = store::Store::open(db_.toStdString(), store::Store::Mode::ReadOnly);
    const auto v = s.validations();
    const auto d = validation_detail(s.load_run(v[0].predicted_run), s.load_run(v[0].live_run), "");
    QVERIFY(!d.raw_equivalent);  // no workload file: the stored times
    QCOMPARE(d.turnarounds.size(), std::size_t{4});
    QCOMPARE(d.turnarounds[3].first, 400.0 * kUs);
    QCOMPARE(d.turnarounds[3].second, 500.0 * kUs);
    // Pieces 10, 20, 30, 40 us predicted and 10, 20, 30, 50 measured: at 40 us the predicted CDF is 1 and the
    // measured 0.75, nowhere further apart: KS 0.25.
    QVERIFY(d.block_time_ks.has_value());
    QCOMPARE(*d.block_time_ks, 0.25);
    QCOMPARE(d.measured_block_times.back(), 50.0 * kUs);

    // Five values drawn as three steps: ranks 1, 1 + 1 * 4 / 2 = 3 and 5, at F = 1/5, 3/5, 5/5.
    const auto pts = cdf_points({1, 2, 3, 4, 5}, 3);
    QCOMPARE(pts.size(), std::size_t{3});
    QCOMPARE(pts[0], std::make_pair(1.0, 0.2));
    QCOMPARE(pts[1], std::make_pair(3.0, 0.6));
    QCOMPARE(pts[2], std::make_pair(5.0, 1.0));
    QCOMPARE(cdf_points({7}, 400).size(), std::size_t{1});
    QVERIFY(cdf_points({}, 400).empty());
  }

  void view_shows_policies_and_a_pair() {
    auto s = store::Store::open(db_.toStdString(), store::Store::Mode::ReadOnly);
    ValidationView view([&s](std::int64_t id) { return s.load_run(id); });
    view.setSummary(summarize_validations(s));
    QCOMPARE(view.table()->rowCount(), 2);
    QCOMPARE(view.table()->item(0, 0)->text(), QStringLiteral("fifo"));
    QCOMPARE(view.table()->item(0, 2)->text(), QStringLiteral("0.0 (0.0-9.1)"));
    QCOMPARE(view.table()->item(1, 4)->text(), QStringLiteral("50.0"));
    QCOMPARE(view.picker()->count(), 3);
    // The error bars: one box per policy, its whiskers at the smallest and largest validation.
    auto* box = qobject_cast<QBoxPlotSeries*>(view.errorChart(1)->series().at(0));
    QVERIFY(box);
    QCOMPARE(box->count(), 2);
    QCOMPARE(box->boxSets().at(0)->at(QBoxSet::UpperExtreme), 20.0);
    QCOMPARE(box->boxSets().at(0)->at(QBoxSet::Median), 0.0);
    // The first validation is shown: four points, the diagonal, and two CDFs with KS 0.250 in the title.
    QVERIFY(view.detail().has_value());
    auto* points = qobject_cast<QScatterSeries*>(view.scatterChart()->series().at(1));
    QVERIFY(points);
    QCOMPARE(points->count(), 4);
    QCOMPARE(points->at(3), QPointF(400, 500));
    QVERIFY(view.cdfChart()->title().contains(QStringLiteral("KS 0.250")));
    QCOMPARE(view.cdfChart()->series().size(), 2);
    // A policy's row picks its first validation.
    view.table()->setCurrentCell(1, 0);
    QCOMPARE(view.picker()->currentIndex(), 2);
    // srtf's pieces: predicted 10, 20, 30, 40 us, measured 20, 40, 60, 80: at 30 and 40 us the CDFs are
    // 0.75 against 0.25 and 1 against 0.5: KS 0.5.
    QCOMPARE(*view.detail()->block_time_ks, 0.5);
    auto* srtf_points = qobject_cast<QScatterSeries*>(view.scatterChart()->series().at(1));
    QCOMPARE(srtf_points->at(0), QPointF(100, 200));
    QVERIFY(!view.showValidation(3));
  }

  void main_window_has_the_view() {
    MainWindow w;
    w.setShowErrorDialogs(false);
    QVERIFY(w.openStore(db_));
    QCOMPARE(w.validation()->summary().entries.size(), std::size_t{3});
    QCOMPARE(w.tabs()->tabText(w.tabs()->indexOf(w.validation())), QStringLiteral("Validation"));
    w.resize(1400, 900);
    w.tabs()->setCurrentWidget(w.validation());
    const QString png = dir_.filePath(QStringLiteral("validation.png"));
    QVERIFY(w.exportView(png));
    QVERIFY(QImage(png).width() > 100);
  }

  void store_without_validations() {
    ValidationView view([](std::int64_t) -> store::RunRecord { throw std::runtime_error("none"); });
    view.setSummary({});
    QCOMPARE(view.table()->rowCount(), 0);
    QCOMPARE(view.picker()->count(), 0);
    QVERIFY(!view.detail().has_value());
  }

  void unreadable_runs_are_reported() {
    auto s = store::Store::open(db_.toStdString(), store::Store::Mode::ReadOnly);
    ValidationView view([](std::int64_t id) -> store::RunRecord {
      throw std::invalid_argument("run " + std::to_string(id) + " is gone");
    });
    view.setSummary(summarize_validations(s));  // the summary reads launches; the pair's blocks fail to load
    QVERIFY(!view.detail().has_value());
    QVERIFY(!view.showValidation(0));
  }
};

QTEST_MAIN(ValidationViewTest)
#include "tst_validation_view.moc"
