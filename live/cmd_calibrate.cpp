// gpusched-live calibrate: measures the GPU's front-end timing (launch latency, launch gap on one stream,
// completion latency through an event, GPU-wide block dispatch time) and writes a GPU file whose [timing] table
// the simulator uses (docs/live.md, "Calibrating the front end"; docs/formats.md, "GPU timing").
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "core/atomic_file.h"
#include "core/prediction_errors.h"
#include "core/store/store.h"
#include "live/commands.h"
#include "live/device_spec.h"
#include "live/suite_binding.h"
#include "live/timing/timing_probe.h"

namespace gpusched::live {
namespace {

struct CalibrateArgs {
  std::string out;
  int repeats = 3;
  int samples = 101;
  int race_samples = 61;
  int busy_samples = 51;
  double race_spread_us = 30;
  double timeout_s = 60;
};

// One quantity over the repeats: each repeat's median of its samples, then the median and the spread of those.
struct Measured {
  std::vector<double> repeat_medians;
  double median() const { return gpusched::live::median(repeat_medians); }
  double spread() const {
    return repeat_medians.empty() ? 0.0
                                  : *std::max_element(repeat_medians.begin(), repeat_medians.end()) -
                                        *std::min_element(repeat_medians.begin(), repeat_medians.end());
  }
  std::string list() const {
    std::string s;
    for (double v : repeat_medians) s += fmt::format("{}{:.1f}", s.empty() ? "" : " ", v);
    return s;
  }
};

template <typename T>
double median_of(const std::vector<T>& v) {
  std::vector<double> d(v.begin(), v.end());
  return median(std::move(d));
}

// Grids of the grid-start probe: enough that the front end's rate, not the release, sets their span (validate's gated
// parts release up to tens at one instant).
constexpr int kGridProbeGrids = 200;

int calibrate_command(const CalibrateArgs& a) {
  const auto devices = list_devices();
  const auto& dev = devices.front();
  const std::string base = dev.preset ? dev.preset->name : "";
  if (base.empty())
    throw std::invalid_argument(
        fmt::format("no preset matches the GPU ({}); calibrate needs one to base the file on", dev.name));
  Measured latency, gap, completion, rtt, race, queued, busy_room, busy_full, grid_interval;
  std::vector<Measured> dispatch(3);
  const int threads[3] = {32, 128, 256};
  for (int r = 0; r < a.repeats; ++r) {
    const ClockSync sync = sync_clocks(2000, a.timeout_s);
    rtt.repeat_medians.push_back(static_cast<double>(sync.rtt_ns));
    latency.repeat_medians.push_back(median_of(probe_launch_latency(sync, a.samples, a.timeout_s)));
    gap.repeat_medians.push_back(median_of(probe_launch_gap(a.samples, a.timeout_s)));
    completion.repeat_medians.push_back(median_of(probe_completion_latency(a.samples, a.timeout_s)));
    for (int t = 0; t < 3; ++t)
      dispatch[static_cast<std::size_t>(t)].repeat_medians.push_back(
          median_of(probe_dispatch_ns(threads[t], 10'000, 1'000'000, std::max(5, a.samples / 10), a.timeout_s)));
    grid_interval.repeat_medians.push_back(
        median_of(probe_grid_start_interval(kGridProbeGrids, std::max(3, a.samples / 10), a.timeout_s)));
    fmt::print(
        "repeat {}: clock sync within {} ns; launch latency {:.0f} ns, launch gap {:.0f} ns, completion "
        "latency {:.0f} ns, dispatch {:.3f} / {:.3f} / {:.3f} ns a block (32 / 128 / 256 threads), grids released "
        "together start {:.0f} ns apart\n",
        r + 1, sync.rtt_ns / 2, latency.repeat_medians.back(), gap.repeat_medians.back(),
        completion.repeat_medians.back(), dispatch[0].repeat_medians.back(), dispatch[1].repeat_medians.back(),
        dispatch[2].repeat_medians.back(), grid_interval.repeat_medians.back());
    if (a.busy_samples > 0) {
      const auto room = probe_busy_launch_latency(sync, a.busy_samples, false, a.timeout_s);
      const auto full = probe_busy_launch_latency(sync, a.busy_samples, true, a.timeout_s);
      if (!room.latency_ns.empty()) busy_room.repeat_medians.push_back(median_of(room.latency_ns));
      if (!full.latency_ns.empty()) busy_full.repeat_medians.push_back(median_of(full.latency_ns));
      auto pct = [](const std::vector<std::int64_t>& v, double q) {
        return nearest_rank(std::vector<double>(v.begin(), v.end()), q);
      };
      fmt::print(
          "  busy GPU, a launch on the greatest-priority stream: with room {:.0f} ns median (p10 {:.0f}, p90 {:.0f}; "
          "{} of {} samples not busy); every thread slot full {:.0f} ns median (p10 {:.0f}, p90 {:.0f}; {} not busy)\n",
          room.latency_ns.empty() ? 0.0 : median_of(room.latency_ns), pct(room.latency_ns, 0.1),
          pct(room.latency_ns, 0.9), room.not_busy, a.busy_samples,
          full.latency_ns.empty() ? 0.0 : median_of(full.latency_ns), pct(full.latency_ns, 0.1),
          pct(full.latency_ns, 0.9), full.not_busy);
      if (std::getenv("GPUSCHED_BUSY_SAMPLES"))
        for (std::size_t k = 0; k < full.latency_ns.size(); ++k) fmt::print("  busy full {} ns\n", full.latency_ns[k]);
    }
    if (a.race_samples > 0) {
      const auto samples =
          probe_successor_race(sync, a.race_samples, static_cast<std::int64_t>(a.race_spread_us * 1000), a.timeout_s);
      int misordered = 0;
      const std::int64_t x = race_crossover_ns(samples, &misordered);
      std::vector<std::int64_t> after;
      int competitor = 0;
      for (const auto& q : samples) {
        if (!q.competitor_first) after.push_back(q.successor_after_ns);
        competitor += q.competitor_first ? 1 : 0;
      }
      race.repeat_medians.push_back(static_cast<double>(x));
      queued.repeat_medians.push_back(static_cast<double>(x) + latency.repeat_medians.back());
      fmt::print(
          "  busy GPU: a launch called up to {:.1f} us after a kernel's last block went before that kernel's stream "
          "successor ({} of {} samples first, {} out of line with the threshold); the successor started {:.1f} us "
          "after the last block when first; with this repeat's launch latency, it joins the queue {:.1f} us after\n",
          static_cast<double>(x) / 1000, competitor, samples.size(), misordered,
          after.empty() ? 0.0 : median_of(after) / 1000, queued.repeat_medians.back() / 1000);
      if (a.race_samples >= 5 && std::getenv("GPUSCHED_RACE_SAMPLES"))
        for (const auto& q : samples)
          fmt::print("  race x {} ns competitor_first {} successor_after {} ns\n", q.x_ns, q.competitor_first ? 1 : 0,
                     q.successor_after_ns);
    }
  }
  const std::string date = store::utc_now_iso8601();
  std::string text =
      "# The GPU's front-end timing as measured by gpusched-live calibrate (docs/live.md); the preset of the\n"
      "# same name uses these values (core/gpu_spec.cpp), a test keeps the two equal.\n";
  text += fmt::format("format = \"gpusched-gpu\"\nversion = 1\nname = \"{}\"\nbase = \"{}\"\n\n[timing]\n", base, base);
  text += fmt::format("launch_latency_ns = {}\n", std::llround(latency.median()));
  text += fmt::format("completion_latency_ns = {}\n", std::llround(completion.median()));
  text += fmt::format("launch_gap_ns = {}\n", std::llround(gap.median()));
  // The empty-block probe measures sustained block turnover (launch and retire of blocks that do nothing), not the
  // cost of dispatching a wave: recorded kernels place their whole first wave (2,112 blocks of blackscholes-s1)
  // within 256 ns, under 0.12 ns a block, and that stagger is already inside their slot occupancies. So the file
  // applies no dispatch time and keeps the turnover as provenance (docs/live.md, "Calibrating the front end").
  text += "block_dispatch_ns = 0\n";
  text += fmt::format("grid_start_interval_ns = {}\n", std::llround(grid_interval.median()));
  text += fmt::format("source = \"gpusched-live calibrate on {}, {}\"\n\n[timing.provenance]\n", dev.name,
                      date.substr(0, 10));
  text += fmt::format("command = \"gpusched-live calibrate --repeats {} --samples {}\"\n", a.repeats, a.samples);
  text += fmt::format("device = \"{}\"\ndriver = \"{}\"\ncuda_runtime = \"{}\"\ncalibrated_at = \"{}\"\n", dev.name,
                      dev.driver, dev.runtime, date);
  text +=
      "method = \"medians of each repeat's samples; the value is the median of the repeats, spread = max - min of "
      "them\"\n";
  auto prov = [&](const char* key, const Measured& m, const char* unit) {
    text +=
        fmt::format("{}_repeats = \"{} {}\"\n{}_spread = \"{:.1f} {}\"\n", key, m.list(), unit, key, m.spread(), unit);
  };
  prov("launch_latency", latency, "ns");
  prov("completion_latency", completion, "ns");
  prov("launch_gap", gap, "ns");
  prov("clock_sync_round_trip", rtt, "ns");
  prov("grid_start_interval", grid_interval, "ns");
  text += fmt::format(
      "grid_start_interval_method = \"{} one-block grids, each on a stream of its own behind a stream wait on one "
      "counter in mapped host memory, released at once: first start to last over {}\"\n",
      kGridProbeGrids, kGridProbeGrids - 1);
  if (!race.repeat_medians.empty()) {
    prov("busy_race_crossover", race, "ns");
    prov("busy_successor_queue_latency", queued, "ns");
    text += fmt::format(
        "busy_race_method = \"a kernel filling half of every SM, its stream successor and another stream's launch "
        "called around its end ({} samples over +-{:.0f} us a repeat), each needing the room it leaves: the "
        "crossover is the call time (after its last block) up to which the other launch goes first; queue latency = "
        "crossover + launch latency, the time after its predecessor's last block at which a successor takes its "
        "place among launches waiting for room; not applied\"\n",
        a.race_samples, a.race_spread_us);
  }
  if (!busy_room.repeat_medians.empty()) prov("busy_launch_latency_room", busy_room, "ns");
  if (!busy_full.repeat_medians.empty()) prov("busy_launch_latency_full", busy_full, "ns");
  for (int t = 0; t < 3; ++t) {
    const auto key = fmt::format("block_dispatch_{}_threads", threads[t]);
    prov(key.c_str(), dispatch[static_cast<std::size_t>(t)], "ns");
  }
  text += fmt::format("block_turnover_ns = \"{:.4f} ns\"\n", dispatch[1].median());
  text +=
      "block_turnover_method = \"empty blocks: (time of 1,000,000 - time of 10,000) / 990,000, CUDA events; not "
      "applied as block_dispatch_ns: the recorded first waves are dispatched faster (docs/live.md)\"\n";
  text +=
      "launch_latency_method = \"host clock read before the launch call to the kernel's first %globaltimer stamp, "
      "clocks lined up by ping-pong through mapped host memory (shortest of 2000 round trips)\"\n";
  fmt::print("\n{}", text);
  if (!a.out.empty()) {
    AtomicFile f(a.out);
    f.write(text);
    f.commit();
    fmt::print("written to {}\n", a.out);
  }
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, int& result) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand("calibrate",
                                 "Measure the GPU's launch latency, launch gap, completion latency, block dispatch "
                                 "time and the interval between grids released together, and write them as a GPU file");
  cmd->add_option("--out,-o", a->out, "GPU file to write (its [timing] table and provenance)");
  cmd->add_option("--repeats", a->repeats, "Repeats of every measurement (median and spread over them)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--samples", a->samples, "Samples per measurement and repeat (their median)")
      ->check(CLI::Range(3, 100000));
  cmd->add_option("--timeout", a->timeout_s, "Watchdog: seconds a probe may take");
  cmd->add_option("--race-samples", a->race_samples,
                  "Samples per repeat of the busy-GPU race between a stream successor and another stream's launch "
                  "(0: skip)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--busy-samples", a->busy_samples,
                  "Samples per repeat of a launch's latency on a busy GPU, with room and with every thread slot full "
                  "(0: skip)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--race-spread", a->race_spread_us,
                  "The race's launch calls step over +- this many us around the predecessor's expected end")
      ->check(CLI::Range(1.0, 10000.0));
  cmd->callback([a, &result] { result = calibrate_command(*a); });
}

}  // namespace gpusched::live
