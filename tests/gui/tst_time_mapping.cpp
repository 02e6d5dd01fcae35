// The time-to-pixel mapping, zoom, pan and axis ticks, as data-driven QtTest cases (DESIGN: KDAB hotspot).
#include <QTest>

#include "gui/model/time_mapping.h"

using gpusched::gui::TimeMapping;

class TimeMappingTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void to_x_data() {
    QTest::addColumn<double>("begin");
    QTest::addColumn<double>("end");
    QTest::addColumn<double>("width");
    QTest::addColumn<double>("t");
    QTest::addColumn<double>("x");
    // x = (t - begin) * width / (end - begin)
    QTest::newRow("left edge") << 0.0 << 1000.0 << 500.0 << 0.0 << 0.0;
    QTest::newRow("right edge") << 0.0 << 1000.0 << 500.0 << 1000.0 << 500.0;
    QTest::newRow("middle") << 0.0 << 1000.0 << 500.0 << 500.0 << 250.0;
    QTest::newRow("offset begin") << 2000.0 << 4000.0 << 1000.0 << 2500.0 << 250.0;  // 500 * 1000 / 2000
    QTest::newRow("left of view") << 2000.0 << 4000.0 << 1000.0 << 1000.0 << -500.0;
    QTest::newRow("ms range") << 0.0 << 35e6 << 700.0 << 7e6 << 140.0;  // 7 ms of 35 ms on 700 px
    QTest::newRow("1 ns per px") << 100.0 << 1100.0 << 1000.0 << 101.0 << 1.0;
  }
  void to_x() {
    QFETCH(double, begin);
    QFETCH(double, end);
    QFETCH(double, width);
    QFETCH(double, t);
    QFETCH(double, x);
    const TimeMapping m(begin, end, width);
    QCOMPARE(m.to_x(t), x);
    QCOMPARE(m.to_time(x), t);  // and back
  }

  void zoom_keeps_anchor_data() {
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("factor");
    QTest::addColumn<double>("begin");
    QTest::addColumn<double>("end");
    // View [0, 1000] ns on 1000 px; the time under x stays under x.
    QTest::newRow("2x at left") << 0.0 << 2.0 << 0.0 << 500.0;
    QTest::newRow("2x at middle") << 500.0 << 2.0 << 250.0 << 750.0;
    QTest::newRow("4x at 800 px") << 800.0 << 4.0 << 600.0 << 850.0;  // 800 - 0.8 * 250
    QTest::newRow("zoom out is capped at the limits") << 500.0 << 0.5 << 0.0 << 1000.0;
    QTest::newRow("zoom in is capped at 10 ns") << 500.0 << 1000.0 << 495.0 << 505.0;
  }
  void zoom_keeps_anchor() {
    QFETCH(double, x);
    QFETCH(double, factor);
    QFETCH(double, begin);
    QFETCH(double, end);
    TimeMapping m(0, 1000, 1000);
    m.zoom_at(x, factor);
    QCOMPARE(m.begin(), begin);
    QCOMPARE(m.end(), end);
  }

  void pan_and_clamp() {
    TimeMapping m(0, 1000, 1000);
    m.zoom_at(500, 4);  // [375, 625]: 0.25 ns per px
    QCOMPARE(m.begin(), 375.0);
    m.pan_pixels(100);  // content follows the pointer right: the view moves 25 ns left
    QCOMPARE(m.begin(), 350.0);
    QCOMPARE(m.end(), 600.0);
    m.pan_pixels(10000);  // cannot leave the data
    QCOMPARE(m.begin(), 0.0);
    QCOMPARE(m.end(), 250.0);
    m.pan_pixels(-1e9);
    QCOMPARE(m.end(), 1000.0);
    m.fit();
    QCOMPARE(m.begin(), 0.0);
    QCOMPARE(m.end(), 1000.0);
  }

  void box_zoom() {
    TimeMapping m(0, 2000, 1000);  // 2 ns per px
    m.zoom_to_pixels(600, 100);    // either direction
    QCOMPARE(m.begin(), 200.0);
    QCOMPARE(m.end(), 1200.0);
    m.zoom_to_pixels(10, 11);  // a click, not a box: nothing changes
    QCOMPARE(m.begin(), 200.0);
  }

  void ticks_data() {
    QTest::addColumn<double>("begin");
    QTest::addColumn<double>("end");
    QTest::addColumn<double>("step");
    QTest::addColumn<QString>("first");
    QTest::addColumn<QString>("second");
    // 1000 px, at least 80 px apart: the smallest 1/2/5 step >= 80 px worth of time.
    QTest::newRow("35 ms") << 0.0 << 35e6 << 5e6 << "0 ms"
                           << "5 ms";  // 2.8 ms min -> 5 ms
    QTest::newRow("1 ms") << 0.0 << 1e6 << 1e5 << "0 us"
                          << "100 us";  // 80 us -> 100 us: the unit below the step
    QTest::newRow("µs range") << 1.5e6 << 1.51e6 << 1e3 << "1500 us"
                              << "1501 us";  // 800 ns -> 1 us
    QTest::newRow("ns range") << 40.0 << 540.0 << 50.0 << "50 ns"
                              << "100 ns";  // 40 ns -> 50 ns
    QTest::newRow("seconds") << 0.0 << 20e9 << 2e9 << "0 s"
                             << "2 s";
    QTest::newRow("0.2 s steps") << 0.0 << 2e9 << 2e8 << "0 ms"
                                 << "200 ms";
    QTest::newRow("2.5 us") << 0.0 << 2.5e3 << 2.0e2 << "0 ns"
                            << "200 ns";  // 2.5 ns/px x 80 = 200 ns
    QTest::newRow("20 us") << 0.0 << 2.0e4 << 2.0e3 << "0 us"
                           << "2 us";  // 1.6 us -> 2 us
  }
  void ticks() {
    QFETCH(double, begin);
    QFETCH(double, end);
    QFETCH(double, step);
    QFETCH(QString, first);
    QFETCH(QString, second);
    TimeMapping m(0, 1e12, 1000);
    m.set_range(begin, end);
    QCOMPARE(gpusched::gui::tick_step(m), step);
    const auto ticks = gpusched::gui::time_ticks(m);
    QVERIFY(ticks.size() >= 2);
    QCOMPARE(QString::fromStdString(ticks[0].label), first);
    QCOMPARE(QString::fromStdString(ticks[1].label), second);
    for (const auto& t : ticks) {
      QVERIFY(t.time >= m.begin() - 1e-6 && t.time <= m.end() + 1e-6);
      QVERIFY(m.to_x(t.time) >= -1e-6);
    }
    for (std::size_t i = 1; i < ticks.size(); ++i)
      QVERIFY(m.to_x(ticks[i].time) - m.to_x(ticks[i - 1].time) >= 80 - 1e-9);
  }

  void durations() {
    QCOMPARE(QString::fromStdString(gpusched::gui::format_duration_ns(800)), QStringLiteral("800 ns"));
    QCOMPARE(QString::fromStdString(gpusched::gui::format_duration_ns(12500)), QStringLiteral("12.500 us"));
    QCOMPARE(QString::fromStdString(gpusched::gui::format_duration_ns(1234567)), QStringLiteral("1.235 ms"));
    QCOMPARE(QString::fromStdString(gpusched::gui::format_duration_ns(2e9)), QStringLiteral("2.000 s"));
  }
};

QTEST_APPLESS_MAIN(TimeMappingTest)
#include "tst_time_mapping.moc"
