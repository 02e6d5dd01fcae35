// Kernelet's model with each kernel's memory ratio calibrated to its own recording (core/markov_calibration.h,
// `markov:inputs=calibrated`): the recorded IPC by hand, the bisection's answer against a chain solved directly, the
// clamps, and the interference model's parameter.
#include <gtest/gtest.h>

#include "core/gpu_spec.h"
#include "core/markov_calibration.h"
#include "core/markov_model.h"
#include "sim/duration_model.h"
#include "sim/registry.h"
#include "test_helpers.h"

using namespace gpusched;

namespace {

// A 132-SM GPU at 1000 MHz: one cycle per ns, so spans in ns are spans in cycles.
GpuSpec gpu_at_1ghz() {
  GpuSpec gpu = *find_gpu_preset("h100");
  gpu.clock_mhz = 1000.0;
  return gpu;
}

// A kernel of 256-thread blocks (8 warps) with counted instructions, recorded at `residency` a SM over `recorded`
// blocks in `span` ns.
KernelProfile recorded_kernel(int residency, std::int64_t recorded, TimeNs span, double instructions,
                              double memory_instructions) {
  KernelProfile k = *test::kernel("k", static_cast<int>(recorded), 256, {1000});
  k.record_sets.back().residency = residency;
  k.record_sets.back().recorded = recorded;
  k.record_sets.back().span = span;
  k.instructions_per_block = instructions;
  k.memory_instructions_per_block = memory_instructions;
  return k;
}

}  // namespace

TEST(MarkovCalibration, RecordedIpcByHand) {
  const GpuSpec gpu = gpu_at_1ghz();
  // A full wave: 264 blocks at 2 a SM on 132 SMs, 1000 instructions each, in 1000 cycles:
  // 264 x 1000 / (132 x 1000) = 2.0 instructions per cycle of one SM.
  EXPECT_DOUBLE_EQ(*kernelet::recorded_ipc(recorded_kernel(2, 264, 1000, 1000, 10), gpu), 2.0);
  // A grid smaller than a wave used ceil(10 / 2) = 5 SMs: 10 x 1000 / (5 x 1000) = 2.0, not 10 x 1000 / (132 x 1000).
  EXPECT_DOUBLE_EQ(*kernelet::recorded_ipc(recorded_kernel(2, 10, 1000, 1000, 10), gpu), 2.0);
  // The clock converts ns to cycles: at 2000 MHz the same 1000 ns are 2000 cycles, half the IPC.
  GpuSpec fast = gpu;
  fast.clock_mhz = 2000.0;
  EXPECT_DOUBLE_EQ(*kernelet::recorded_ipc(recorded_kernel(2, 264, 1000, 1000, 10), fast), 1.0);
  // Nothing to measure: no counted instructions, or a record set built in code (no span).
  KernelProfile uncounted = recorded_kernel(2, 264, 1000, 1000, 10);
  uncounted.instructions_per_block.reset();
  EXPECT_FALSE(kernelet::recorded_ipc(uncounted, gpu));
  EXPECT_FALSE(kernelet::recorded_ipc(recorded_kernel(2, 264, 0, 1000, 10), gpu));
}

TEST(MarkovCalibration, TheMemoryRatioReproducesTheRecordedIpc) {
  const GpuSpec gpu = gpu_at_1ghz();
  const auto model = kernelet::sm_model_for(gpu);
  // The chain's IPC alone at 8 blocks of 8 warps with R_m = 0.05: the recording is made to run at exactly that
  // (span = blocks x instructions / (SMs x IPC) cycles, rounded to a ns), while its counted R_m says 0.2.
  kernelet::ModelKernel truth{8, 0.05, 0.0};
  const double ipc = kernelet::sm_ipc(model, {truth}, {8})[0];
  const double instructions = 1e7;  // long enough that the span's rounding to a ns moves the IPC by < 1e-6
  const auto span = static_cast<TimeNs>(std::llround(132.0 * 8 * instructions / (132.0 * ipc)));
  const KernelProfile k = recorded_kernel(8, 132 * 8, span, instructions, 0.2 * instructions);

  const auto counted = kernelet::model_kernel(k, model, gpu.warp_size);
  ASSERT_TRUE(counted);
  EXPECT_DOUBLE_EQ(counted->memory_ratio, 0.2);
  EXPECT_LT(kernelet::sm_ipc(model, {*counted}, {8})[0], ipc) << "the counted ratio predicts it slower";

  const auto calibrated = kernelet::calibrated_model_kernel(k, model, gpu);
  ASSERT_TRUE(calibrated);
  EXPECT_NEAR(calibrated->memory_ratio, 0.05, 1e-4);
  EXPECT_NEAR(kernelet::sm_ipc(model, {*calibrated}, {8})[0], *kernelet::recorded_ipc(k, gpu), 1e-6);
  EXPECT_EQ(calibrated->warps_per_block, 8);
}

TEST(MarkovCalibration, ClampsToTheChainsRangeAndKeepsUnrecordedInputs) {
  const GpuSpec gpu = gpu_at_1ghz();
  const auto model = kernelet::sm_model_for(gpu);
  // Faster than the chain can issue with no memory instruction at all (a span of 1 cycle): R_m = 0.
  EXPECT_DOUBLE_EQ(kernelet::calibrated_model_kernel(recorded_kernel(8, 1056, 1, 1e6, 1e5), model, gpu)->memory_ratio,
                   0.0);
  // Slower than every instruction a memory instruction (1e12 cycles for 1056 blocks of 1000): R_m = 1.
  EXPECT_DOUBLE_EQ(kernelet::calibrated_model_kernel(recorded_kernel(8, 1056, 1'000'000'000'000, 1e3, 1e2), model, gpu)
                       ->memory_ratio,
                   1.0);
  // No recorded IPC: model_kernel()'s inputs, unchanged.
  const KernelProfile built = recorded_kernel(8, 1056, 0, 1000, 100);
  EXPECT_DOUBLE_EQ(kernelet::calibrated_model_kernel(built, model, gpu)->memory_ratio, 0.1);
  // No inputs at all: none.
  KernelProfile bare = built;
  bare.instructions_per_block.reset();
  bare.memory_instructions_per_block.reset();
  EXPECT_FALSE(kernelet::calibrated_model_kernel(bare, model, gpu));
}

TEST(MarkovInterference, CalibratedInputsChangeTheCoRunSlowdownAndKeepARecordingAlone) {
  const auto* info = sim::Registry<sim::DurationModel>::instance().find("markov");
  ASSERT_NE(info, nullptr);
  const auto counted = info->make(sim::Params::resolve("markov", info->params, {}));
  const auto calibrated = info->make(sim::Params::resolve("markov", info->params, {{"inputs", "calibrated"}}));
  EXPECT_THROW(info->make(sim::Params::resolve("markov", info->params, {{"inputs", "measured"}})),
               std::invalid_argument);
  const GpuSpec gpu = gpu_at_1ghz();
  const auto model = kernelet::sm_model_for(gpu);
  // The victim's counts say R_m = 0.2 (memory-bound), its recording issues at the chain's IPC for R_m = 0.01
  // (issue-bound); the co-runner is issue-bound (R_m = 0.001) by both.
  const double instructions = 1e6;
  const double ipc = kernelet::sm_ipc(model, {kernelet::ModelKernel{8, 0.01, 0.0}}, {4})[0];
  auto victim = test::kernel("victim", 528, 256, {10000});
  victim->record_sets.back().residency = 4;
  victim->record_sets.back().recorded = 528;
  victim->record_sets.back().span = static_cast<TimeNs>(std::llround(528 * instructions / (132 * ipc)));
  victim->instructions_per_block = instructions;
  victim->memory_instructions_per_block = 0.2 * instructions;
  auto partner = test::kernel("partner", 528, 256, {10000});
  partner->instructions_per_block = 8000;
  partner->memory_instructions_per_block = 8;

  sim::DurationQuery q;
  q.kernel = victim.get();
  q.gpu = &gpu;
  q.sm_same_kernel_blocks = 4;
  q.sm_resident_blocks = 4;
  EXPECT_EQ(counted->duration(q), 10000);
  EXPECT_EQ(calibrated->duration(q), 10000) << "alone at the recorded residency: the recording, either way";
  const sim::CoRunner other{partner.get(), 4};
  q.co_runners = &other;
  q.co_runner_count = 1;
  q.sm_resident_blocks = 8;
  // Memory-bound (counted), the victim leaves the issue slots to the partner and barely slows; issue-bound
  // (calibrated, as its recording shows), it shares them and slows more.
  EXPECT_GT(calibrated->duration(q), counted->duration(q));
  EXPECT_GT(calibrated->duration(q), 10000);
}
