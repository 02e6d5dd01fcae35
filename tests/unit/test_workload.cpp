#include <gtest/gtest.h>

#include <tuple>

#include "core/dependency_order.h"
#include "core/error.h"
#include "core/workload_io.h"
#include "test_helpers.h"

using namespace gpusched;
using gpusched::test::kernel;
using gpusched::test::launch;

TEST(WorkloadDag, StreamOrderAndExplicitEdges) {
  auto k = kernel("k", 1, 32, {10});
  std::vector<Launch> ls{launch("a", 0, 0), launch("b", 0, 0), launch("c", 0, 0, {0}), launch("d", 0, 0)};
  ls[0].stream = "s";
  ls[1].stream = "t";
  ls[3].stream = "s";  // d after a by stream order
  const auto w = make_workload("w", {k}, ls);
  EXPECT_EQ(w.dag.predecessors(2), (std::vector<std::size_t>{0}));
  EXPECT_EQ(w.dag.predecessors(3), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(w.dag.predecessors(1).empty());
  EXPECT_EQ(boost::num_edges(w.dag.graph()), 2u);
  EXPECT_EQ(w.dag.release_order(), (std::vector<std::size_t>{0, 1, 2, 3}));
}

TEST(WorkloadDag, TopologicalOrderPutsDependenciesFirst) {
  auto k = kernel("k", 1, 32, {10});
  const auto w = make_workload("w", {k}, {launch("a", 0, 0, {2}), launch("b", 0, 0), launch("c", 0, 0, {1})});
  EXPECT_EQ(w.dag.release_order(), (std::vector<std::size_t>{1, 2, 0}));
}

TEST(WorkloadDag, CycleNamesItsLaunches) {
  auto k = kernel("k", 1, 32, {10});
  std::vector<Launch> ls{launch("a", 0, 0, {2}), launch("b", 0, 0), launch("c", 0, 0, {0}), launch("d", 0, 0, {3})};
  for (std::size_t i = 0; i < ls.size(); ++i) ls[i].line = static_cast<int>(10 * (i + 1));
  try {
    WorkloadDag::build(ls, "w.toml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "w.toml:10: cyclic dependencies among launches a, c");
  }
  ls[0].after.clear();
  try {
    WorkloadDag::build(ls, "w.toml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "w.toml:40: cyclic dependencies among launches d");  // depends on itself
  }
}

TEST(WorkloadReader, ReadsTheDefaultWorkload) {
  Warnings w;
  const auto wl = read_workload(std::string(GPUSCHED_TRACES_DIR) + "/workloads/default.toml", &w);
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(wl.name, "default");
  EXPECT_EQ(wl.gpu, "gtx480");
  EXPECT_EQ(wl.launches.size(), 8u);
  EXPECT_EQ(wl.launches[1].id, "jpeg-d");
  EXPECT_EQ(wl.launches[1].arrival, 20000);
  EXPECT_EQ(wl.launches[1].tenant, "photos");
  EXPECT_EQ(wl.total_blocks(), 13149);
}

TEST(WorkloadReader, DependenciesMayNameLaterLaunchesAndDeadlinesParse) {
  Warnings w;
  const std::string base = std::string(GPUSCHED_TEST_DATA) + "/small";
  const auto wl = parse_workload(
      "format = \"gpusched-workload\"\nversion = 1\n[kernels]\na = \"small-a.kernel.toml\"\n"
      "[[launch]]\nid = \"x\"\nkernel = \"a\"\nafter = [\"y\"]\ndeadline_ns = 5000\n"
      "[[launch]]\nid = \"y\"\nkernel = \"a\"\n",
      "w.toml", base, &w);
  EXPECT_EQ(wl.launches[0].after, (std::vector<std::size_t>{1}));
  EXPECT_EQ(*wl.launches[0].deadline, 5000);
  EXPECT_EQ(wl.dag.release_order(), (std::vector<std::size_t>{1, 0}));
}

TEST(WorkloadReader, RoundTripThroughText) {
  Warnings w;
  const std::string base = std::string(GPUSCHED_TEST_DATA) + "/small";
  const auto wl = read_workload(base + "/small.toml", &w);
  const auto text = workload_file_text(wl, {"small-a.kernel.toml", "small-b.kernel.toml", "small-c.kernel.toml"});
  const auto back = parse_workload(text, "again.toml", base, &w);
  ASSERT_EQ(back.launches.size(), wl.launches.size());
  for (std::size_t i = 0; i < wl.launches.size(); ++i) {
    EXPECT_EQ(back.launches[i].id, wl.launches[i].id);
    EXPECT_EQ(back.launches[i].arrival, wl.launches[i].arrival);
    EXPECT_EQ(back.launches[i].after, wl.launches[i].after);
    EXPECT_EQ(back.launches[i].priority, wl.launches[i].priority);
  }
}

TEST(WorkloadIo, BlockCoalescedIsWrittenOnlyWhenSet) {
  // Written only when set, read back as set; absent means false.
  auto k = gpusched::test::kernel("k", 4, 128, {100});
  auto l = gpusched::test::launch("x", 0, 0);
  l.block_coalesced = true;
  const auto w = gpusched::make_workload("w", {k}, {l, gpusched::test::launch("y", 0, 0)});
  const std::string text = gpusched::workload_file_text(w, {"k.kernel.toml"});
  EXPECT_NE(text.find("block_coalesced = true"), std::string::npos);
  EXPECT_EQ(text.find("block_coalesced"), text.rfind("block_coalesced"));  // once: y has the default
}

// An execution keeps its dependencies when no launch starts a block before its predecessors' last blocks end
// (gpusched-live validate checks every execution so).
TEST(DependencyOrder, ALaunchStartingBeforeItsPredecessorEndedIsABreach) {
  auto k = kernel("k", 1, 32, {10});
  // a -> c (after), a -> d (stream s); b is free.
  std::vector<Launch> ls{launch("a", 0, 0), launch("b", 0, 0), launch("c", 0, 0, {0}), launch("d", 0, 0)};
  ls[0].stream = "s";
  ls[3].stream = "s";
  const auto w = make_workload("w", {k}, ls);
  // Each launch's first block and finish, as a run's record keeps them (-1: it ran nothing).
  const auto ran = [](std::vector<std::pair<TimeNs, TimeNs>> spans) {
    std::vector<LaunchOutcome> out(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) std::tie(out[i].first_dispatch, out[i].finish) = spans[i];
    return out;
  };
  // a's blocks run [0, 100) and [40, 140); b runs beside it [50, 60); c starts at 140 (on time: its first start = a's
  // last end); d's blocks run [120, 180) and [150, 190): it starts 20 ns before a's last block ended at 140.
  const auto breaches = dependency_breaches(w, ran({{0, 140}, {50, 60}, {140, 200}, {120, 190}}));
  ASSERT_EQ(breaches.size(), 1u);
  EXPECT_EQ(breaches[0].launch, 3);
  EXPECT_EQ(breaches[0].predecessor, 0);
  EXPECT_EQ(breaches[0].early, 20);  // 140 - 120
  // A launch that ran nothing breaks nothing, and nor does a predecessor that ran nothing.
  EXPECT_TRUE(dependency_breaches(w, ran({{-1, -1}, {-1, -1}, {0, 10}, {0, 10}})).empty());
}
