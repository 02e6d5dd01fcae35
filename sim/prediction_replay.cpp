#include "sim/prediction_replay.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "core/occupancy.h"
#include "core/simple_slicing.h"

namespace gpusched::sim {

std::vector<LaunchPrediction> replay_predictions(const Workload& w, const GpuSpec& gpu, const RunResult& run) {
  // (time, order, index): at one time, block ends, then kernel ends, then releases, then block starts,
  // as the engine frees resources before it dispatches.
  enum Order { End = 0, KernelEnd = 1, Release = 2, Start = 3 };
  std::vector<std::tuple<TimeNs, int, std::size_t>> events;
  const auto& pieces = run.schedule.pieces;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    events.emplace_back(pieces[i].start, Start, i);
    events.emplace_back(pieces[i].end, End, i);
  }
  for (std::size_t l = 0; l < run.launches.size(); ++l) {
    events.emplace_back(run.launches[l].release, Release, l);
    events.emplace_back(run.launches[l].finish, KernelEnd, l);
  }
  std::sort(events.begin(), events.end());

  const int sms = gpu.sm_count * run.gpu_count;
  SimpleSlicingPredictor predictor(sms);
  const std::size_t n = run.launches.size();
  std::vector<std::optional<TimeNs>> first(n), slice_first(n);
  std::vector<TimeNs> boundary(n, -1);  // time of the latest slice boundary the launch saw
  auto boundary_for_all = [&](TimeNs t) {
    for (auto& b : boundary) b = t;
  };
  // Predictions are read once all events of a time are in (simultaneous block ends update the state
  // together, as in the engine's batches), for the launches that had a block end at that time.
  std::vector<std::size_t> ended;
  auto read_predictions = [&](TimeNs t) {
    for (const std::size_t l : ended) {
      const auto finish = predictor.predicted_finish(static_cast<std::int32_t>(l), t);
      if (!finish) continue;
      if (!first[l]) first[l] = *finish;
      if (boundary[l] >= 0 || !slice_first[l]) {  // the first prediction after the latest boundary
        slice_first[l] = *finish;
        boundary[l] = -1;
      }
    }
    ended.clear();
  };
  TimeNs current = events.empty() ? 0 : std::get<0>(events.front());
  for (const auto& [t, order, i] : events) {
    if (t != current) {
      read_predictions(current);
      current = t;
    }
    switch (order) {
      case Release: {
        const auto& k = w.kernel_of(i);
        predictor.on_launch(static_cast<std::int32_t>(i), k.block_count(), compute_occupancy(gpu, k.shape()).blocks_per_sm,
                            t);
        boundary_for_all(t);
        break;
      }
      case KernelEnd:
        read_predictions(t);  // the kernel's last block ends belong to it before it is gone
        predictor.on_kernel_end(static_cast<std::int32_t>(i), t);
        boundary_for_all(t);
        break;
      case Start: {
        const auto& p = pieces[i];
        predictor.on_block_start(p.launch, p.gpu * gpu.sm_count + p.sm, t);
        break;
      }
      case End: {
        const auto& p = pieces[i];
        predictor.on_block_end(p.launch, p.gpu * gpu.sm_count + p.sm, p.end - p.start, t);
        if (std::find(ended.begin(), ended.end(), static_cast<std::size_t>(p.launch)) == ended.end())
          ended.push_back(static_cast<std::size_t>(p.launch));
        break;
      }
    }
  }
  read_predictions(current);
  std::vector<LaunchPrediction> out;
  for (std::size_t l = 0; l < n; ++l) {
    LaunchPrediction p;
    p.launch = l;
    const auto& o = run.launches[l];
    p.actual = o.finish - o.first_dispatch;
    if (first[l] && p.actual > 0) {
      p.has_prediction = true;
      p.first_ratio = static_cast<double>(*first[l] - o.first_dispatch) / static_cast<double>(p.actual);
      p.last_slice_ratio = static_cast<double>(*slice_first[l] - o.first_dispatch) / static_cast<double>(p.actual);
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace gpusched::sim
