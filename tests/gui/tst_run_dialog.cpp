// Running simulations from the GUI: the dialog on a small workload (worker thread, progress, stored runs), a bad
// workload file and a locked store reported with the reader's message, and cancelling between policies.
#include <sqlite3.h>

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "core/store/store.h"
#include "gui/model/sim_job.h"
#include "gui/run_dialog.h"

using namespace gpusched;
using namespace gpusched::gui;

class RunDialogTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void runs_and_stores() {
    const QString db = dir_.filePath(QStringLiteral("dialog.db"));
    RunDialog dialog(db);
    dialog.setShowErrorDialogs(false);
    dialog.setWorkloadFile(QStringLiteral(GPUSCHED_TEST_DATA "/small/small.toml"));
    dialog.setPolicies({QStringLiteral("fifo"), QStringLiteral("srtf")});
    QSignalSpy finished(&dialog, &RunDialog::jobFinished);
    QSignalSpy stored(&dialog, &RunDialog::runsStored);
    dialog.start();
    QVERIFY(dialog.running());
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
    QCOMPARE(stored.count(), 1);
    QCOMPARE(stored.at(0).at(0).value<QList<qint64>>().size(), 2);
    QCOMPARE(dialog.progressBar()->value(), 1000);
    QVERIFY(!dialog.running());
    const auto s = store::Store::open(db.toStdString(), store::Store::Mode::ReadOnly);
    QCOMPARE(s.run_count(), std::int64_t{2});
    QVERIFY(!s.schedule(1).pieces.empty());  // blocks kept for the timeline
  }

  void auto_interference_is_resolved_before_the_run_is_stored() {
    // The dialog's default, as on the command line: equivalent for recorded kernels whose profiles have fitted
    // weights (the sjf pair: mriq and histogram recorded on an H100), stored under that name.
    const QString db = dir_.filePath(QStringLiteral("auto.db"));
    RunDialog dialog(db);
    dialog.setShowErrorDialogs(false);
    dialog.setWorkloadFile(QStringLiteral(GPUSCHED_TEST_DATA "/../../traces/workloads/sjf-pair-h100.toml"));
    dialog.setPolicies({QStringLiteral("fifo")});
    if (const QByteArray shot = qgetenv("GPUSCHED_SCREENSHOT"); !shot.isEmpty()) {
      dialog.show();
      QTest::qWait(50);
      dialog.grab().save(QString::fromLocal8Bit(shot));
    }
    QSignalSpy finished(&dialog, &RunDialog::jobFinished);
    dialog.start();
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
    const auto s = store::Store::open(db.toStdString(), store::Store::Mode::ReadOnly);
    const auto runs = s.list_runs();
    QCOMPARE(runs.size(), std::size_t{1});
    // Stored with its parameters resolved: "equivalent(unfitted=1)".
    QVERIFY2(QString::fromStdString(runs.front().info.interference).startsWith(QStringLiteral("equivalent(")),
             runs.front().info.interference.c_str());
  }

  void bad_workload_shows_the_readers_message() {
    RunDialog dialog(dir_.filePath(QStringLiteral("bad.db")));
    dialog.setShowErrorDialogs(false);
    dialog.setWorkloadFile(QStringLiteral(GPUSCHED_TEST_DATA "/bad/negative-arrival.toml"));
    dialog.setPolicies({QStringLiteral("fifo")});
    QSignalSpy finished(&dialog, &RunDialog::jobFinished);
    dialog.start();
    QVERIFY(finished.wait(30000));
    QVERIFY(!finished.at(0).at(0).toBool());
    // File, line, column and field, as the command line says it.
    QVERIFY2(dialog.lastError().contains(QStringLiteral("negative-arrival.toml:17:14")) &&
                 dialog.lastError().contains(QStringLiteral("launch[1].arrival_ns")),
             qPrintable(dialog.lastError()));
    dialog.setWorkloadFile(QString());
    dialog.start();
    QCOMPARE(dialog.lastError(), QStringLiteral("Choose a workload file."));
  }

  void foreign_and_locked_stores() {
    // A file that is not a store.
    const QString foreign = dir_.filePath(QStringLiteral("foreign.db"));
    {
      QFile f(foreign);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("plain text");
    }
    RunDialog dialog(foreign);
    dialog.setShowErrorDialogs(false);
    dialog.setWorkloadFile(QStringLiteral(GPUSCHED_TEST_DATA "/small/small.toml"));
    dialog.setPolicies({QStringLiteral("fifo")});
    QSignalSpy finished(&dialog, &RunDialog::jobFinished);
    dialog.start();
    QVERIFY(finished.wait(30000));
    QVERIFY2(dialog.lastError().contains(QStringLiteral("foreign.db")), qPrintable(dialog.lastError()));

    // A store another process holds a write lock on: reported after the busy timeout, nothing stored.
    const std::string locked = dir_.filePath(QStringLiteral("locked.db")).toStdString();
    store::Store::open(locked);  // create it
    sqlite3* other = nullptr;
    QCOMPARE(sqlite3_open(locked.c_str(), &other), SQLITE_OK);
    QCOMPARE(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    SimJobRequest r;
    r.workload_file = GPUSCHED_TEST_DATA "/small/small.toml";
    r.policies = {"fifo"};
    r.db_path = locked;
    r.busy_timeout_ms = 200;
    QString message;
    try {
      run_sim_job(r, [](const SimJobProgress&) { return true; });
    } catch (const std::exception& e) {
      message = QString::fromStdString(e.what());
    }
    sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(other);
    QVERIFY2(message.contains(QStringLiteral("locked")), qPrintable(message));
    QCOMPARE(store::Store::open(locked, store::Store::Mode::ReadOnly).run_count(), std::int64_t{0});
  }

  void cancelling_keeps_finished_runs() {
    // Cancel when the second policy starts: the first run is stored whole, the second not at all.
    const std::string db = dir_.filePath(QStringLiteral("cancel.db")).toStdString();
    SimJobRequest r;
    r.workload_file = GPUSCHED_TEST_DATA "/small/small.toml";
    r.policies = {"fifo", "srtf", "sjf"};
    r.db_path = db;
    bool cancelled = false;
    try {
      run_sim_job(r, [](const SimJobProgress& p) { return p.policy_index < 1; });
    } catch (const SimJobCancelled&) {
      cancelled = true;
    }
    QVERIFY(cancelled);
    const auto s = store::Store::open(db, store::Store::Mode::ReadOnly);
    QCOMPARE(s.run_count(), std::int64_t{1});
    QCOMPARE(s.list_runs().at(0).info.policy, std::string("fifo"));
  }
};

QTEST_MAIN(RunDialogTest)
#include "tst_run_dialog.moc"
