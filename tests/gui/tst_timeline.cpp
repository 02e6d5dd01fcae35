// The timeline's plain-data model (slots, spans, occupancy, geometry), a rendering test that draws a small known
// run and checks lanes and bars at the expected pixels, and the widget's zoom, pan, box zoom, hover and
// selection.
#include <QApplication>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include "gui/model/palette.h"
#include "gui/model/timeline_geometry.h"
#include "gui/model/timeline_model.h"
#include "gui/model/timeline_spans.h"
#include "gui/timeline_painter.h"
#include "gui/timeline_widget.h"

using namespace gpusched;
using namespace gpusched::gui;

namespace {

// One GPU, two SMs, two launches:
//   SM 0: launch 0 block 0 [0, 1000), launch 1 block 1 [200, 800)          -> two residency slots
//   SM 1: launch 0 block 1 [0, 450), launch 1 block 0 [450, 1000) switched out -> one slot
std::shared_ptr<TimelineModel> small_model() {
  Schedule s;
  s.pieces = {
      {0, 450, 0, 1, 0, 1, PieceOutcome::Completed},
      {200, 800, 1, 1, 0, 0, PieceOutcome::Completed},
      {0, 1000, 0, 0, 0, 0, PieceOutcome::Completed},
      {450, 1000, 1, 0, 0, 1, PieceOutcome::SwitchedOut},
  };
  std::vector<TimelineLaunch> launches = {{"a0", "ka", "", 0, 1000, 2, false}, {"b0", "kb", "t", 0, 1000, 2, false}};
  return std::make_shared<TimelineModel>(s, launches, std::vector<int>{2});
}

QRgb rgb_of(std::uint32_t c) {
  return c | 0xff000000u;
}

void send_mouse(QWidget* w, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons,
                Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QMouseEvent e(type, QPointF(pos), w->mapToGlobal(QPointF(pos)), button, buttons, mods);
  QApplication::sendEvent(w, &e);
}

}  // namespace

class TimelineTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void slots_and_occupancy() {
    const auto m = small_model();
    QCOMPARE(m->lanes().size(), std::size_t{2});
    QCOMPARE(m->lanes()[0].slots.size(), std::size_t{2});  // two blocks overlap on SM 0
    QCOMPARE(m->lanes()[1].slots.size(), std::size_t{1});  // back to back on SM 1: [0,450) then [450,1000)
    QCOMPARE(m->lanes()[1].slots[0].marks.size(), std::size_t{1});
    QCOMPARE(m->begin(), TimeNs{0});
    QCOMPARE(m->end(), TimeNs{1000});
    // Resident blocks: 2 on [0,200), 3 on [200,800), 2 on [800,1000), then 0; both SMs busy throughout.
    const auto& occ = m->occupancy()[0];
    QCOMPARE(occ.times, (std::vector<TimeNs>{0, 200, 800, 1000}));
    QCOMPARE(occ.resident, (std::vector<std::int32_t>{2, 3, 2, 0}));
    QCOMPARE(occ.busy_sms, (std::vector<std::int32_t>{2, 2, 2, 0}));
    QCOMPARE(occ.peak_resident, 3);
    // Hit test in time: the bar containing t, or the nearest within the tolerance.
    QCOMPARE(m->bar_at(1, 0, 449.0, 0)->launch, 0);
    QCOMPARE(m->bar_at(1, 0, 450.0, 0)->launch, 1);  // where one bar ends and the next starts, the next
    QCOMPARE(m->bar_at(1, 0, 451.0, 0)->launch, 1);
    QVERIFY(m->bar_at(0, 1, 100.0, 50) == nullptr);  // slot 1 starts at 200
    QCOMPARE(m->bar_at(0, 1, 190.0, 20)->block, 1);
  }

  void spans_one_per_pixel_column() {
    // 10 000 bars of 1 ns back to back, alternating launches every 1000 bars, on 100 px for 10 us: each pixel
    // holds 100 bars. Spans merge runs of one launch: 10 spans of 10 px, not 10 000 rectangles.
    TimelineRow row;
    for (int i = 0; i < 10000; ++i) row.bars.push_back({i, i + 1, (i / 1000) % 2, i, PieceOutcome::Completed});
    TimeMapping m(0, 10000, 100);
    std::vector<BarSpan> spans;
    row_spans(row, m, spans);
    QCOMPARE(spans.size(), std::size_t{10});
    for (std::size_t k = 0; k < spans.size(); ++k) {
      QCOMPARE(spans[k].launch, static_cast<std::int32_t>(k % 2));
      QCOMPARE(spans[k].x0, 10.0 * static_cast<double>(k));
      QVERIFY(!spans[k].whole);
    }
    // Zoomed in to 100 ns on 100 px: bars are 1 px wide (narrow), one launch: one merged span.
    m.set_range(2000, 2100);
    spans.clear();
    row_spans(row, m, spans);
    QCOMPARE(spans.size(), std::size_t{1});
    // 10 ns on 100 px: 10 px per bar, drawn one by one with their edges.
    m.set_range(5000, 5010);
    spans.clear();
    row_spans(row, m, spans);
    QCOMPARE(spans.size(), std::size_t{10});
    QVERIFY(spans[0].whole);
    QCOMPARE(spans[3].x0, 30.0);
    QCOMPARE(spans[3].x1, 40.0);
  }

  void levels_draw_what_the_bars_draw() {
    // A long random row (bars 2..12 us with gaps of 0..3 us, three launches in runs): at every zoom, the pixels
    // covered through the levels are the pixels covered by the bars themselves, and a level holds a few hundred runs.
    Schedule s;
    std::uint64_t x = 12345;
    const auto next = [&](int n) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<int>((x >> 33) % static_cast<std::uint64_t>(n));
    };
    TimeNs t = 0;
    int launch = 0;
    for (int b = 0; b < 20000; ++b) {
      if (next(50) == 0) launch = next(3);
      const TimeNs d = 2000 + next(10000);
      s.pieces.push_back({t, t + d, launch, b, 0, 0, PieceOutcome::Completed});
      t += d + (next(4) == 0 ? next(3000) : 0);
    }
    const TimelineModel model(
        s, {{"a", "k", "", 0, t, 1, false}, {"b", "k", "", 0, t, 1, false}, {"c", "k", "", 0, t, 1, false}}, {1});
    const auto& row = model.lanes()[0].slots[0];
    // About 400 launch changes in 20 000 bars: a level merges down to a few hundred runs.
    QVERIFY(!row.levels.empty());
    QVERIFY(row.levels.back().runs.size() < 1000);
    TimelineRow raw;
    raw.bars = row.bars;  // no levels
    const auto covered = [](const std::vector<BarSpan>& spans, int width) {
      std::vector<char> px(static_cast<std::size_t>(width), 0);
      for (const auto& sp : spans)
        for (int i = std::max(0, static_cast<int>(std::floor(sp.x0)));
             i < std::min(width, static_cast<int>(std::ceil(sp.x1))); ++i)
          px[static_cast<std::size_t>(i)] = 1;
      return px;
    };
    for (double zoom : {1.0, 3.0, 10.0, 40.0, 200.0, 1000.0}) {
      TimeMapping m(0, static_cast<double>(t), 1500);
      m.zoom_at(700, zoom);
      std::vector<BarSpan> with_levels, without;
      row_spans(row, m, with_levels);
      row_spans(raw, m, without);
      QVERIFY2(covered(with_levels, 1500) == covered(without, 1500), qPrintable(QStringLiteral("zoom %1").arg(zoom)));
      QVERIFY(with_levels.size() <= without.size());
    }
  }

  void curve_columns_hold_every_change() {
    // A step curve 0 -> 5 -> 1 -> 0 inside one pixel column: the column spans 0..5 and ends at 0.
    TimeMapping m(0, 100, 10);  // 10 ns per column
    std::vector<CurveColumn> cols;
    curve_columns({12, 14, 16, 40}, {5, 1, 0, 2}, m, cols);
    QCOMPARE(cols.size(), std::size_t{10});
    QCOMPARE(cols[0].high, 0);
    QCOMPARE(cols[1].low, 0);
    QCOMPARE(cols[1].high, 5);
    QCOMPARE(cols[1].last, 0);
    QCOMPARE(cols[4].high, 2);
    QCOMPARE(cols[9].last, 2);
  }

  void geometry_places_lanes() {
    const auto m = small_model();
    TimelineMetrics metrics;
    metrics.lane_height = 20;
    // axis 22 + markers 14 = 36: the band of GPU 0 at 36..80, SM 0 at 80..100, gap, SM 1 at 101..121.
    TimelineGeometry g(*m, metrics, 1086, 400, 0);
    QCOMPARE(g.content_top(), 36);
    QCOMPARE(g.band_top(0), 36);
    QCOMPARE(g.lane_top(0), 80);
    QCOMPARE(g.lane_top(1), 101);
    QCOMPARE(g.slot_top(0, 1, 2), 90);
    QCOMPARE(g.slot_bottom(0, 1, 2), 100);
    QCOMPARE(g.content_height(), 44 + 2 * 21);
    auto h = g.hit(500, 95);
    QCOMPARE(h.kind, TimelineGeometry::Hit::Kind::Lane);
    QCOMPARE(h.lane, 0);
    QCOMPARE(h.slot, 1);
    h = g.hit(500, 110);
    QCOMPARE(h.lane, 1);
    QCOMPARE(h.slot, 0);
    QCOMPARE(g.hit(500, 100).kind, TimelineGeometry::Hit::Kind::None);  // the gap between lanes
    QCOMPARE(g.hit(500, 50).kind, TimelineGeometry::Hit::Kind::Band);
    QCOMPARE(g.hit(500, 30).kind, TimelineGeometry::Hit::Kind::Markers);
    // Scrolled by 30 px, everything moves up by 30.
    TimelineGeometry scrolled(*m, metrics, 1086, 400, 30);
    QCOMPARE(scrolled.lane_top(1), 71);
  }

  void renders_bars_at_expected_pixels() {
    const auto m = small_model();
    TimelineView view;
    view.metrics.lane_height = 20;
    view.time = TimeMapping(0, 1000, 1000);  // 1 ns per pixel; the plot starts at x = 86
    QImage image(86 + 1000, 200, QImage::Format_RGB32);
    {
      QPainter p(&image);
      paint_timeline(p, image.size(), *m, view);
    }
    const auto at = [&](int t_ns, int y) { return image.pixel(86 + t_ns, y) | 0xff000000u; };
    // SM 0 slot 0 (y 80..89): launch 0 all along. Slot 1 (y 90..99): launch 1 on [200, 800).
    QCOMPARE(at(150, 85), rgb_of(launch_rgb(0)));
    QCOMPARE(at(950, 85), rgb_of(launch_rgb(0)));
    QCOMPARE(at(530, 95), rgb_of(launch_rgb(1)));
    QCOMPARE(at(150, 95), rgb_of(0xf6f7f9));  // SM 0's lane background: slot 1 is empty before 200
    // SM 1 (y 101..120): launch 0 until 450, launch 1 after; the one-pixel edge of the second bar at 450 shows
    // the lane background; the switched-out marker covers the bar's last two pixels.
    QCOMPARE(at(250, 110), rgb_of(launch_rgb(0)));
    QCOMPARE(at(750, 110), rgb_of(launch_rgb(1)));
    QCOMPARE(at(450, 110), rgb_of(0xeef0f3));
    QCOMPARE(at(999, 110), rgb_of(outcome_rgb(PieceOutcome::SwitchedOut)));
    // Below the last lane: background.
    QCOMPARE(at(250, 150), rgb_of(0xffffff));
    // The band (36..79, bottom line at 77): both SMs busy (filled); the resident-block line at 3 of 3 blocks
    // on [200, 800) is at 77 - 38 = 39, at 2 of 3 on [0, 200) at 77 - round(38 * 2 / 3) = 52.
    QCOMPARE(at(350, 60), rgb_of(0x9ec5e8));
    QCOMPARE(at(350, 39), rgb_of(0x1f4e79));
    QCOMPARE(at(150, 52), rgb_of(0x1f4e79));

    // Selecting launch 1 fades launch 0's bars.
    view.selected_launch = 1;
    {
      QPainter p(&image);
      paint_timeline(p, image.size(), *m, view);
    }
    QCOMPARE(at(150, 85), rgb_of(faded_rgb(launch_rgb(0))));
    QCOMPARE(at(530, 95), rgb_of(launch_rgb(1)));
  }

  void widget_zoom_pan_select() {
    TimelineWidget w;
    w.resize(1200, 300);
    w.setModel(small_model(), QStringLiteral("small"));
    w.setLaneHeight(20);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const double width = w.timeMapping().width();
    // Fitted with 1% room on both sides.
    QCOMPARE(w.timeMapping().begin(), -10.0);
    QCOMPARE(w.timeMapping().end(), 1010.0);
    const auto x_of = [&](double t) { return 86 + static_cast<int>(std::lround(w.timeMapping().to_x(t))); };

    // Hover text of launch 1's block on SM 1.
    const QString text = w.describeAt(QPoint(x_of(700), 110));
    QVERIFY2(text.contains(QStringLiteral("launch 1 (b0)")) && text.contains(QStringLiteral("block 0 on GPU 0 SM 1")) &&
                 text.contains(QStringLiteral("switched_out")),
             qPrintable(text));

    // Click selects the launch under the pointer; a click on nothing clears it.
    QSignalSpy selected(&w, &TimelineWidget::launchSelected);
    send_mouse(&w, QEvent::MouseButtonPress, QPoint(x_of(300), 95), Qt::LeftButton, Qt::LeftButton);
    send_mouse(&w, QEvent::MouseButtonRelease, QPoint(x_of(300), 95), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(w.selectedLaunch(), 1);
    QCOMPARE(selected.count(), 1);
    send_mouse(&w, QEvent::MouseButtonPress, QPoint(x_of(300), 200), Qt::LeftButton, Qt::LeftButton);
    send_mouse(&w, QEvent::MouseButtonRelease, QPoint(x_of(300), 200), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(w.selectedLaunch(), -1);

    // Wheel: zoom by 1.25 around the pointer; the time under it stays.
    const double anchor = w.timeMapping().to_time(400);
    const double span = w.timeMapping().span();
    QWheelEvent wheel(QPointF(86 + 400, 110), w.mapToGlobal(QPointF(86 + 400, 110)), QPoint(), QPoint(0, 120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&w, &wheel);
    QCOMPARE(w.timeMapping().span(), span / 1.25);
    QCOMPARE(w.timeMapping().to_time(400), anchor);

    // Drag pans: 100 px to the right moves the view 100 px worth of time to the left.
    const double before = w.timeMapping().begin(), per_px = w.timeMapping().ns_per_pixel();
    send_mouse(&w, QEvent::MouseButtonPress, QPoint(500, 110), Qt::LeftButton, Qt::LeftButton);
    send_mouse(&w, QEvent::MouseMove, QPoint(600, 110), Qt::NoButton, Qt::LeftButton);
    send_mouse(&w, QEvent::MouseButtonRelease, QPoint(600, 110), Qt::LeftButton, Qt::NoButton);
    QCOMPARE(w.timeMapping().begin(), before - 100 * per_px);
    QCOMPARE(w.selectedLaunch(), -1);  // a drag is not a click

    // Right-drag zooms to the box.
    w.fit();
    const double t0 = w.timeMapping().to_time(200), t1 = w.timeMapping().to_time(600);
    send_mouse(&w, QEvent::MouseButtonPress, QPoint(86 + 200, 110), Qt::RightButton, Qt::RightButton);
    send_mouse(&w, QEvent::MouseMove, QPoint(86 + 600, 110), Qt::NoButton, Qt::RightButton);
    send_mouse(&w, QEvent::MouseButtonRelease, QPoint(86 + 600, 110), Qt::RightButton, Qt::NoButton);
    QCOMPARE(w.timeMapping().begin(), t0);
    QCOMPARE(w.timeMapping().end(), t1);
    QCOMPARE(w.timeMapping().width(), width);

    // Double-click fits.
    QTest::mouseDClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(300, 110));
    QCOMPARE(w.timeMapping().begin(), -10.0);
  }
};

QTEST_MAIN(TimelineTest)
#include "tst_timeline.moc"
