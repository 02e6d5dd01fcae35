// calibrate's busy-GPU race (live/timing/race.h): the crossover read from samples, by hand.
#include <gtest/gtest.h>

#include "live/timing/race.h"

using gpusched::live::race_crossover_ns;
using gpusched::live::RaceSample;

namespace {
RaceSample at(std::int64_t x_us, bool competitor_first) {
  return RaceSample{x_us * 1000, competitor_first, 2000};
}
}  // namespace

TEST(Race, CleanCrossoverIsMidwayBetweenTheSamplesAroundIt) {
  // Competitor first at -9 and -5 us, successor first at -3 and +1: threshold between -5 and -3, at -4 us.
  int wrong = -1;
  EXPECT_EQ(race_crossover_ns({at(1, false), at(-5, true), at(-9, true), at(-3, false)}, &wrong), -4000);
  EXPECT_EQ(wrong, 0);
}

TEST(Race, NoisyCrossoverMisordersTheFewest) {
  // Sorted: -10 C, -8 C, -7 S, -6 C, -4 S, -2 S, 0 S. Misordered with the threshold before sample k:
  // k=0: 3 (every C), k=1: 2, k=2: 1, k=3: 2, k=4: 1, k=5..: 2, 3, 4. The first of the two best, k=2: between -8
  // and -7 us, -7.5 us, with one sample out of line (the C at -6).
  int wrong = -1;
  const std::vector<RaceSample> v{at(-6, true),  at(0, false),  at(-10, true), at(-4, false),
                                  at(-7, false), at(-2, false), at(-8, true)};
  EXPECT_EQ(race_crossover_ns(v, &wrong), -7500);
  EXPECT_EQ(wrong, 1);
}

TEST(Race, OneSidedSamplesGiveTheOutermost) {
  int wrong = -1;
  EXPECT_EQ(race_crossover_ns({at(1, false), at(2, false)}, &wrong), 1000);  // the competitor never went first
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(race_crossover_ns({at(-3, true), at(-1, true)}, &wrong), -1000);  // it always did
  EXPECT_EQ(race_crossover_ns({}, &wrong), 0);
  EXPECT_EQ(wrong, 0);
}
