#include "sim/policies/ordered_issue.h"

#include <algorithm>

namespace gpusched::sim {

void OrderedIssue::run(const EngineView& v, std::span<const EngineEvent> events, Actions& a,
                       std::span<const std::int32_t> order, bool only_first) {
  if (!initialised_) {
    placement_.placement = resolve_placement(params_, v.gpu());
    all_ = all_sms(v);
    initialised_ = true;
  }
  // Only SMs that freed resources can take new blocks, unless what may run has changed.
  bool full = structural(events);
  // Launches at the front that have issued every block stay that way (these policies never preempt or
  // slice), so they are skipped until the order changes: with 64 launches this is most of the work.
  if (full) skip_ = 0;
  for (std::size_t i = only_first ? 0 : skip_; i < order.size(); ++i) {
    const std::int32_t l = order[i];
    if (v.launch(l).issuable() == 0) {
      if (only_first) return;
      if (i == skip_) ++skip_;
      continue;
    }
    // A launch the GPU cannot start (every resident grid held by others) blocks no one: the hardware's block
    // scheduler sees only the grids it holds. It is met again once a launch finishes and frees a grid.
    if (!v.can_start(l)) {
      if (only_first) return;
      continue;
    }
    if (l != last_head_) {
      full = true;
      last_head_ = l;
    }
    issue_blocks(v, a, l, full ? std::span<const std::int32_t>(all_) : std::span<const std::int32_t>(v.freed_sms()),
                 placement_);
    if (only_first || v.launch(l).issuable() > 0) return;  // head-of-line blocking
    full = true;                                           // the next launch may use space left anywhere
  }
}

void SortedIssuePolicy::on_events(const EngineView& v, std::span<const EngineEvent> events, Actions& a) {
  if (structural(events)) {
    order_ = v.active();  // release order, ties by index: the stable sort keeps it among equals
    std::stable_sort(order_.begin(), order_.end(), [&](std::int32_t x, std::int32_t y) { return before_(v, x, y); });
  }
  issue_.run(v, events, a, order_);
}

}  // namespace gpusched::sim
