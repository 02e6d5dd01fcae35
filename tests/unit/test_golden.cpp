// Golden Schedules for a small workload (tests/data/small, on a 4-SM H100 cut) under every policy. A
// changed golden file is a reviewed change: regenerate with GPUSCHED_UPDATE_GOLDEN=1 and read the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/gpu_file.h"
#include "core/workload_io.h"
#include "sim/timeline.h"
#include "test_helpers.h"

using namespace gpusched;

TEST(Golden, SmallWorkloadUnderEveryPolicy) {
  Warnings warn;
  const std::string dir = std::string(GPUSCHED_TEST_DATA) + "/small";
  const auto w = read_workload(dir + "/small.toml", &warn);
  const auto gpu = resolve_gpu(w.gpu, &warn);
  const bool update = std::getenv("GPUSCHED_UPDATE_GOLDEN") != nullptr;
  for (const auto& policy : sim::all_policy_names()) {
    const auto r = test::run(w, gpu, policy, 1);
    const auto golden = std::string(GPUSCHED_GOLDEN_DIR) + "/small." + policy + ".csv";
    const auto out = (std::filesystem::temp_directory_path() / ("golden_" + policy + ".csv")).string();
    sim::write_schedule_csv(out, r.schedule, w);
    if (update) std::filesystem::copy_file(out, golden, std::filesystem::copy_options::overwrite_existing);
    ASSERT_TRUE(std::filesystem::exists(golden)) << golden << " missing; run with GPUSCHED_UPDATE_GOLDEN=1";
    EXPECT_EQ(test::read_file(out), test::read_file(golden)) << "Schedule of " << policy << " differs from " << golden;
  }
}
