// Share-a-GPU's time-sharing (seed 004), worked by hand: two tenants in round robin with their state saved
// and restored over PCIe, double buffering, device memory capacity, no transfer when nobody waits, a slice
// below Eq. 1's bound, several GPUs, and the phases as a golden file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "sim/timeline.h"
#include "test_helpers.h"

using namespace gpusched;

namespace {

// One SM of an H100 (1024-thread blocks: two per SM, so a 2-block micro-kernel is one wave); PCIe 1 GB/s
// = 1 byte/ns; no launch or registration overhead.
struct Tenant {
  std::string id;
  int blocks;
  std::int64_t footprint, dirty;
  TimeNs arrival = 0;
  TimeNs block_ns = 1000;
  bool coalesced = false;
};

struct Case {
  Workload w;
  GpuSpec gpu;
  RunResult r;
};

Case run_tenants(const std::vector<Tenant>& tenants, std::int64_t memory, int sms = 1, int gpus = 1,
                 std::int64_t mk_blocks = 2, const std::string& intra_kernel = "always") {
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  std::vector<Launch> launches;
  for (const auto& t : tenants) {
    auto k = test::kernel(t.id, t.blocks, 1024, {t.block_ns});
    k->memory_footprint_bytes = t.footprint;
    k->dirty_bytes = t.dirty;
    auto l = test::launch(t.id, kernels.size(), t.arrival);
    l.tenant = t.id;
    l.block_coalesced = t.coalesced;
    kernels.push_back(k);
    launches.push_back(l);
  }
  Case c{make_workload("tenants", kernels, launches), test::gpu_with_sms("h100", sms), {}};
  c.gpu.memory_bytes = memory;
  c.r = test::run(c.w, c.gpu, "timeshare", 1, gpus,
                  {{"microkernel_blocks", std::to_string(mk_blocks)},
                   {"microkernel_overhead_us", "0"},
                   {"registration_us", "0"},
                   {"pcie_gbps", "1"},
                   {"first_restore", "upload"},
                   {"intra_kernel", intra_kernel}});
  EXPECT_EQ(test::check_invariants(c.w, c.gpu, c.r), "");
  return c;
}

std::vector<PhaseSpan> phases_of(const RunResult& r, int launch, PhaseState state) {
  std::vector<PhaseSpan> out;
  for (const auto& p : r.schedule.phases)
    if (p.launch == launch && p.state == state) out.push_back(p);
  std::sort(out.begin(), out.end(), [](const PhaseSpan& a, const PhaseSpan& b) { return a.start < b.start; });
  return out;
}

double metric(const RunResult& r, const std::string& name) {
  return policy_metric(r, name, -1);
}

// Device memory in use over time, from the phases: an instance holds its footprint from the start of its
// restore to the end of its save (or of its last micro-kernel).
std::int64_t peak_memory(const Case& c) {
  std::vector<std::pair<TimeNs, std::int64_t>> deltas;
  for (std::size_t l = 0; l < c.w.launches.size(); ++l) {
    const auto bytes = c.w.kernel_of(l).memory_footprint_bytes;
    TimeNs held_from = -1, last_end = -1;
    std::vector<PhaseSpan> mine;
    for (const auto& p : c.r.schedule.phases)
      if (p.launch == static_cast<int>(l) && p.gpu >= 0) mine.push_back(p);
    std::sort(mine.begin(), mine.end(), [](const PhaseSpan& a, const PhaseSpan& b) { return a.start < b.start; });
    for (const auto& p : mine) {
      if (p.state == PhaseState::RestoreState) {
        if (held_from >= 0) deltas.emplace_back(last_end, -bytes);
        held_from = p.start;
        deltas.emplace_back(p.start, bytes);
      }
      last_end = p.end;
    }
    if (held_from >= 0) deltas.emplace_back(last_end, -bytes);
  }
  std::sort(deltas.begin(), deltas.end());  // releases before acquisitions at equal times
  std::int64_t used = 0, peak = 0;
  for (const auto& [t, d] : deltas) peak = std::max(peak, used += d);
  return peak;
}

}  // namespace

TEST(Timeshare, TwoTenantsRoundRobinWithSwapping) {
  // A: 6 blocks (3 micro-kernels of 2), 300 B of state of which 100 dirty; B: 4 blocks (2 micro-kernels),
  // 200 B all dirty. Both arrive at 0; memory is ample.
  //   0- 300 A restores 300 B                 300-1300 A micro-kernel 1
  // 300- 500 B restores 200 B (overlaps A)    1300-2300 B micro-kernel 1 (B was ready: A yields)
  // 1300-1400 A saves 100 B; 1400-1700 A restores 300 B (overlaps B)
  // 2300-2500 B saves 200 B                    2300-3300 A micro-kernel 2
  // 2500-2700 B restores 200 B                 3300-4300 B micro-kernel 2 (its last)
  // 3300-3400 A saves; 3400-3700 A restores    4300-5300 A micro-kernel 3 (its last; nobody waits: no save)
  // 4300-4500 B saves 200 B (Algorithm 1 saves after every micro-kernel while another launch waits)
  const auto c = run_tenants({{"A", 6, 300, 100}, {"B", 4, 200, 200}}, 1 << 20);
  const auto runs_a = phases_of(c.r, 0, PhaseState::Running), runs_b = phases_of(c.r, 1, PhaseState::Running);
  ASSERT_EQ(runs_a.size(), 3u);
  ASSERT_EQ(runs_b.size(), 2u);
  EXPECT_EQ(runs_a[0].start, 300);
  EXPECT_EQ(runs_b[0].start, 1300);
  EXPECT_EQ(runs_a[1].start, 2300);
  EXPECT_EQ(runs_b[1].start, 3300);
  EXPECT_EQ(runs_a[2].start, 4300);
  EXPECT_EQ(c.r.launches[1].finish, 4300);
  EXPECT_EQ(c.r.launches[0].finish, 5300);
  const auto restores_b = phases_of(c.r, 1, PhaseState::RestoreState);
  ASSERT_EQ(restores_b.size(), 2u);
  EXPECT_EQ(restores_b[0].start, 300);  // double buffering: while A runs
  EXPECT_EQ(restores_b[0].end, 500);
  EXPECT_EQ(restores_b[1].start, 2500);
  const auto saves_a = phases_of(c.r, 0, PhaseState::SaveState);
  ASSERT_EQ(saves_a.size(), 2u);
  EXPECT_EQ(saves_a[0].start, 1300);
  EXPECT_EQ(saves_a[0].end, 1400);
  EXPECT_DOUBLE_EQ(metric(c.r, "bytes_to_host"), 100 + 200 + 100 + 200);
  EXPECT_DOUBLE_EQ(metric(c.r, "slices.A"), 3);
  EXPECT_DOUBLE_EQ(metric(c.r, "slice_share.B"), 0.4);  // 2 of 5
  EXPECT_DOUBLE_EQ(metric(c.r, "bytes_to_device"), 3 * 300 + 2 * 200);
  // Eq. 1: the largest dirty state saved (B: 200) + the largest state restored (A: 300) over 1 B/ns.
  EXPECT_DOUBLE_EQ(metric(c.r, "slice_lower_bound_ns"), 500);
  // The phases as a golden file: the overlap of one tenant's transfers with the other's micro-kernels.
  const auto golden = std::string(GPUSCHED_GOLDEN_DIR) + "/timeshare-two-tenants.phases.csv";
  const auto out = (std::filesystem::temp_directory_path() / "timeshare-two-tenants.phases.csv").string();
  sim::write_phases_csv(out, c.r.schedule, c.w);
  if (std::getenv("GPUSCHED_UPDATE_GOLDEN"))
    std::filesystem::copy_file(out, golden, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(test::read_file(out), test::read_file(golden));
}

TEST(Timeshare, FirstRestoreIsFreeWhenTheDataStartsOnTheDevice) {
  // The two tenants of TwoTenantsRoundRobinWithSwapping under first_restore=free (the default: the data of a
  // launch is on the device when it arrives, as every other policy assumes). A's first restore moves nothing: its
  // first micro-kernel runs 0-1000 instead of 300-1300. B's first restore is free too, so B is ready at once and
  // runs 1000-2000 while A saves 100 B (1000-1100) and restores 300 B (1100-1400). A runs 2000-3000, B saves 200 B
  // (2000-2200) and restores it (2200-2400), runs 3000-4000 (its last); A saves (3000-3100), restores (3100-3400)
  // and runs 4000-5000: each launch finishes 300 ns earlier. Restored bytes: 900 + 400 - 300 - 200 = 800.
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  std::vector<Launch> launches;
  for (const auto& [id, blocks, footprint, dirty] :
       std::vector<std::tuple<std::string, int, std::int64_t, std::int64_t>>{{"A", 6, 300, 100}, {"B", 4, 200, 200}}) {
    auto k = test::kernel(id, blocks, 1024, {1000});
    k->memory_footprint_bytes = footprint;
    k->dirty_bytes = dirty;
    auto l = test::launch(id, kernels.size(), 0);
    l.tenant = id;
    kernels.push_back(k);
    launches.push_back(l);
  }
  const auto w = make_workload("tenants", kernels, launches);
  GpuSpec gpu = test::gpu_with_sms("h100", 1);
  gpu.memory_bytes = 1 << 20;
  const auto r = test::run(
      w, gpu, "timeshare", 1, 1,
      {{"microkernel_blocks", "2"}, {"microkernel_overhead_us", "0"}, {"registration_us", "0"}, {"pcie_gbps", "1"}});
  EXPECT_EQ(test::check_invariants(w, gpu, r), "");
  const auto runs_a = phases_of(r, 0, PhaseState::Running), runs_b = phases_of(r, 1, PhaseState::Running);
  ASSERT_EQ(runs_a.size(), 3u);
  ASSERT_EQ(runs_b.size(), 2u);
  EXPECT_EQ(runs_a[0].start, 0);
  EXPECT_EQ(runs_b[0].start, 1000);
  EXPECT_EQ(runs_a[1].start, 2000);
  EXPECT_EQ(runs_b[1].start, 3000);
  EXPECT_EQ(runs_a[2].start, 4000);
  EXPECT_EQ(r.launches[1].finish, 4000);
  EXPECT_EQ(r.launches[0].finish, 5000);
  EXPECT_DOUBLE_EQ(metric(r, "bytes_to_device"), 800);
}

TEST(Timeshare, DeviceMemoryCapacityIsRespected) {
  // 450 B of device memory: A (300) and B (200) cannot both be there, so B restores only after A saved:
  //  0- 300 A restores, 300-1300 A runs; 1300-1400 A saves (B needs the memory), the GPU idles;
  // 1400-1600 B restores, 1600-2600 B runs; ...
  const auto c = run_tenants({{"A", 6, 300, 100}, {"B", 4, 200, 200}}, 450);
  EXPECT_LE(peak_memory(c), 450);
  const auto restores_b = phases_of(c.r, 1, PhaseState::RestoreState);
  ASSERT_FALSE(restores_b.empty());
  EXPECT_EQ(restores_b[0].start, 1400);
  EXPECT_EQ(phases_of(c.r, 1, PhaseState::Running)[0].start, 1600);
  // With ample memory the peak is both at once.
  EXPECT_EQ(peak_memory(run_tenants({{"A", 6, 300, 100}, {"B", 4, 200, 200}}, 1 << 20)), 500);
  // A launch that cannot fit at all is an input error.
  EXPECT_THROW(run_tenants({{"A", 2, 600, 0}}, 450), std::invalid_argument);
}

TEST(Timeshare, NoTransferWhenNobodyWaits) {
  // A alone: restored once (0-300), then its three micro-kernels back to back, nothing saved.
  const auto c = run_tenants({{"A", 6, 300, 100}}, 1 << 20);
  const auto runs = phases_of(c.r, 0, PhaseState::Running);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[1].start, runs[0].end);
  EXPECT_EQ(c.r.launches[0].finish, 300 + 3000);
  EXPECT_DOUBLE_EQ(metric(c.r, "bytes_to_host"), 0);
}

TEST(Timeshare, SliceBelowTheBoundSkewsTheShares) {
  // A: 100 B of state, all dirty; B: 1500 B, all dirty; 1 B/ns. While A runs a slice, B saves (1500 ns)
  // and then restores (1500 ns): Eq. 1's bound is 3000 ns. One-wave micro-kernels (1000 ns) are below it:
  // B is not ready when A's micro-kernel ends, so A runs again (nobody is ready to take the GPU) and gets
  // about three slices for each of B's. Four-wave micro-kernels (4000 ns) are above it: strict alternation.
  auto count_slices_while_both = [](const RunResult& r) {
    const TimeNs both_until = std::min(r.launches[0].finish, r.launches[1].finish);
    int a = 0, b = 0;
    for (const auto& p : r.schedule.phases)
      if (p.state == PhaseState::Running && p.end <= both_until) (p.launch == 0 ? a : b)++;
    return std::make_pair(a, b);
  };
  const auto short_slices = run_tenants({{"A", 96, 100, 100}, {"B", 96, 1500, 1500}}, 1 << 20, 1, 1, 2);
  EXPECT_DOUBLE_EQ(metric(short_slices.r, "slice_lower_bound_ns"), 3000);
  const auto [a1, b1] = count_slices_while_both(short_slices.r);
  EXPECT_GE(a1, 2 * b1) << a1 << " / " << b1;
  const auto long_slices = run_tenants({{"A", 96, 100, 100}, {"B", 96, 1500, 1500}}, 1 << 20, 1, 1, 8);
  const auto [a2, b2] = count_slices_while_both(long_slices.r);
  EXPECT_LE(std::abs(a2 - b2), 1) << a2 << " / " << b2;
}

TEST(Timeshare, TwoGpusRunTwoTenantsAtOnceAndSplitCoalescedLaunches) {
  // Two GPUs of one SM: A and B each get a GPU and never switch. Their restores share the node's PCIe
  // link: A 0-300, B 300-500; each then runs two 1000 ns micro-kernels.
  const auto two = run_tenants({{"A", 4, 300, 100}, {"B", 4, 200, 200}}, 1 << 20, 1, 2);
  EXPECT_EQ(two.r.launches[0].finish, 300 + 2000);
  EXPECT_EQ(two.r.launches[1].finish, 500 + 2000);
  EXPECT_DOUBLE_EQ(metric(two.r, "bytes_to_host"), 0);
  // One block-coalesced launch of 8 blocks (800 B): each GPU's instance holds its micro-kernel's share
  // (2 of 8 blocks: 200 B). GPU 0 restores 0-200, GPU 1 200-400 (one shared link); 4 micro-kernels
  // between them: GPU 0 runs 200-1200 and 1200-2200, GPU 1 400-1400 and 1400-2400.
  const auto split = run_tenants({{"A", 8, 800, 0, 0, 1000, true}}, 1 << 20, 1, 2);
  EXPECT_EQ(split.r.launches[0].finish, 2400);
  // The same launch not coalesced runs on one GPU: 800 B restore, then 4 micro-kernels: 4800.
  const auto whole = run_tenants({{"A", 8, 800, 0}}, 1 << 20, 1, 2);
  EXPECT_EQ(whole.r.launches[0].finish, 4800);
}

TEST(Timeshare, IntraKernelOnlyOnAnIdleGpu) {
  // Two GPUs of one SM, no data. At 0 L (one 10 us micro-kernel) is prepared on GPU 0 and A (block-coalesced, 16
  // blocks: 8 micro-kernels of 1 us) on GPU 1, where it starts; A asks for another GPU and gets GPU 0's prepare
  // slot behind L (A#2: one micro-kernel, 10000-11000), and asks again: its request heads the queue but no GPU
  // can take it (A is on both). B (one 1 us micro-kernel) arrives at 1: queue [A, B].
  const std::vector<Tenant> t{{"L", 2, 0, 0, 0, 10000}, {"A", 16, 0, 0, 0, 1000, true}, {"B", 2, 0, 0, 1, 1000}};
  // always: A's request blocks the head. With nobody ready on GPU 1, A runs its micro-kernels there back to back,
  // 0-7000 (7 of 8; A#2 holds the eighth). At 6000 the seventh is dispatched, nothing of A is unclaimed, its
  // request is dropped, B is prepared on GPU 1 and runs 7000-8000.
  const auto always = run_tenants(t, 1 << 20, 1, 2, 2, "always");
  EXPECT_EQ(always.r.launches[2].finish, 8000);
  // idle: A is in service on GPU 0 (A#2 prepared), so B's request is served first: prepared on GPU 1 at 1, ready
  // when A's first micro-kernel ends; A yields and B runs 1000-2000.
  const auto idle = run_tenants(t, 1 << 20, 1, 2, 2, "idle");
  EXPECT_EQ(idle.r.launches[2].finish, 2000);
  // On one GPU the rule changes nothing (no other GPU to be idle).
  EXPECT_EQ(run_tenants(t, 1 << 20, 1, 1, 2, "always").r.launches[2].finish,
            run_tenants(t, 1 << 20, 1, 1, 2, "idle").r.launches[2].finish);
}

TEST(Timeshare, IntraKernelParameterIsChecked) {
  const auto k = test::kernel("k", 2, 1024, {1000});
  const auto w = make_workload("w", {k}, {test::launch("k", 0, 0)});
  EXPECT_THROW(test::run(w, test::gpu_with_sms("h100", 1), "timeshare", 1, 2, {{"intra_kernel", "sometimes"}}),
               std::invalid_argument);
}
