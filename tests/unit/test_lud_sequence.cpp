// Rodinia LUD's launch sequence (core/lud_sequence.h), worked by hand.
#include <gtest/gtest.h>

#include "core/lud_sequence.h"
#include "test_helpers.h"

using namespace gpusched;

TEST(LudSequence, AnEightByEightMatrixInTwoByTwoTiles) {
  // 4 tiles a side: iterations 0-2 launch diagonal (1 block), perimeter (m = 3 - it blocks) and internal (m x m),
  // then a last diagonal: 1, 3, 9, 1, 2, 4, 1, 1, 1, 1 blocks; ten launches on one stream, in that order.
  const auto diag = test::kernel("lud.0", 20, 128, {100});
  const auto perim = test::kernel("lud.1", 20, 128, {200});
  const auto internal = test::kernel("lud.2", 20, 128, {300, 301, 302, 303, 304, 305, 306, 307, 308, 309});
  const auto s = lud_sequence(*diag, *perim, *internal, 8, 2);
  ASSERT_EQ(s.launches.size(), 10u);
  const std::vector<std::int64_t> blocks{1, 3, 9, 1, 2, 4, 1, 1, 1, 1};
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(s.kernels[s.launches[i].kernel]->block_count(), blocks[i]) << i;
    EXPECT_EQ(s.launches[i].stream, "lud");
    EXPECT_EQ(s.launches[i].tenant, "lud");
  }
  EXPECT_EQ(s.launches[2].id, "lud-internal-0");
  EXPECT_EQ(s.launches[9].id, "lud-diagonal-3");
  // The 9-block internal launch keeps blocks 0-8's own records: mean (300 + ... + 308) / 9 = 304.
  const auto& set = s.kernels[2]->record_sets.back();
  EXPECT_EQ(set.recorded, 9);
  EXPECT_DOUBLE_EQ(set.mean_ns, 304.0);
  EXPECT_EQ(s.kernels[2]->name, "lud.2@9");
  // The paper's input: 512 x 512 in 16 x 16 tiles: 31 iterations + 1 = 94 launches, sum of m^2 = 10,416 internal
  // blocks.
  const auto paper = lud_sequence(*diag, *perim, *internal);
  ASSERT_EQ(paper.launches.size(), 94u);
  std::int64_t internal_blocks = 0;
  for (std::size_t i = 2; i < 93; i += 3) internal_blocks += paper.kernels[i]->block_count();
  EXPECT_EQ(internal_blocks, 10416);
  EXPECT_THROW(lud_sequence(*diag, *perim, *internal, 10, 4), std::invalid_argument);
}
