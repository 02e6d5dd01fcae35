#include "live/executor/fused_plan.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <utility>

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
  // Pieces per block: a block carried out in one piece needs no claim.
  std::map<std::pair<std::int32_t, std::int32_t>, int> pieces_of_block;
  for (const auto& p : plan.pieces) ++pieces_of_block[{p.launch, p.block}];
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
      const std::int32_t claims = pieces_of_block[{p.launch, p.block}] > 1 ? 1 : 0;
      out.entries.push_back({p.launch, p.block, static_cast<std::int32_t>(kind), ended, claims,
                             kind == EntryKind::Run ? 0 : p.end - p.start});
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

std::vector<std::int64_t> entry_ready_latency(const FusedPlan& plan, const std::vector<ExecRecord>& records,
                                              std::uint64_t origin_ns, const std::vector<std::int64_t>& release_ns,
                                              const std::vector<std::vector<std::size_t>>& predecessors) {
  const std::size_t n = plan.entries.size();
  if (records.size() != n) throw std::invalid_argument("entry_ready_latency: one record is needed per entry");
  if (release_ns.size() != plan.launch_entries.size() || predecessors.size() != release_ns.size())
    throw std::invalid_argument("entry_ready_latency: one release and one predecessor list are needed per launch");
  const auto ended = [&](std::size_t e) { return static_cast<ExecOutcome>(records[e].outcome) != ExecOutcome::None; };
  const auto ran = [&](std::size_t e) {
    return ended(e) && static_cast<ExecOutcome>(records[e].outcome) != ExecOutcome::Skipped;
  };
  // Each launch's last end: when the launches that wait for it could go.
  std::vector<std::uint64_t> launch_end(release_ns.size(), 0);
  for (std::size_t e = 0; e < n; ++e)
    if (ended(e)) {
      auto& last = launch_end[static_cast<std::size_t>(plan.entries[e].launch)];
      last = std::max(last, records[e].end_ns);
    }
  std::vector<std::int64_t> out(n, kNoLatency);
  std::vector<std::uint64_t> ends;
  for (int sm = 0; sm < plan.sm_count; ++sm) {
    const auto begin = static_cast<std::size_t>(plan.sm_begin[static_cast<std::size_t>(sm)]),
               end = static_cast<std::size_t>(plan.sm_begin[static_cast<std::size_t>(sm) + 1]);
    ends.clear();
    for (std::size_t e = begin; e < end; ++e)
      if (ended(e)) ends.push_back(records[e].end_ns);
    std::sort(ends.begin(), ends.end());
    for (std::size_t e = begin; e < end; ++e) {
      if (!ran(e)) continue;
      const FusedEntry& en = plan.entries[e];
      const auto l = static_cast<std::size_t>(en.launch);
      std::uint64_t ready = origin_ns + static_cast<std::uint64_t>(std::max<std::int64_t>(0, release_ns[l]));
      const auto need = static_cast<std::size_t>(std::max(0, en.need_done));
      if (need > 0 && need <= ends.size()) ready = std::max(ready, ends[need - 1]);
      for (const std::size_t p : predecessors[l]) ready = std::max(ready, launch_end[p]);
      out[e] = static_cast<std::int64_t>(records[e].start_ns) - static_cast<std::int64_t>(ready);
    }
  }
  return out;
}

}  // namespace gpusched::live
