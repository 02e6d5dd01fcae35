// Time-sharing plans as the GPU carries them out (live/executor/timeshare_plan.h), by hand: no GPU.
#include <gtest/gtest.h>

#include <stdexcept>

#include "live/executor/timeshare_plan.h"
#include "sim/runner.h"

using namespace gpusched;
using namespace gpusched::live;

namespace {

BlockPiece piece(TimeNs start, TimeNs end, int launch, int block, int sm) {
  return {start, end, launch, block, 0, static_cast<std::int16_t>(sm), PieceOutcome::Completed};
}
PhaseSpan phase(TimeNs start, TimeNs end, int launch, PhaseState state, int gpu = 0) {
  return {start, end, launch, static_cast<std::int16_t>(gpu), state};
}

// Launch 0 restores [0,10), runs blocks 0-1 in [10,30), saves [30,40), restores again [40,50) and runs blocks 2-3 in
// [55,70); launch 1 restores [10,25) while launch 0 runs, and runs blocks 0-2 in [30,50). Wait and ReadyToLaunch
// phases are states, not work.
Schedule two_launches() {
  Schedule s;
  s.phases = {phase(0, 10, 0, PhaseState::RestoreState),   phase(10, 30, 0, PhaseState::Running),
              phase(0, 10, 1, PhaseState::Wait, -1),       phase(10, 25, 1, PhaseState::RestoreState),
              phase(25, 30, 1, PhaseState::ReadyToLaunch), phase(30, 40, 0, PhaseState::SaveState),
              phase(30, 50, 1, PhaseState::Running),       phase(40, 50, 0, PhaseState::RestoreState),
              phase(55, 70, 0, PhaseState::Running)};
  s.pieces = {piece(12, 20, 0, 0, 0), piece(12, 28, 0, 1, 1), piece(31, 45, 1, 0, 0), piece(31, 49, 1, 1, 1),
              piece(35, 48, 1, 2, 2), piece(56, 66, 0, 2, 0), piece(57, 69, 0, 3, 1)};
  return s;
}

}  // namespace

TEST(TimesharePlan, StepsInPlannedOrderWithTheirBlockRanges) {
  const auto s = two_launches();
  EXPECT_TRUE(is_time_shared(s));
  const auto steps = build_timeshare_steps(s, 2);
  ASSERT_EQ(steps.size(), 7u);
  using K = TimeshareStepKind;
  // By planned start; at 10 launch 1's restore precedes launch 0's micro-kernel, at 30 launch 0's save precedes
  // launch 1's micro-kernel (save, restore, micro-kernel at one instant).
  const std::vector<std::tuple<K, int, TimeNs>> expected{
      {K::Restore, 0, 0},      {K::Restore, 1, 10}, {K::MicroKernel, 0, 10}, {K::Save, 0, 30},
      {K::MicroKernel, 1, 30}, {K::Restore, 0, 40}, {K::MicroKernel, 0, 55}};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].kind, std::get<0>(expected[i])) << i;
    EXPECT_EQ(steps[i].launch, std::get<1>(expected[i])) << i;
    EXPECT_EQ(steps[i].planned_start, std::get<2>(expected[i])) << i;
  }
  // Micro-kernels: launch 0 blocks [0,2), launch 1 blocks [0,3), launch 0 blocks [2,4).
  EXPECT_EQ(steps[2].first_block, 0);
  EXPECT_EQ(steps[2].blocks, 2);
  EXPECT_EQ(steps[4].first_block, 0);
  EXPECT_EQ(steps[4].blocks, 3);
  EXPECT_EQ(steps[6].first_block, 2);
  EXPECT_EQ(steps[6].blocks, 2);
  EXPECT_EQ(steps[6].planned_end, 70);
}

TEST(TimesharePlan, APlanWithoutRunningPhasesIsNotTimeShared) {
  Schedule s;
  s.pieces = {piece(0, 10, 0, 0, 0)};
  EXPECT_FALSE(is_time_shared(s));
  s.phases = {phase(0, 5, 0, PhaseState::Wait, -1)};
  EXPECT_FALSE(is_time_shared(s));
}

TEST(TimesharePlan, RejectsWhatOneGpuCannotCarryOut) {
  auto outside = two_launches();
  outside.pieces.push_back(piece(52, 54, 0, 4, 0));  // between launch 0's restore and its second micro-kernel
  EXPECT_THROW(build_timeshare_steps(outside, 2), std::invalid_argument);
  auto gaps = two_launches();
  gaps.pieces[6].block = 5;  // launch 0's second micro-kernel runs blocks 2 and 5
  EXPECT_THROW(build_timeshare_steps(gaps, 2), std::invalid_argument);
  auto second_gpu = two_launches();
  second_gpu.phases[1].gpu = 1;
  EXPECT_THROW(build_timeshare_steps(second_gpu, 2), std::invalid_argument);
  EXPECT_THROW(build_timeshare_steps(two_launches(), 1), std::invalid_argument);  // launch 1 unknown
}

// Measured: restore 0 [0,12), restore 1 [12,30), kernel 0 [12,35), save 0 copying [38,45), kernel 1 [35,60),
// restore 0 [45,55), kernel 0 [60,80); launch 1 released at 5.
TEST(TimesharePlan, MeasuredPhasesFromStepTimes) {
  const auto steps = build_timeshare_steps(two_launches(), 2);
  const std::vector<std::pair<TimeNs, TimeNs>> measured{{0, 12},  {12, 30}, {12, 35}, {38, 45},
                                                        {35, 60}, {45, 55}, {60, 80}};
  const auto phases = measured_phases(steps, measured, {0, 5});
  // Launch 0: restore [0,12), running [12,35) (ready for 0 ns: none), save [35,45) (from its kernel's end), no wait
  // (its next restore starts at 45), restore [45,55), ready [55,60), running [60,80). Launch 1: wait [5,12), restore
  // [12,30), ready [30,35), running [35,60). In end order, ties by launch.
  const std::vector<PhaseSpan> expected{
      phase(0, 12, 0, PhaseState::RestoreState),   phase(5, 12, 1, PhaseState::Wait, -1),
      phase(12, 30, 1, PhaseState::RestoreState),  phase(12, 35, 0, PhaseState::Running),
      phase(30, 35, 1, PhaseState::ReadyToLaunch), phase(35, 45, 0, PhaseState::SaveState),
      phase(45, 55, 0, PhaseState::RestoreState),  phase(55, 60, 0, PhaseState::ReadyToLaunch),
      phase(35, 60, 1, PhaseState::Running),       phase(60, 80, 0, PhaseState::Running)};
  EXPECT_EQ(phases, expected);
  EXPECT_THROW(measured_phases(steps, {{0, 1}}, {0, 5}), std::invalid_argument);
}

// The shipped validation workload's time-sharing plan (the simulator's timeshare policy): every block lies in exactly
// one micro-kernel, the micro-kernels of a launch cover its blocks in order, and every launch's state is restored
// before its first micro-kernel.
TEST(TimesharePlan, TheValidationWorkloadsPlanIsCarriedOutWhole) {
  auto loaded = sim::load_workload_and_gpu(std::string(GPUSCHED_TRACES_DIR) + "/workloads/validate-h100.toml", "",
                                           nullptr, "--gpu", "");
  const auto& w = loaded.workload;
  sim::RunOptions o;
  o.policy = "timeshare";
  sim::AloneTimeCache cache;
  const auto r = sim::run_workload(w, loaded.gpu, o, cache);
  const auto steps = build_timeshare_steps(r.schedule, w.launches.size());
  std::vector<std::int64_t> next_block(w.launches.size(), 0);
  // With timeshare's default first_restore=free a launch's data is on the GPU when it arrives: only a launch whose
  // state was saved needs a restore before its next micro-kernel.
  std::vector<bool> on_gpu(w.launches.size(), true);
  for (const auto& s : steps) {
    const auto l = static_cast<std::size_t>(s.launch);
    if (s.kind == TimeshareStepKind::Restore) on_gpu[l] = true;
    if (s.kind == TimeshareStepKind::Save) on_gpu[l] = false;
    if (s.kind != TimeshareStepKind::MicroKernel) continue;
    EXPECT_TRUE(on_gpu[l]) << "launch " << l << " runs before its state is on the GPU";
    EXPECT_EQ(s.first_block, next_block[l]) << "launch " << l;
    next_block[l] = s.first_block + s.blocks;
  }
  for (std::size_t l = 0; l < w.launches.size(); ++l) EXPECT_EQ(next_block[l], w.kernel_of(l).block_count()) << l;
}
