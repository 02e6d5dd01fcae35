// Hand-worked single-SM cases for the engine's preemption actions, driven by a scripted test policy.
// One SM of an H100; blocks of 1024 threads (two fit); kernel A has 2 blocks of 1000 ns.
#include <gtest/gtest.h>

#include <functional>

#include "sim/policy.h"
#include "test_helpers.h"

using namespace gpusched;
using namespace gpusched::sim;

namespace {

struct Recorder final : EngineObserver {
  void on_piece(const BlockPiece& p) override { pieces.push_back(p); }
  std::vector<BlockPiece> pieces;
};

// Dispatches launch 0 greedily; at `at` runs `act` once.
class Scripted final : public Policy {
 public:
  Scripted(TimeNs at, std::function<void(const EngineView&, Actions&)> act) : at_(at), act_(std::move(act)) {}
  std::string name() const override { return "scripted"; }
  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    for (const auto& e : events) {
      if (e.kind == EventKind::LaunchReleased) a.set_timer(at_, 1);
      if (e.kind == EventKind::Timer) act_(v, a);
      if (e.kind == EventKind::SmDrained) {
        drained_at = v.now();
        a.undrain_sm(e.sm);
      }
    }
    if (!v.active().empty()) {
      const auto n = v.room_for(0, 0);
      if (n > 0) a.dispatch(0, 0, n);
    }
  }
  TimeNs drained_at = -1;

 private:
  TimeNs at_;
  std::function<void(const EngineView&, Actions&)> act_;
};

std::int32_t slot_of_block(const EngineView& v, int block) {
  for (auto s : v.sm(0).residents)
    if (v.resident(s).block == block) return s;
  return -1;
}

struct Run {
  std::vector<BlockPiece> pieces;
  EngineStats stats;
  TimeNs finish;
  TimeNs drained_at;
};

Run run_scripted(double idempotent_until, TimeNs at, std::function<void(const EngineView&, Actions&)> act,
                 int blocks = 2, TimeNs t = 1000, const DurationModel* durations = nullptr) {
  auto k = test::kernel("A", blocks, 1024, {t}, 0, 0, idempotent_until, /*context_bytes=*/100);
  LaunchSpec s;
  s.kernel = k.get();
  s.id = "a";
  EngineConfig config{test::gpu_with_sms("h100", 1), 1, 1, durations, {}};
  config.costs.switch_bandwidth_gbps_per_sm = 1.0;  // 1 byte per ns: 100 context bytes take 100 ns
  Engine engine(config, {s});
  Recorder rec;
  engine.add_observer(&rec);
  Scripted policy(at, std::move(act));
  engine.run(policy);
  return {rec.pieces, engine.stats(), engine.launches()[0].finish, policy.drained_at};
}

}  // namespace

TEST(Preemption, FlushRerunsTheBlockFromItsStart) {
  // Flush block 0 at 400: its 400 ns are lost; it reruns 400-1400. Block 1 ends at 1000.
  const auto r = run_scripted(1.0, 400, [](const EngineView& v, Actions& a) { a.flush(slot_of_block(v, 0)); });
  ASSERT_EQ(r.pieces.size(), 3u);
  EXPECT_EQ(r.pieces[0], (BlockPiece{0, 400, 0, 0, 0, 0, PieceOutcome::Flushed}));
  EXPECT_EQ(r.pieces[1], (BlockPiece{0, 1000, 0, 1, 0, 0, PieceOutcome::Completed}));
  EXPECT_EQ(r.pieces[2], (BlockPiece{400, 1400, 0, 0, 0, 0, PieceOutcome::Completed}));
  EXPECT_EQ(r.stats.wasted_work, 400);
  EXPECT_EQ(r.finish, 1400);
}

TEST(Preemption, FlushPastTheIdempotencePointIsRefused) {
  // Idempotent until 30% of the block; at 400 ns it is 40% through.
  EXPECT_THROW(run_scripted(0.3, 400, [](const EngineView& v, Actions& a) { a.flush(slot_of_block(v, 0)); }),
               ActionError);
  // At 200 ns (20%) it is still idempotent.
  EXPECT_NO_THROW(run_scripted(0.3, 200, [](const EngineView& v, Actions& a) { a.flush(slot_of_block(v, 0)); }));
}

TEST(Preemption, ContextSwitchSavesAndResumes) {
  // Switch block 0 at 400: 400 ns done; saving 100 bytes at 1 B/ns takes 400-500 (piece 0-500, switched
  // out). Resumed at 500: restore 100 ns, then the remaining 600 ns: ends at 1200 (switched in).
  const auto r = run_scripted(1.0, 400, [](const EngineView& v, Actions& a) { a.context_switch(slot_of_block(v, 0)); });
  ASSERT_EQ(r.pieces.size(), 3u);
  EXPECT_EQ(r.pieces[0], (BlockPiece{0, 500, 0, 0, 0, 0, PieceOutcome::SwitchedOut}));
  EXPECT_EQ(r.pieces[1], (BlockPiece{0, 1000, 0, 1, 0, 0, PieceOutcome::Completed}));
  EXPECT_EQ(r.pieces[2], (BlockPiece{500, 1200, 0, 0, 0, 0, PieceOutcome::SwitchedIn}));
  ASSERT_EQ(r.stats.preemption_latencies.size(), 1u);
  EXPECT_EQ(r.stats.preemption_latencies[0], 100);
  EXPECT_EQ(r.stats.wasted_work, 0);
}

// Applied over each block's life: every block runs at half speed (whoever shares its SM).
struct HalfSpeed final : DurationModel {
  TimeNs duration(const DurationQuery& q) const override { return recorded_duration(*q.kernel, q.block, q.draw_base); }
  bool over_life() const override { return true; }
  bool lone_launch_at_rate_one() const override { return false; }
  void group_rates(const GpuSpec&, std::span<const SmGroup>, std::span<double> rates) const override {
    std::fill(rates.begin(), rates.end(), 0.5);
  }
};

TEST(Preemption, ContextSwitchSavesTheWorkDoneAtTheBlocksRate) {
  // At half speed block 0 has done 400 x 0.5 = 200 of its 1000 ns by 400 (progress 0.2). Saving takes 400-500;
  // resumed at 500, restore 100 ns, then 800 ns of work at 0.5 = 1600 ns: ends at 2200. Block 1: 1000 / 0.5 = 2000.
  const HalfSpeed half;
  double progress = -1;
  const auto r = run_scripted(
      1.0, 400,
      [&](const EngineView& v, Actions& a) {
        progress = v.progress(slot_of_block(v, 0));
        a.context_switch(slot_of_block(v, 0));
      },
      2, 1000, &half);
  EXPECT_DOUBLE_EQ(progress, 0.2);
  ASSERT_EQ(r.pieces.size(), 3u);
  EXPECT_EQ(r.pieces[0], (BlockPiece{0, 500, 0, 0, 0, 0, PieceOutcome::SwitchedOut}));
  EXPECT_EQ(r.pieces[1], (BlockPiece{0, 2000, 0, 1, 0, 0, PieceOutcome::Completed}));
  EXPECT_EQ(r.pieces[2], (BlockPiece{500, 2200, 0, 0, 0, 0, PieceOutcome::SwitchedIn}));
}

TEST(Preemption, DrainWaitsForResidentBlocks) {
  // 4 blocks of 100 ns; blocks 0 and 1 run 0-100. Drain at 50: they finish (drained) at 100, when the SM
  // is empty (latency 50); the policy reopens it and blocks 2, 3 run 100-200.
  const auto r = run_scripted(
      1.0, 50, [](const EngineView&, Actions& a) { a.drain_sm(0); }, 4, 100);
  ASSERT_EQ(r.pieces.size(), 4u);
  EXPECT_EQ(r.pieces[0].outcome, PieceOutcome::Drained);
  EXPECT_EQ(r.pieces[1].outcome, PieceOutcome::Drained);
  EXPECT_EQ(r.pieces[2].outcome, PieceOutcome::Completed);
  EXPECT_EQ(r.drained_at, 100);
  EXPECT_EQ(r.stats.preemption_latencies, (std::vector<TimeNs>{50}));
  EXPECT_EQ(r.finish, 200);
}

TEST(Preemption, DispatchThatDoesNotFitIsRefused) {
  auto k = test::kernel("A", 4, 1024, {100});
  LaunchSpec s;
  s.kernel = k.get();
  s.id = "a";
  Engine engine(EngineConfig{test::gpu_with_sms("h100", 1), 1, 1, nullptr, {}}, {s});
  struct Greedy final : Policy {
    std::string name() const override { return "greedy"; }
    void on_events(const EngineView&, std::span<const EngineEvent>, Actions& a) override { a.dispatch(0, 0, 3); }
  } greedy;
  try {
    engine.run(greedy);
    FAIL();
  } catch (const ActionError& e) {
    EXPECT_NE(std::string(e.what()).find("dispatch of 3 blocks of launch 'a' to SM 0: only 2 accepted"),
              std::string::npos)
        << e.what();
  }
}

TEST(Preemption, PolicyThatStallsIsReported) {
  auto k = test::kernel("A", 4, 1024, {100});
  LaunchSpec s;
  s.kernel = k.get();
  s.id = "a";
  Engine engine(EngineConfig{test::gpu_with_sms("h100", 1), 1, 1, nullptr, {}}, {s});
  struct Idle final : Policy {
    std::string name() const override { return "idle"; }
    void on_events(const EngineView&, std::span<const EngineEvent>, Actions&) override {}
  } idle;
  try {
    engine.run(idle);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "policy 'idle' left launches unfinished with nothing left to happen at t=0 ns: 'a' (0 of 4 "
                 "blocks done)");
  }
}

namespace {

// Dispatches launch 0 wherever the engine accepts it, after `setup` ran at its release.
class Configured final : public Policy {
 public:
  explicit Configured(std::function<void(const EngineView&, Actions&)> setup) : setup_(std::move(setup)) {}
  std::string name() const override { return "configured"; }
  void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
    for (const auto& e : events) {
      if (e.kind == EventKind::LaunchReleased) setup_(v, a);
      if (e.kind == EventKind::Timer) a.set_slice_end(0, v.launch(0).total_blocks);  // extend the slice
    }
    if (v.active().empty()) return;
    for (int sm = 0; sm < v.sm_count(); ++sm) a.fill(0, sm);
  }

 private:
  std::function<void(const EngineView&, Actions&)> setup_;
};

std::vector<BlockPiece> run_configured(int blocks, int sms, std::function<void(const EngineView&, Actions&)> setup) {
  auto k = test::kernel("A", blocks, 256, {100});  // 8 blocks of 256 threads fit an H100 SM
  LaunchSpec s;
  s.kernel = k.get();
  s.id = "a";
  Engine engine(EngineConfig{test::gpu_with_sms("h100", sms), 1, 1, nullptr, {}}, {s});
  Recorder rec;
  engine.add_observer(&rec);
  Configured policy(std::move(setup));
  engine.run(policy);
  return rec.pieces;
}

}  // namespace

TEST(Actions, ResidencyCapLimitsBlocksPerSm) {
  // 8 blocks of 100 ns on one SM, capped at 2 resident: 4 waves, 400 ns.
  const auto p = run_configured(8, 1, [](const EngineView&, Actions& a) { a.set_residency_cap(0, 2); });
  TimeNs end = 0;
  for (const auto& x : p) end = std::max(end, x.end);
  EXPECT_EQ(end, 400);
}

TEST(Actions, RestrictToSmsKeepsBlocksThere) {
  // 3 SMs; restricted to SM 1: all 16 blocks run there, 2 waves of 8.
  const auto p = run_configured(16, 3, [](const EngineView&, Actions& a) { a.restrict_to_sms(0, {1}); });
  for (const auto& x : p) EXPECT_EQ(x.sm, 1);
  EXPECT_EQ(p.back().end, 200);
}

TEST(Actions, SliceEndHoldsBackLaterBlocks) {
  // Slice [0, 3) first; a timer at 500 extends it to all 8 blocks: blocks 3-7 start at 500.
  const auto p = run_configured(8, 1, [](const EngineView&, Actions& a) {
    a.set_slice_end(0, 3);
    a.set_timer(500, 7);
  });
  for (const auto& x : p) EXPECT_EQ(x.start, x.block < 3 ? 0 : 500) << "block " << x.block;
}

TEST(Actions, InvalidActionsAreRefused) {
  EXPECT_THROW(run_configured(4, 1, [](const EngineView&, Actions& a) { a.set_timer(-1, 0); }), ActionError);
  EXPECT_THROW(run_configured(4, 1, [](const EngineView&, Actions& a) { a.set_slice_end(0, 5); }), ActionError);
  EXPECT_THROW(run_configured(4, 1, [](const EngineView&, Actions& a) { a.restrict_to_sms(0, {3}); }), ActionError);
  EXPECT_THROW(run_configured(4, 1, [](const EngineView&, Actions& a) { a.drain_sm(9); }), ActionError);
  EXPECT_THROW(run_configured(4, 1, [](const EngineView&, Actions& a) { a.dispatch(1, 0, 1); }), ActionError);
}

TEST(Preemption, FlushOfAResumedBlockLosesTheResumedWorkToo) {
  // Switch block 0 at 400 (400 ns done, saved by 500), resume at 500 (restore 100 ns, so work again from 600),
  // flush it at 700: lost = this piece (500-700) + the 400 ns it resumed from = 600 ns.
  auto k = test::kernel("A", 2, 1024, {1000}, 0, 0, 1.0, 100);
  LaunchSpec s;
  s.kernel = k.get();
  s.id = "a";
  EngineConfig config{test::gpu_with_sms("h100", 1), 1, 1, nullptr, {}};
  config.costs.switch_bandwidth_gbps_per_sm = 1.0;
  Engine engine(config, {s});
  struct P final : Policy {
    std::string name() const override { return "switch-then-flush"; }
    void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
      for (const auto& e : events) {
        if (e.kind == EventKind::LaunchReleased) {
          a.set_timer(400, 1);
          a.set_timer(700, 2);
        }
        if (e.kind == EventKind::Timer && e.tag == 1) a.context_switch(slot_of_block(v, 0));
        if (e.kind == EventKind::Timer && e.tag == 2) a.flush(slot_of_block(v, 0));
      }
      if (!v.active().empty()) a.fill(0, 0);
    }
  } policy;
  engine.run(policy);
  EXPECT_EQ(engine.stats().wasted_work, 600);
  EXPECT_EQ(engine.launches()[0].finish, 1700);  // block 0 reruns whole from 700
}

TEST(Preemption, KillEndsALaunchAndReleasesItsSuccessors) {
  // a: 2 blocks of 1000 ns; b after a; c after b. At 500 the policy kills a (running) and b (waiting):
  // a's two pieces end killed at 500 (1000 ns lost), b finishes killed without running, and c, released by
  // b's end, runs 500-1500.
  auto k = test::kernel("K", 2, 1024, {1000});
  std::vector<LaunchSpec> specs(3);
  for (int i = 0; i < 3; ++i) {
    specs[static_cast<std::size_t>(i)].kernel = k.get();
    specs[static_cast<std::size_t>(i)].id = std::string(1, static_cast<char>('a' + i));
    if (i > 0) specs[static_cast<std::size_t>(i)].predecessors = {static_cast<std::size_t>(i - 1)};
  }
  Engine engine(EngineConfig{test::gpu_with_sms("h100", 1), 1, 1, nullptr, {}}, specs);
  Recorder rec;
  engine.add_observer(&rec);
  struct P final : Policy {
    std::string name() const override { return "killer"; }
    void on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) override {
      for (const auto& e : events) {
        if (e.kind == EventKind::LaunchReleased && e.launch == 0) a.set_timer(500, 1);
        if (e.kind == EventKind::Timer) {
          a.kill(0);
          a.kill(1);
          EXPECT_THROW(a.kill(0), ActionError);  // already finished
        }
      }
      for (const std::int32_t l : v.active()) a.fill(l, 0);
    }
  } policy;
  engine.run(policy);
  EXPECT_TRUE(engine.launches()[0].killed);
  EXPECT_TRUE(engine.launches()[1].killed);
  EXPECT_FALSE(engine.launches()[2].killed);
  EXPECT_EQ(engine.launches()[1].finish, 500);
  EXPECT_EQ(engine.launches()[2].finish, 1500);
  EXPECT_EQ(engine.stats().wasted_work, 1000);
  EXPECT_EQ(engine.stats().killed_launches, 2);
  ASSERT_EQ(rec.pieces.size(), 4u);
  EXPECT_EQ(rec.pieces[0].outcome, PieceOutcome::Killed);
  EXPECT_EQ(rec.pieces[1].outcome, PieceOutcome::Killed);
}

// The list of a launch's switched-out (and flushed) blocks: taken in the order they joined, whether it empties
// between (space reused) or keeps some entries while more come (taken ones dropped once they are half of it).
TEST(FifoList, TakesInJoinOrderAcrossCompaction) {
  FifoList<int> q;
  EXPECT_TRUE(q.empty());
  int next_in = 0, next_out = 0;
  // 3 in, 2 out per round: the list never empties, so the head passes 64 and the taken prefix is dropped.
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 3; ++i) q.push_back(next_in++);
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(q.front(), next_out++);
      q.pop_front();
    }
    ASSERT_EQ(q.size(), static_cast<std::size_t>(next_in - next_out));
  }
  while (!q.empty()) {
    ASSERT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(next_out, 600);
  q.push_back(7);  // reused after emptying
  EXPECT_EQ(q.front(), 7);
  EXPECT_EQ(q.size(), 1u);
  q.clear();
  EXPECT_TRUE(q.empty());
}
