// The executor's plan (live/executor/plan.h) and measured runs (live/executor/measured_run.h), by hand: no GPU.
#include <gtest/gtest.h>

#include "live/executor/measured_run.h"
#include "live/executor/plan.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::live;
using namespace gpusched::test;

// Two launches on two SMs. SM 0: A0 [0,10), A1 [0,10), B0 [5,15), A2 [10,20), B1 [12,30): A has at most 2 resident,
// B at most 2 (B0 and B1 overlap on [12,15)). SM 1: A3 [0,8) flushed, A3 again [8,18).
TEST(ExecutionPlan, QueuesInStartOrderWithQuotasKindsAndGates) {
  Schedule s;
  s.pieces = {piece(0, 10, 0, 0, 0),  piece(0, 10, 0, 1, 0),  piece(5, 15, 1, 0, 0),
              piece(10, 20, 0, 2, 0), piece(12, 30, 1, 1, 0), piece(0, 8, 0, 3, 1, PieceOutcome::Flushed),
              piece(8, 18, 0, 3, 1)};
  const auto plan = build_execution_plan(s, 2, 2);
  ASSERT_EQ(plan.launches.size(), 2u);
  const auto& a = plan.launches[0];
  // A's queue: SM 0 holds blocks 0, 1, 2 (start order, ties by end then block), SM 1 block 3 twice.
  ASSERT_EQ(a.sm_begin, (std::vector<std::int32_t>{0, 3, 5}));
  EXPECT_EQ(a.entries[0].block, 0);
  EXPECT_EQ(a.entries[1].block, 1);
  EXPECT_EQ(a.entries[2].block, 2);
  EXPECT_EQ(a.entries[3].block, 3);
  EXPECT_EQ(a.entries[3].kind, static_cast<int>(EntryKind::Flush));
  EXPECT_EQ(a.entries[3].budget_ns, 8);  // the flushed piece ran 8 ns in the plan
  EXPECT_EQ(a.entries[4].kind, static_cast<int>(EntryKind::Run));
  // Quotas: SM 0 has A0 and A1 together (A2 starts at 10 when both ended: an end closes before a start opens) = 2;
  // SM 1 one at a time.
  EXPECT_EQ(a.sm_quota, (std::vector<std::int32_t>{2, 1}));
  EXPECT_TRUE(a.stops);
  EXPECT_FALSE(a.switches);
  const auto& b = plan.launches[1];
  ASSERT_EQ(b.sm_begin, (std::vector<std::int32_t>{0, 2, 2}));
  EXPECT_EQ(b.sm_quota, (std::vector<std::int32_t>{2, 0}));
  // Gates on SM 0, start order A0 A1 B0 A2 B1: A0 and A1 have none; B0 waits for A1 (A's entry 1); A2 for B0 (B's
  // entry 0); B1 for A2 (A's entry 2).
  EXPECT_EQ(a.entries[0].gate_launch, -1);
  EXPECT_EQ(a.entries[1].gate_launch, -1);
  EXPECT_EQ(b.entries[0].gate_launch, 0);
  EXPECT_EQ(b.entries[0].gate_entry, 1);
  EXPECT_EQ(a.entries[2].gate_launch, 1);
  EXPECT_EQ(a.entries[2].gate_entry, 0);
  EXPECT_EQ(b.entries[1].gate_launch, 0);
  EXPECT_EQ(b.entries[1].gate_entry, 2);
  // SM 1 has only A: no gates.
  EXPECT_EQ(a.entries[3].gate_launch, -1);
  EXPECT_EQ(a.entries[4].gate_launch, -1);
}

TEST(ExecutionPlan, RefusesOtherGpusAndMissingSms) {
  Schedule s;
  s.pieces = {piece(0, 1, 0, 0, 0)};
  s.pieces[0].gpu = 1;
  EXPECT_THROW(build_execution_plan(s, 1, 4), std::invalid_argument);
  s.pieces[0].gpu = 0;
  s.pieces[0].sm = 4;
  EXPECT_THROW(build_execution_plan(s, 1, 4), std::invalid_argument);
  s.pieces[0].sm = 0;
  s.pieces[0].launch = 1;
  EXPECT_THROW(build_execution_plan(s, 1, 4), std::invalid_argument);
}

TEST(ExecutionPlan, AloneQueuesDealBlocksRoundRobin) {
  const auto q = alone_queues(5, 2, 3, EntryKind::Switch);
  ASSERT_EQ(q.sm_begin, (std::vector<std::int32_t>{0, 3, 5}));  // SM 0: 0 2 4, SM 1: 1 3
  EXPECT_EQ(q.entries[1].block, 2);
  EXPECT_EQ(q.entries[3].block, 1);
  EXPECT_EQ(q.sm_quota, (std::vector<std::int32_t>{3, 3}));
  EXPECT_TRUE(q.switches);
}

TEST(ExecutionPlan, AloneQueuesStartInBlockOrderAndCanBePlacedByTheHardware) {
  // 5 blocks on 2 SMs: SM 0 holds blocks 0 2 4 (entries 0 1 2), SM 1 blocks 1 3 (entries 3 4). Block order is
  // entries 0 3 1 4 2.
  const auto q = alone_queues(5, 2, 3);
  EXPECT_EQ(q.start_order, (std::vector<std::int32_t>{0, 3, 1, 4, 2}));
  EXPECT_TRUE(q.gpu_to_itself);
  EXPECT_TRUE(hardware_placed(q, 3));   // the plan keeps 3 per SM, the kernel's residency
  EXPECT_TRUE(hardware_placed(q, 2));   // the hardware places fewer: nothing the plan asks is lost
  EXPECT_FALSE(hardware_placed(q, 4));  // the hardware would put 4 where the plan keeps 3
  EXPECT_FALSE(hardware_placed(alone_queues(5, 2, 3, EntryKind::Flush), 3));  // stopped pieces need queues
  EXPECT_FALSE(alone_queues(1, 2, 3).gpu_to_itself);                          // SM 1 has nothing
}

// One launch on 2 SMs: SM 0 runs blocks 0 [0,10) and 2 [10,20), SM 1 block 1 [0,12) and block 3 [5,9). Start order
// (start, then end, then SM): b0 (0,10,SM0), b1 (0,12,SM1), b3 (5,9,SM1), b2 (10,20,SM0). Entries: SM 0 = b0, b2
// (0, 1); SM 1 = b1, b3 (2, 3): start order 0 2 3 1. Quotas: SM 0 one at a time; SM 1 two ([5,9) inside [0,12)).
TEST(ExecutionPlan, StartOrderAndTheGpuToItself) {
  Schedule s;
  s.pieces = {piece(0, 10, 0, 0, 0), piece(10, 20, 0, 2, 0), piece(0, 12, 0, 1, 1), piece(5, 9, 0, 3, 1)};
  const auto alone = build_execution_plan(s, 1, 2);
  const auto& q = alone.launches[0];
  EXPECT_EQ(q.start_order, (std::vector<std::int32_t>{0, 2, 3, 1}));
  EXPECT_EQ(q.sm_quota, (std::vector<std::int32_t>{1, 2}));
  EXPECT_TRUE(q.gpu_to_itself);
  EXPECT_TRUE(hardware_placed(q, 1));
  EXPECT_FALSE(hardware_placed(q, 2));  // SM 0 kept one at a time where the hardware would place two
  // On 3 SMs it leaves SM 2 empty: not the GPU to itself.
  EXPECT_FALSE(build_execution_plan(s, 1, 3).launches[0].gpu_to_itself);
  // A second launch with a piece anywhere: neither has the GPU to itself.
  s.pieces.push_back(piece(30, 40, 1, 0, 1));
  const auto two = build_execution_plan(s, 2, 2);
  EXPECT_FALSE(two.launches[0].gpu_to_itself);
  EXPECT_FALSE(two.launches[1].gpu_to_itself);
  EXPECT_FALSE(hardware_placed(two.launches[0], 1));
  // A launch of the workload the plan never ran (killed before it started) does not share the GPU.
  s.pieces.pop_back();
  EXPECT_TRUE(build_execution_plan(s, 2, 2).launches[0].gpu_to_itself);
}

// Measured pieces of two launches, B depending on A. A arrives at 0: blocks [10,110) and [20,150); B arrives at 50
// but is released when A finishes at 150: blocks [160,200) [160,260). Alone: A 100, B 80.
// A: turnaround 150 - 0 = 150, slowdown 1.5; B: release 150, finish 260, turnaround 110, slowdown 110/80 = 1.375.
// STP = 1/1.5 + 1/1.375 = 0.6667 + 0.7273 = 1.3939; ANTT = (1.5 + 1.375) / 2 = 1.4375; makespan = 260 - 0.
// Busy: SM 0 [10,110) [160,200) = 140, SM 1 [20,150) [160,260) = 230: (140 + 230) / (2 SMs x 260) = 0.7115.
TEST(MeasuredRun, MetricsFromMeasuredPiecesByHand) {
  auto ka = kernel("a", 2, 128, {100});
  auto kb = kernel("b", 2, 128, {80});
  auto w = make_workload("w", {ka, kb}, {launch("A", 0, 0), launch("B", 1, 50, {0})});
  GpuSpec gpu = gpu_with_sms("h100", 2);
  RunResult predicted;
  predicted.policy = "fifo";
  predicted.launches.resize(2);
  predicted.metrics.bound_area = 120;
  Schedule m;
  m.pieces = {piece(10, 110, 0, 0, 0), piece(20, 150, 0, 1, 1), piece(160, 200, 1, 0, 0), piece(160, 260, 1, 1, 1)};
  const auto r = measured_run(w, gpu, m, {100, 80}, predicted);
  ASSERT_EQ(r.launches.size(), 2u);
  EXPECT_EQ(r.launches[0].turnaround, 150);
  EXPECT_EQ(r.launches[1].release, 150);
  EXPECT_EQ(r.launches[1].turnaround, 110);
  EXPECT_EQ(r.launches[1].first_dispatch, 160);
  EXPECT_NEAR(r.metrics.stp, 1.0 / 1.5 + 80.0 / 110.0, 1e-9);
  EXPECT_NEAR(r.metrics.antt, (1.5 + 110.0 / 80.0) / 2, 1e-9);
  EXPECT_EQ(r.metrics.makespan, 260);
  EXPECT_NEAR(r.metrics.sm_utilization, 370.0 / 520.0, 1e-9);
  EXPECT_EQ(r.metrics.bound_area, 120);  // the prediction's
  EXPECT_EQ(r.schedule.pieces.size(), 4u);
}

// A flushed piece is wasted work and a preemption; a launch with no piece that ran to its end is an error.
TEST(MeasuredRun, FlushedPiecesAndMissingLaunches) {
  auto ka = kernel("a", 1, 128, {100});
  auto w = make_workload("w", {ka}, {launch("A", 0, 0)});
  GpuSpec gpu = gpu_with_sms("h100", 1);
  RunResult predicted;
  predicted.launches.resize(1);
  Schedule m;
  m.pieces = {piece(0, 30, 0, 0, 0, PieceOutcome::Flushed), piece(40, 140, 0, 0, 0)};
  const auto r = measured_run(w, gpu, m, {100}, predicted);
  EXPECT_EQ(r.metrics.preemptions, 1);
  EXPECT_EQ(r.metrics.wasted_work, 30);
  Schedule only_flushed;
  only_flushed.pieces = {piece(0, 30, 0, 0, 0, PieceOutcome::Flushed)};
  EXPECT_THROW(measured_run(w, gpu, only_flushed, {100}, predicted), std::invalid_argument);
  EXPECT_THROW(measured_run(w, gpu, m, {}, predicted), std::invalid_argument);
}

// Worker grids: 8 workers on each of 132 SMs = 1,056 resident; workers leaving after 8 entries add one fresh worker
// per 8 of the launch's 16,384 entries (2,048), 16,385 entries need 2,049 (rounded up).
TEST(ExecutionPlan, WorkerGridBlocks) {
  EXPECT_EQ(worker_grid_blocks(8, 132, 16384, 0), 1056);  // persistent workers: the resident ones only
  EXPECT_EQ(worker_grid_blocks(8, 132, 16384, 8), 1056 + 2048);
  EXPECT_EQ(worker_grid_blocks(8, 132, 16385, 8), 1056 + 2049);
  EXPECT_EQ(worker_grid_blocks(5, 30, 0, 8), 150);  // a green context of 30 SMs, no entries
}

TEST(ExecutionPlan, APiecePartQueueStopsWhatThePlanStopsAfterItsPlannedDuration) {
  // Launch 0's pieces: block 1 switched out after 40 ns, block 0 run whole, block 1 resumed; two parts, the first
  // holding pieces 1 and 0 (in that order: the part's start order), the second piece 2.
  Schedule plan;
  plan.pieces.push_back(BlockPiece{10, 50, 0, 1, 0, 1, PieceOutcome::SwitchedOut});
  plan.pieces.push_back(BlockPiece{0, 60, 0, 0, 0, 0});
  plan.pieces.push_back(BlockPiece{100, 150, 0, 1, 0, 1, PieceOutcome::SwitchedIn});
  sim::PlannedPieces first, second;
  first.pieces = {1, 0};
  second.pieces = {2};
  const LaunchQueues q = piece_part_queue(plan, {first, second});
  ASSERT_EQ(q.entries.size(), 3u);
  EXPECT_EQ(q.plan_piece, (std::vector<std::size_t>{1, 0, 2}));
  EXPECT_EQ(q.entries[0].block, 0);
  EXPECT_EQ(q.entries[0].kind, static_cast<std::int32_t>(EntryKind::Run));
  EXPECT_EQ(q.entries[0].budget_ns, 0);
  EXPECT_EQ(q.entries[1].block, 1);
  EXPECT_EQ(q.entries[1].kind, static_cast<std::int32_t>(EntryKind::Switch));
  EXPECT_EQ(q.entries[1].budget_ns, 40);  // 50 - 10
  EXPECT_EQ(q.entries[2].kind, static_cast<std::int32_t>(EntryKind::Run));
  EXPECT_TRUE(q.stops);
  EXPECT_TRUE(q.switches);
}

TEST(ExecutionPlan, OnlyPartsWithAStoppedPieceOrABlockOfSeveralPiecesClaimTheirBlocks) {
  // Launch 0: block 1 switched out (10-50) and resumed (100-150), blocks 0, 2 and 3 run whole. Parts: {block 0},
  // {block 1's first piece}, {blocks 2 and 3}, {block 1's second piece}. The first and third hold only blocks with
  // one piece, run whole: no claim. The second is stopped; the fourth resumes a block another piece ran: both claim.
  Schedule plan;
  plan.pieces.push_back(BlockPiece{0, 60, 0, 0, 0, 0});
  plan.pieces.push_back(BlockPiece{10, 50, 0, 1, 0, 1, PieceOutcome::SwitchedOut});
  plan.pieces.push_back(BlockPiece{60, 90, 0, 2, 0, 0});
  plan.pieces.push_back(BlockPiece{60, 95, 0, 3, 0, 2});
  plan.pieces.push_back(BlockPiece{100, 150, 0, 1, 0, 1, PieceOutcome::SwitchedIn});
  std::vector<sim::PlannedPieces> parts(4);
  parts[0].pieces = {0};
  parts[1].pieces = {1};
  parts[2].pieces = {2, 3};
  parts[3].pieces = {4};
  const LaunchQueues q = piece_part_queue(plan, parts);
  EXPECT_EQ(parts_needing_claims(q, parts), (std::vector<bool>{false, true, false, true}));
  // A killed piece is stopped though its block has no other piece: claimed.
  plan.pieces[0].outcome = PieceOutcome::Killed;
  EXPECT_EQ(parts_needing_claims(piece_part_queue(plan, parts), parts), (std::vector<bool>{true, true, false, true}));
  // Parts that are not the queue's are refused.
  parts.pop_back();
  EXPECT_THROW(parts_needing_claims(q, parts), std::invalid_argument);
}
