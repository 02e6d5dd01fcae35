// The engine's event queue. Simulated time never goes backwards, so a radix heap (Ahuja, Mehlhorn, Orlin
// and Tarjan) fits: an event goes into the bucket of the highest bit in which its time differs from the
// last time popped; a pop only redistributes the lowest non-empty bucket. Events of the current time sit
// in bucket 0, a small binary heap ordered by key, so the pop order is exactly (time, key), the same
// total order a binary heap gives; it just costs less (tests/bench compares it with a bare
// std::priority_queue; docs/performance.md has the figures). A binary heap version is kept for tests.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gpusched::sim {

// T has `std::int64_t time` (>= 0) and `std::uint64_t key`.
template <class T>
class RadixEventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(const T& item) {
    if (item.time < last_) throw std::logic_error("event queue: an event earlier than the current time");
    const std::size_t b = bucket_of(item.time);
    if (b == 0) {
      now_.push_back(item);
      std::push_heap(now_.begin(), now_.end(), KeyAfter{});
    } else {
      buckets_[b].push_back(item);
    }
    ++size_;
  }

  // True while events of the current time (the last one popped) remain: lets the engine drain a batch
  // without moving the queue's base time forward, which would refuse events its policy adds at that time.
  bool has_current() const { return !now_.empty(); }

  // The earliest event (smallest key among the earliest); the queue must not be empty. It may advance
  // the base time to that event's time: call it only once nothing earlier will be pushed.
  const T& top() {
    if (now_.empty()) refill();
    return now_.front();
  }

  T pop() {
    if (now_.empty()) refill();
    std::pop_heap(now_.begin(), now_.end(), KeyAfter{});
    const T out = now_.back();
    now_.pop_back();
    --size_;
    return out;
  }

 private:
  struct KeyAfter {
    bool operator()(const T& a, const T& b) const { return a.key > b.key; }
  };
  std::size_t bucket_of(std::int64_t time) const {
    const auto diff = static_cast<std::uint64_t>(time) ^ static_cast<std::uint64_t>(last_);
    return diff == 0 ? 0 : static_cast<std::size_t>(64 - std::countl_zero(diff));
  }
  void refill() {
    // size_ > 0, so some bucket holds an event; the lowest occupied one holds the earliest.
    std::size_t b = 1;
    while (buckets_[b].empty()) ++b;
    auto& from = buckets_[b];
    std::int64_t least = from.front().time;
    for (const auto& e : from) least = std::min(least, e.time);
    last_ = least;
    for (const auto& e : from) {
      const std::size_t to = bucket_of(e.time);  // always below b
      if (to == 0) now_.push_back(e);
      else buckets_[to].push_back(e);
    }
    from.clear();
    std::make_heap(now_.begin(), now_.end(), KeyAfter{});
  }

  std::int64_t last_ = 0;
  std::size_t size_ = 0;
  std::vector<T> now_;                     // events at time last_, a min-heap on key
  std::array<std::vector<T>, 65> buckets_;  // bucket i: highest differing bit from last_ is i - 1
  std::array<std::int64_t, 65> least_{};    // earliest time in each non-empty bucket
  std::uint64_t occupied_ = 0;              // bit i - 1 set: bucket i is non-empty
};

}  // namespace gpusched::sim
