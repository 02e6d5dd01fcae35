// Every shipped recording, replayed alone, reproduces its own span within 2 % (issue "Fidelity 1"): a new
// recording that breaks this fails here.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/profile_io.h"
#include "sim/replay_check.h"

namespace gpusched {
namespace {

TEST(ReplayFidelity, EveryRecordedKernelAloneWithinTwoPercent) {
  namespace fs = std::filesystem;
  int checked = 0;
  for (const char* gpu : {"h100", "h200"}) {
    const fs::path dir = fs::path(GPUSCHED_TRACES_DIR) / "live" / gpu;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const auto path = entry.path().string();
      if (!path.ends_with(".kernel.toml")) continue;
      Warnings w;
      const auto k = read_kernel_profile(path, &w);
      const auto c = sim::replay_alone(k, *profile_gpu(k));
      EXPECT_LT(std::abs(c.slot_error()), 0.02)
          << path << ": recorded " << c.recorded_span << " ns, replayed " << c.slot_span << " ns";
      ++checked;
    }
  }
  EXPECT_GE(checked, 36);
}

TEST(ReplayFidelity, RawBlockTimeIsKeptBeside) {
  // xtea's later blocks wait behind older warps: its raw end - start replays far short of the recording, which is
  // why slot occupancy is the default (xtea-s2 on the H100: -35 %).
  Warnings w;
  const auto k = read_kernel_profile(std::string(GPUSCHED_TRACES_DIR) + "/live/h100/xtea-s2.kernel.toml", &w);
  const auto& set = *k.primary_records();
  EXPECT_EQ(set.block_time, BlockTime::Slot);
  ASSERT_EQ(set.raw_by_block().size(), set.duration_by_block.size());
  double raw = 0, slot = 0;
  for (std::size_t b = 0; b < set.raw_by_block().size(); ++b) {
    EXPECT_GE(set.duration_by_block[b], set.raw_by_block()[b]) << "block " << b;
    raw += static_cast<double>(set.raw_by_block()[b]);
    slot += static_cast<double>(set.duration_by_block[b]);
  }
  EXPECT_GT(slot, 1.3 * raw);
  const auto c = sim::replay_alone(k, *profile_gpu(k));
  EXPECT_LT(c.raw_error(), -0.25);
}

}  // namespace
}  // namespace gpusched
