// The GPU front end's timing in the engine (GpuSpec: launch latency, stream gap, completion latency, dispatch
// rate), by hand, and the [timing] table of GPU files.
#include <gtest/gtest.h>

#include "core/gpu_file.h"
#include "test_helpers.h"

namespace gpusched {
namespace {

using test::kernel;
using test::launch;

GpuSpec one_sm() {
  return test::gpu_with_sms("h100", 1);
}

TEST(GpuTiming, LaunchLatencyDelaysTheRelease) {
  // One block of 1000 ns; the host calls at t = 200, the launch latency is 500: the block runs 700-1700, and the
  // turnaround (from the host's call) is 1500, its time alone too (slowdown 1).
  GpuSpec g = one_sm();
  g.launch_latency_ns = 500;
  auto w = make_workload("w", {kernel("k", 1, 128, {1000})}, {launch("a", 0, 200)});
  const auto r = test::run(w, g, "fifo");
  ASSERT_EQ(r.schedule.pieces.size(), 1u);
  EXPECT_EQ(r.schedule.pieces[0].start, 700);
  EXPECT_EQ(r.schedule.pieces[0].end, 1700);
  EXPECT_EQ(r.launches[0].release, 200);  // the turnaround's start: the host's call
  EXPECT_EQ(r.launches[0].first_dispatch, 700);
  EXPECT_EQ(r.launches[0].turnaround, 1500);
  EXPECT_EQ(r.launches[0].alone, 1500);
}

TEST(GpuTiming, StreamGapAndCompletionLatency) {
  // a: one block of 1000 ns at t = 0, launch latency 100: runs 100-1100. b follows a on one stream (gap 50): it is
  // released at 1100 + 50 = 1150 and runs 1150-1350. c waits for a through an event (after = a, another stream;
  // completion latency 300): released at 1100 + 300 = 1400, runs 1400-1600. d arrives late (t = 5000) on a's
  // stream after b: its own launch latency rules, 5000 + 100 = 5100.
  GpuSpec g = test::gpu_with_sms("h100", 4);
  g.launch_latency_ns = 100;
  g.launch_gap_ns = 50;
  g.completion_latency_ns = 300;
  auto la = launch("a", 0, 0);
  la.stream = "s";
  auto lb = launch("b", 1, 0);
  lb.stream = "s";
  auto lc = launch("c", 1, 0, {0});
  auto ld = launch("d", 1, 5000);
  ld.stream = "s";
  auto w = make_workload("w", {kernel("k1", 1, 128, {1000}), kernel("k2", 1, 128, {200})}, {la, lb, lc, ld});
  const auto r = test::run(w, g, "fifo");
  // first_dispatch is the engine's release here (the SMs are free); release is where the turnaround starts (the
  // host's call, or the predecessor's end).
  EXPECT_EQ(r.launches[0].first_dispatch, 100);
  EXPECT_EQ(r.launches[0].finish, 1100);
  EXPECT_EQ(r.launches[1].release, 1100);
  EXPECT_EQ(r.launches[1].first_dispatch, 1150);
  EXPECT_EQ(r.launches[1].finish, 1350);
  EXPECT_EQ(r.launches[2].release, 1100);
  EXPECT_EQ(r.launches[2].first_dispatch, 1400);
  EXPECT_EQ(r.launches[2].finish, 1600);
  EXPECT_EQ(r.launches[3].release, 5000);
  EXPECT_EQ(r.launches[3].first_dispatch, 5100);
  EXPECT_EQ(r.launches[3].finish, 5300);
  EXPECT_EQ(r.launches[1].turnaround, 250);  // 1350 - 1100: the gap counts
}

TEST(GpuTiming, DispatchRateLimitsATenThousandBlockLaunch) {
  // 10,000 blocks of 1000 ns on 100 SMs of 32 block slots (3,200 at once). Without a dispatch limit: 4 waves
  // (3200, 3200, 3200, 400) = 4000 ns. With one block dispatched every 10 ns GPU-wide, block k starts at 10 k
  // (at most 100 blocks are resident at a time, far below the slots): the last, k = 9999, runs 99990-100990.
  GpuSpec g = test::gpu_with_sms("h100", 100);
  auto w = make_workload("w", {kernel("k", 10000, 32, {1000})}, {launch("a", 0, 0)});
  EXPECT_EQ(test::run(w, g, "fifo").metrics.makespan, 4000);
  g.block_dispatch_ns = 10.0;
  const auto r = test::run(w, g, "fifo");
  EXPECT_EQ(r.metrics.makespan, 100990);
  TimeNs last_start = 0;
  for (const auto& p : r.schedule.pieces) {
    EXPECT_EQ(p.start, 10 * static_cast<TimeNs>(p.block)) << "block " << p.block;
    last_start = std::max(last_start, p.start);
  }
  EXPECT_EQ(last_start, 99990);
  EXPECT_EQ(test::check_invariants(w, g, r), "");
}

TEST(GpuTiming, FractionalDispatchTimeAccumulates) {
  // 0.25 ns a block: blocks 0-3 start at 0 (ceil of 0, .25, .5, .75 ns is 0, 1, 1, 1), so in picoseconds: block k
  // starts at ceil(250 k / 1000) ns; block 4 at 1 ns, block 8 at 2 ns.
  GpuSpec g = test::gpu_with_sms("h100", 8);
  g.block_dispatch_ns = 0.25;
  auto w = make_workload("w", {kernel("k", 9, 32, {1000})}, {launch("a", 0, 0)});
  const auto r = test::run(w, g, "fifo");
  for (const auto& p : r.schedule.pieces) EXPECT_EQ(p.start, (250 * p.block + 999) / 1000) << "block " << p.block;
}

TEST(GpuTiming, GpuFileTimingTable) {
  Warnings warn;
  const auto g = parse_gpu_file(
      "format = \"gpusched-gpu\"\nversion = 1\nname = \"x\"\nbase = \"k40\"\n[timing]\nlaunch_latency_ns = 4000\n"
      "completion_latency_ns = 2500\nlaunch_gap_ns = 1200\nblock_dispatch_ns = 0.4\ngrid_start_interval_ns = 2060\n"
      "source = \"calibrated\"\n"
      "[timing.provenance]\ndevice = \"K40\"\nrepeats = 5\n",
      "x.toml", &warn);
  EXPECT_EQ(g.launch_latency_ns, 4000);
  EXPECT_EQ(g.completion_latency_ns, 2500);
  EXPECT_EQ(g.launch_gap_ns, 1200);
  EXPECT_DOUBLE_EQ(g.block_dispatch_ns, 0.4);
  EXPECT_EQ(g.grid_start_interval_ns, 2060);
  EXPECT_EQ(g.timing_source, "calibrated");
  // Round trip through the writer.
  const auto again = parse_gpu_file(gpu_file_text(g), "again.toml", &warn);
  EXPECT_EQ(again.launch_latency_ns, 4000);
  EXPECT_DOUBLE_EQ(again.block_dispatch_ns, 0.4);
  EXPECT_EQ(again.grid_start_interval_ns, 2060);
}

TEST(GpuTiming, GpuFileBadTiming) {
  Warnings warn;
  const std::string head = "format = \"gpusched-gpu\"\nversion = 1\nname = \"x\"\nbase = \"k40\"\n[timing]\n";
  try {
    (void)parse_gpu_file(head + "launch_latency_ns = -5\n", "bad.toml", &warn);
    FAIL() << "accepted a negative latency";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.toml:6"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("timing.launch_latency_ns"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_gpu_file(head + "block_dispatch_ns = -1.0\n", "bad.toml", &warn), InputError);
  try {
    (void)parse_gpu_file(head + "grid_start_interval_ns = \"2 us\"\n", "bad.toml", &warn);
    FAIL() << "accepted a string interval";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("timing.grid_start_interval_ns"), std::string::npos) << e.what();
  }
  Warnings unknown;  // an unknown key is a warning, as everywhere in the readers
  (void)parse_gpu_file(head + "dispatch = 3\n", "bad.toml", &unknown);
  ASSERT_FALSE(unknown.empty());
  EXPECT_NE(unknown.front().find("timing.dispatch"), std::string::npos) << unknown.front();
}

TEST(GpuTiming, PaperGpusHaveNone) {
  for (const char* name : {"gtx480", "c2050", "gtx680", "k40", "titanx", "chimera-fermi"}) {
    const GpuSpec* g = find_gpu_preset(name);
    ASSERT_NE(g, nullptr) << name;
    EXPECT_FALSE(g->has_timing()) << name;
  }
}

}  // namespace
}  // namespace gpusched

namespace gpusched {
namespace {

TEST(GpuTiming, PresetsUseTheShippedCalibrations) {
  // The h100 and h200 presets carry the timing `gpusched-live calibrate` wrote to traces/gpus/ (docs/live.md).
  for (const char* name : {"h100", "h200"}) {
    Warnings warn;
    const auto file = read_gpu_file(std::string(GPUSCHED_TRACES_DIR) + "/gpus/" + name + ".toml", &warn);
    const GpuSpec* preset = find_gpu_preset(name);
    ASSERT_NE(preset, nullptr);
    EXPECT_TRUE(preset->has_timing()) << name;
    EXPECT_EQ(preset->launch_latency_ns, file.launch_latency_ns) << name;
    EXPECT_EQ(preset->completion_latency_ns, file.completion_latency_ns) << name;
    EXPECT_EQ(preset->launch_gap_ns, file.launch_gap_ns) << name;
    EXPECT_DOUBLE_EQ(preset->block_dispatch_ns, file.block_dispatch_ns) << name;
    EXPECT_EQ(preset->grid_start_interval_ns, file.grid_start_interval_ns) << name;
    EXPECT_TRUE(warn.empty()) << warn.front();
  }
}

}  // namespace
}  // namespace gpusched
