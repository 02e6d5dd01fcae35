// Slot occupancy from recorded stamps (core/slot_occupancy.h), by hand.
#include <gtest/gtest.h>

#include "core/slot_occupancy.h"

namespace gpusched {
namespace {

TEST(SlotOccupancy, OneSmTwoSlots) {
  // One SM, residency 2, launch starts at t = 100. Blocks 0 and 1 take the two slots free at 100; block 0 ends at
  // 300, block 1 at 400. Block 2 (dispatched when block 0's slot frees, 300) stamps its start only at 350 (its
  // warps waited behind older ones) and ends at 600: it held the slot 600 - 300 = 300, not 250. Block 3 takes
  // block 1's slot (free at 400), starts at 420, ends at 500: 100.
  const std::vector<BlockRecord> r = {{0, 0, 100, 300}, {1, 0, 120, 400}, {2, 0, 350, 600}, {3, 0, 420, 500}};
  const auto occ = slot_occupancy(r, 2);
  EXPECT_EQ(occ, (std::vector<TimeNs>{300 - 100, 400 - 100, 600 - 300, 500 - 400}));
}

TEST(SlotOccupancy, IndexOrderNotStartOrder) {
  // One SM, residency 3: blocks 0-2 take the slots free at 0 and end at 200, 300 and 900. The hardware dispatches
  // block 3 into the slot freed at 200 and block 4 into the one freed at 300, but block 3's warps wait longer:
  // it stamps its start at 400, block 4 at 350. By index: block 3 held its slot 1000 - 200 = 800, block 4
  // 800 - 300 = 500 (pairing by start would give 4 the slot of 200, 600, and 3 the one of 300, 700).
  const std::vector<BlockRecord> r = {
      {0, 0, 0, 200}, {1, 0, 0, 300}, {2, 0, 0, 900}, {4, 0, 350, 800}, {3, 0, 400, 1000}};
  const auto occ = slot_occupancy(r, 3);
  EXPECT_EQ(occ, (std::vector<TimeNs>{200, 300, 900, 800 - 300, 1000 - 200}));
}

TEST(SlotOccupancy, SlotsFreeAtTheLaunchStartOnEverySm) {
  // SM 1's first block starts 40 ns after the launch's first start (SM 0's): it is charged from the launch start.
  const std::vector<BlockRecord> r = {{0, 0, 1000, 1500}, {1, 1, 1040, 1600}};
  EXPECT_EQ(slot_occupancy(r, 4), (std::vector<TimeNs>{500, 600}));
}

TEST(SlotOccupancy, MoreOverlapThanResidencyKeepsTheStart) {
  // Residency 1 but two blocks overlap on SM 0 (a record set whose residency is too low): the second has no free
  // slot at its start, so it is taken as dispatched at its start.
  const std::vector<BlockRecord> r = {{0, 0, 0, 100}, {1, 0, 10, 90}};
  EXPECT_EQ(slot_occupancy(r, 1), (std::vector<TimeNs>{100, 80}));
}

TEST(SlotOccupancy, EmptyInput) {
  EXPECT_TRUE(slot_occupancy({}, 8).empty());
}

}  // namespace
}  // namespace gpusched

namespace gpusched {
namespace {

TEST(SlotOccupancy, HugeSmIdsAreSortedNotBucketed) {
  // A file of no GPU may name any SM id up to INT32_MAX: the same answer as with small ids, without a bucket per id.
  const std::vector<BlockRecord> r = {{0, 2147483647, 0, 100}, {1, 2147483647, 100, 250}, {2, 5, 10, 60}};
  EXPECT_EQ(slot_occupancy(r, 1), (std::vector<TimeNs>{100, 150, 60}));
}

}  // namespace
}  // namespace gpusched
