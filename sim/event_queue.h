// The engine's event queue. Simulated time never goes backwards, so a monotone integer priority queue
// fits. This one is a radix heap with 256-way digits (a multi-level bucket structure, Denardo and Fox;
// Ahuja, Mehlhorn, Orlin and Tarjan's radix heap with base 256): the queue keeps a base time (the time
// last popped); an event goes to level L, bucket d, where L is the highest byte in which its time differs
// from the base and d that byte of its time. Level 0's buckets therefore each hold one exact time. A pop
// takes the lowest non-empty level-0 bucket; when level 0 is empty it moves the base to the start of the
// lowest non-empty bucket of the lowest non-empty level and spreads that bucket's events over the levels
// below. An event is moved at most once per level it descends: a block end a few microseconds ahead
// (13-14 bits) is written twice (level 1, then level 0), where the binary radix heap it replaced moved it
// once per bit (docs/performance.md). Bitmaps find the lowest non-empty bucket without scanning; level 0's
// buckets are lists through one pool that is appended to in order and emptied whenever level 0 is, so it
// stays in cache (256 separate vectors each missed the cache on a write).
//
// An event alone at its time is popped straight from the pool. Several events of one time become a small
// binary heap ordered by key, so the pop order is exactly (time, key), the total order a binary heap on
// (time, key) gives (tests/unit/test_event_queue.cpp checks it against std::priority_queue).
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gpusched::sim {

// T has `std::int64_t time` (>= 0) and `std::uint64_t key`.
template <class T>
class RadixEventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push(const T& item) {
    if (item.time < base_) throw std::logic_error("event queue: an event earlier than the current time");
    ++size_;
    const auto diff = static_cast<std::uint64_t>(item.time ^ base_);
    if (diff == 0 && current_) {
      now_.push_back(item);
      std::push_heap(now_.begin(), now_.end(), KeyAfter{});
      return;
    }
    put(item, diff);
  }

  // True while events of the current time (the last one popped) remain: lets the engine drain a batch
  // without moving the queue's base time forward, which would refuse events its policy adds at that time.
  bool has_current() const { return !now_.empty(); }

  // The earliest event (smallest key among the earliest); the queue must not be empty. It may advance
  // the base time to that event's time: call it only once nothing earlier will be pushed.
  const T& top() {
    if (!now_.empty()) return now_.front();
    settle();
    const unsigned digit = lowest(0);
    const Node& first = pool_[static_cast<std::size_t>(heads_[digit])];
    if (first.next < 0) return first.item;  // alone at its time: pop takes it from the pool
    take_bucket(digit);
    return now_.front();
  }

  // An event that will be popped soon (of the current time, else of the next time already sorted to the
  // lowest level), or nullptr: lets the engine prefetch what it will touch for it. Changes nothing.
  const T* soon() const {
    if (!now_.empty()) return &now_.front();
    if (!(levels_ & 1u)) return nullptr;
    return &pool_[static_cast<std::size_t>(heads_[lowest(0)])].item;
  }

  T pop() {
    if (now_.empty()) {
      settle();
      const unsigned digit = lowest(0);
      const Node& first = pool_[static_cast<std::size_t>(heads_[digit])];
      if (first.next < 0) {  // the usual case: one event at that time, no heap needed
        const T out = first.item;
        consume(digit);
        --size_;
        return out;
      }
      take_bucket(digit);
    }
    std::pop_heap(now_.begin(), now_.end(), KeyAfter{});
    const T out = now_.back();
    now_.pop_back();
    --size_;
    return out;
  }

 private:
  static constexpr int kLevels = 8;  // 8 digits of 8 bits cover every non-negative int64 time
  static constexpr int kBuckets = 256;
  static constexpr std::array<std::int32_t, kBuckets> filled(std::int32_t v) {
    std::array<std::int32_t, kBuckets> a{};
    a.fill(v);
    return a;
  }

  struct KeyAfter {
    bool operator()(const T& a, const T& b) const { return a.key > b.key; }
  };

  void put(const T& item, std::uint64_t diff) {
    // diff != 0 here unless the current bucket was just emptied into now_ (then level 0 holds it again).
    const int level = diff == 0 ? 0 : (63 - std::countl_zero(diff)) >> 3;
    const auto digit = static_cast<unsigned>(static_cast<std::uint64_t>(item.time) >> (8 * level)) & 0xFFu;
    if (level == 0) {
      // Level 0 is refilled often and read soon: its events go to one pool, appended in order (the pool
      // stays in cache), each bucket a list through it.
      pool_.push_back(Node{item, heads_[digit]});
      heads_[digit] = static_cast<std::int32_t>(pool_.size() - 1);
    } else {
      buckets_[static_cast<std::size_t>(level * kBuckets) + digit].push_back(item);
    }
    bits_[static_cast<std::size_t>(level)][digit >> 6] |= std::uint64_t{1} << (digit & 63);
    words_[static_cast<std::size_t>(level)] |= 1u << (digit >> 6);
    levels_ |= 1u << level;
  }

  // Lowest non-empty bucket of a level (the level must have one).
  unsigned lowest(int level) const {
    const auto i = static_cast<unsigned>(std::countr_zero(words_[static_cast<std::size_t>(level)]));
    return (i << 6) + static_cast<unsigned>(std::countr_zero(bits_[static_cast<std::size_t>(level)][i]));
  }

  void clear_bit(int level, unsigned digit) {
    auto& word = bits_[static_cast<std::size_t>(level)][digit >> 6];
    word &= ~(std::uint64_t{1} << (digit & 63));
    if (word) return;
    auto& words = words_[static_cast<std::size_t>(level)];
    words &= ~(1u << (digit >> 6));
    if (!words) levels_ &= ~(1u << level);
  }

  // Makes level 0 non-empty (size_ > 0, now_ empty): moves the base to the start of the lowest non-empty
  // bucket of the lowest non-empty level and spreads that bucket over the levels below, until level 0 has one.
  void settle() {
    while (!(levels_ & 1u)) {
      const int level = std::countr_zero(levels_);
      const unsigned digit = lowest(level);
      clear_bit(level, digit);
      // The smallest time the bucket can hold: its digit at this level, zeros below. Every event of the
      // bucket differs from it below `level` only (an event at the base itself goes to level 0).
      const int shift = 8 * level;
      const std::uint64_t above = shift + 8 >= 64 ? 0 : ~((std::uint64_t{1} << (shift + 8)) - 1);
      base_ = static_cast<std::int64_t>((static_cast<std::uint64_t>(base_) & above) |
                                        (static_cast<std::uint64_t>(digit) << shift));
      current_ = false;
      auto& from = buckets_[static_cast<std::size_t>(level * kBuckets) + digit];
      for (const auto& e : from) put(e, static_cast<std::uint64_t>(e.time ^ base_));
      from.clear();
    }
  }

  // Level 0's bucket `digit` (one exact time) becomes the current time; its events leave level 0.
  void consume(unsigned digit) {
    clear_bit(0, digit);
    heads_[digit] = -1;
    base_ = static_cast<std::int64_t>((static_cast<std::uint64_t>(base_) & ~std::uint64_t{0xFF}) | digit);
    current_ = true;
    if (!(levels_ & 1u)) pool_.clear();  // level 0 is empty: the pool starts again
  }

  // Several events at one time: they become the current heap, ordered by key.
  void take_bucket(unsigned digit) {
    for (std::int32_t i = heads_[digit]; i >= 0; i = pool_[static_cast<std::size_t>(i)].next)
      now_.push_back(pool_[static_cast<std::size_t>(i)].item);
    consume(digit);
    std::make_heap(now_.begin(), now_.end(), KeyAfter{});
  }

  std::int64_t base_ = 0;  // the current time once an event has been popped
  bool current_ = false;   // now_ holds the events at base_ (pushes at base_ join it)
  std::size_t size_ = 0;
  std::vector<T> now_;  // events at base_, a min-heap on key
  struct Node {
    T item;
    std::int32_t next;  // the bucket's next node in pool_, -1: none
  };
  std::vector<Node> pool_;                                    // level 0's events
  std::array<std::int32_t, kBuckets> heads_ = filled(-1);     // level 0: first node of each bucket
  std::array<std::vector<T>, kLevels * kBuckets> buckets_;    // levels 1 and up (level 0's are unused)
  std::array<std::array<std::uint64_t, 4>, kLevels> bits_{};  // non-empty buckets per level
  std::array<unsigned, kLevels> words_{};                     // bit i: bits_[level][i] != 0
  unsigned levels_ = 0;                                       // bit L: level L has a non-empty bucket
};

}  // namespace gpusched::sim
