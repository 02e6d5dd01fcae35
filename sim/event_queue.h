// The engine's event queue: a binary min-heap of 16-byte events on std::push_heap / std::pop_heap. A
// 4-ary heap was tried and executed 9% more instructions per event (callgrind, tests/bench); see
// docs/performance.md.
#pragma once
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace gpusched::sim {

// std::push_heap / std::pop_heap (libstdc++'s pop sifts the hole to a leaf, then the last item up).
template <class T, class Before>
class BinaryHeap {
 public:
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  const T& top() const { return items_.front(); }
  void reserve(std::size_t n) { items_.reserve(n); }
  void push(const T& item) {
    items_.push_back(item);
    std::push_heap(items_.begin(), items_.end(), After{});
  }
  T pop() {
    std::pop_heap(items_.begin(), items_.end(), After{});
    T out = items_.back();
    items_.pop_back();
    return out;
  }

 private:
  struct After {
    bool operator()(const T& a, const T& b) const { return Before{}(b, a); }
  };
  std::vector<T> items_;
};

}  // namespace gpusched::sim
