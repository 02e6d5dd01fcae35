// The engine's event queue against a binary heap on (time, key): the same pop order, including events
// pushed at the current time while its batch is drained, far-apart times and ties.
#include <gtest/gtest.h>

#include <cstdint>
#include <queue>
#include <vector>

#include "core/random.h"
#include "sim/event_queue.h"

using gpusched::Rng;
using gpusched::sim::RadixEventQueue;

namespace {

struct Ev {
  std::int64_t time;
  std::uint64_t key;
  bool operator>(const Ev& o) const { return time != o.time ? time > o.time : key > o.key; }
};

using Reference = std::priority_queue<Ev, std::vector<Ev>, std::greater<>>;

// Pushes `initial` events, then pops everything, pushing up to two events per pop at or after the
// popped time: `span` bounds how far ahead, `same_time_one_in` makes some land exactly at the current time.
void compare_with_binary_heap(std::uint64_t seed, int initial, int operations, std::int64_t span,
                              int same_time_one_in) {
  Rng rng(seed);
  RadixEventQueue<Ev> q;
  Reference ref;
  std::uint64_t next_key = 0;
  auto push = [&](std::int64_t t) {
    const Ev e{t, (static_cast<std::uint64_t>(rng.uniform_int(0, 3)) << 62) |
                      next_key++};  // keys out of push order, like the engine's kinds
    q.push(e);
    ref.push(e);
  };
  for (int i = 0; i < initial; ++i) push(rng.uniform_int(0, span));
  int popped = 0;
  while (!ref.empty()) {
    ASSERT_EQ(q.size(), ref.size());
    const Ev expected = ref.top();
    ref.pop();
    ASSERT_EQ(q.top().time, expected.time) << "pop " << popped;
    const Ev got = q.pop();
    ASSERT_EQ(got.time, expected.time) << "pop " << popped;
    ASSERT_EQ(got.key, expected.key) << "pop " << popped;
    ++popped;
    if (popped < operations) {
      const int pushes = static_cast<int>(rng.uniform_int(0, 2));
      for (int k = 0; k < pushes; ++k)
        push(rng.uniform_int(0, same_time_one_in - 1) == 0 ? got.time : got.time + rng.uniform_int(0, span));
    }
  }
  EXPECT_TRUE(q.empty());
  EXPECT_GT(popped, operations / 2);
}

}  // namespace

TEST(EventQueue, BlockEndsAFewMicrosecondsAhead) {
  compare_with_binary_heap(1, 2112, 200000, 15000, 50);
}
TEST(EventQueue, ManyTiesAtTheCurrentTime) {
  compare_with_binary_heap(2, 500, 100000, 40, 3);
}
TEST(EventQueue, TimesFarApart) {
  compare_with_binary_heap(3, 100, 50000, std::int64_t{1} << 50, 10);
}
TEST(EventQueue, TimesNearTheTopOfTheRange) {
  // Every digit level in use, up to the highest byte of a 63-bit time.
  RadixEventQueue<Ev> q;
  const std::vector<std::int64_t> times = {INT64_MAX, 0,     std::int64_t{1} << 62, 255, 256,
                                           65535,     65536, INT64_MAX - 1,         1};
  for (std::size_t i = 0; i < times.size(); ++i) q.push(Ev{times[i], i});
  std::vector<std::int64_t> order;
  while (!q.empty()) order.push_back(q.pop().time);
  const std::vector<std::int64_t> expected = {0,        1, 255, 256, 65535, 65536, std::int64_t{1} << 62, INT64_MAX - 1,
                                              INT64_MAX};
  EXPECT_EQ(order, expected);
}

TEST(EventQueue, RefusesAnEventEarlierThanTheCurrentTime) {
  RadixEventQueue<Ev> q;
  q.push(Ev{100, 0});
  q.push(Ev{300, 1});
  EXPECT_EQ(q.pop().time, 100);
  EXPECT_THROW(q.push(Ev{99, 2}), std::logic_error);
  q.push(Ev{100, 3});  // the current time is still accepted
  EXPECT_TRUE(q.has_current());
  EXPECT_EQ(q.pop().key, 3u);
  EXPECT_FALSE(q.has_current());
  EXPECT_EQ(q.pop().time, 300);
}
