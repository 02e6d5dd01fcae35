#include "live/executor/fused_plan.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <tuple>

#include "live/executor/plan.h"

namespace gpusched::live {

FusedPlan build_fused_plan(const Schedule& plan, std::size_t launches, int sm_count) {
  FusedPlan out;
  out.sm_count = sm_count;
  out.launch_entries.assign(launches, 0);
  out.switches.assign(launches, false);
  check_plan_pieces(plan, launches, sm_count);
  std::vector<std::size_t> order(plan.pieces.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = plan.pieces[a];
    const auto& y = plan.pieces[b];
    return std::tie(x.sm, x.start, x.end, x.launch, x.block) < std::tie(y.sm, y.start, y.end, y.launch, y.block);
  });
  out.sm_begin.assign(static_cast<std::size_t>(sm_count) + 1, 0);
  out.sm_most.assign(static_cast<std::size_t>(sm_count), 0);
  std::size_t i = 0;
  for (int sm = 0; sm < sm_count; ++sm) {
    out.sm_begin[static_cast<std::size_t>(sm)] = static_cast<std::int32_t>(out.entries.size());
    // Ends of the SM's earlier pieces not yet counted as ended; starts do not decrease along the queue, so an end
    // counted once stays counted.
    std::priority_queue<TimeNs, std::vector<TimeNs>, std::greater<>> open;
    std::int32_t ended = 0, most = 0;
    for (; i < order.size() && plan.pieces[order[i]].sm == sm; ++i) {
      const auto& p = plan.pieces[order[i]];
      while (!open.empty() && open.top() <= p.start) {
        open.pop();
        ++ended;
      }
      const EntryKind kind = entry_kind(p.outcome);
      out.entries.push_back(
          {p.launch, p.block, static_cast<std::int32_t>(kind), ended, kind == EntryKind::Run ? 0 : p.end - p.start});
      out.plan_piece.push_back(order[i]);
      out.stops |= kind != EntryKind::Run;
      if (kind == EntryKind::Switch) out.switches[static_cast<std::size_t>(p.launch)] = true;
      ++out.launch_entries[static_cast<std::size_t>(p.launch)];
      open.push(p.end);
      most = std::max(most, static_cast<std::int32_t>(open.size()));
    }
    out.sm_most[static_cast<std::size_t>(sm)] = most;
  }
  out.sm_begin[static_cast<std::size_t>(sm_count)] = static_cast<std::int32_t>(out.entries.size());
  return out;
}

}  // namespace gpusched::live
