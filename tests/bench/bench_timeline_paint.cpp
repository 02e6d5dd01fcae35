// The timeline's paint routine on a 1-million-block run (64 launches on the H100 preset under fifo, as in
// bench_engine), into a 1600 x 900 image on the offscreen platform, at zoom levels from the whole run down to
// 10 ns across the view, and while panning. Target: under 30 ms per frame at any zoom (docs/performance.md).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <cstdlib>

#include "core/gpu_spec.h"
#include "gui/model/timeline_spans.h"
#include "gui/timeline_painter.h"
#include "sim/runner.h"
#include "tests/bench/million_blocks.h"

using namespace gpusched;
using namespace gpusched::gui;

namespace {

const TimelineModel& million_block_model() {
  static const TimelineModel model = [] {
    const auto& b = bench::million_block_workload();
    const Workload& w = b.workload;
    const GpuSpec& gpu = *find_gpu_preset("h100");
    sim::AloneTimeCache alone;
    sim::RunOptions o;
    o.policy = "fifo";
    const RunResult r = sim::run_workload(w, gpu, o, alone);
    std::vector<TimelineLaunch> labels;
    for (std::size_t i = 0; i < r.launches.size(); ++i)
      labels.push_back({w.launches[i].id, b.kernels[i]->name, "", r.launches[i].arrival, r.launches[i].finish,
                        r.launches[i].blocks, false});
    return TimelineModel(r.schedule, std::move(labels), {gpu.sm_count});
  }();
  return model;
}

constexpr int kWidth = 1600, kHeight = 900;

TimelineView view_at_zoom(const TimelineModel& model, double zoom, int lane_height) {
  TimelineView v;
  v.metrics.lane_height = lane_height;
  const double plot = kWidth - v.metrics.label_width;
  v.time = TimeMapping(static_cast<double>(model.begin()), static_cast<double>(model.end()), plot);
  // Zoom in around a point in the middle of the busiest part of the run.
  v.time.zoom_at(plot * 0.37, zoom);
  return v;
}

void BM_PaintTimeline(benchmark::State& state) {
  const auto& model = million_block_model();
  const double zoom = static_cast<double>(state.range(0));
  const int lane_height = static_cast<int>(state.range(1));
  TimelineView view = view_at_zoom(model, zoom, lane_height);
  QImage image(kWidth, kHeight, QImage::Format_RGB32);
  for (auto _ : state) {
    QPainter p(&image);
    paint_timeline(p, image.size(), model, view);
  }
  state.counters["visible_ns"] = view.time.span();
  state.SetLabel(fmt::format("{} pieces, zoom {}x, lanes {} px", model.piece_count(), zoom, lane_height));
}
// Zoom 1 = the whole run (about 30 ms of simulated time); 3e6 = 10 ns across the view. Lane height 6 px puts
// all 132 SMs in view; 14 px shows about 50 of them.
BENCHMARK(BM_PaintTimeline)
    ->ArgsProduct({{1, 10, 100, 1000, 10000, 100000, 3000000}, {6, 14}})
    ->Unit(benchmark::kMillisecond);

void BM_PanTimeline(benchmark::State& state) {
  const auto& model = million_block_model();
  TimelineView view = view_at_zoom(model, static_cast<double>(state.range(0)), 6);
  QImage image(kWidth, kHeight, QImage::Format_RGB32);
  int step = 0;
  for (auto _ : state) {
    view.time.pan_pixels(step++ % 40 < 20 ? -37 : 37);  // drag back and forth
    QPainter p(&image);
    paint_timeline(p, image.size(), model, view);
  }
}
BENCHMARK(BM_PanTimeline)->Arg(1)->Arg(100)->Arg(10000)->Unit(benchmark::kMillisecond);

// The span computation alone (no drawing), over every slot row of every lane, at the whole-run zoom.
void BM_SpansOnly(benchmark::State& state) {
  const auto& model = million_block_model();
  const TimelineView view = view_at_zoom(model, static_cast<double>(state.range(0)), 6);
  std::vector<BarSpan> spans;
  std::size_t count = 0;
  for (auto _ : state) {
    count = 0;
    for (const auto& lane : model.lanes())
      for (const auto& row : lane.slots) {
        spans.clear();
        row_spans(row, view.time, spans);
        count += spans.size();
      }
  }
  state.counters["spans"] = static_cast<double>(count);
}
BENCHMARK(BM_SpansOnly)->Arg(1)->Arg(10)->Unit(benchmark::kMillisecond);

void BM_BuildModel(benchmark::State& state) {
  const auto& model = million_block_model();
  // Rebuild from a Schedule made back from the model, as loading a stored run does.
  Schedule s;
  for (const auto& lane : model.lanes())
    for (const auto& row : lane.slots)
      for (const auto& b : row.bars)
        s.pieces.push_back({b.start, b.end, b.launch, b.block, static_cast<std::int16_t>(lane.gpu),
                            static_cast<std::int16_t>(lane.sm), b.outcome});
  for (auto _ : state) {
    TimelineModel m(s, model.launches(), {132});
    benchmark::DoNotOptimize(m.piece_count());
  }
}
BENCHMARK(BM_BuildModel)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  setenv("QT_QPA_PLATFORM", "offscreen", 0);
  QGuiApplication app(argc, argv);  // fonts for the labels
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
