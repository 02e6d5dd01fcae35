#include "live/executor/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace gpusched::live {

EntryKind entry_kind(PieceOutcome planned) {
  switch (planned) {
    case PieceOutcome::Flushed:
      return EntryKind::Flush;
    case PieceOutcome::SwitchedOut:
      return EntryKind::Switch;
    case PieceOutcome::Killed:
      return EntryKind::Kill;
    case PieceOutcome::Completed:
    case PieceOutcome::Drained:
    case PieceOutcome::SwitchedIn:
      break;
  }
  return EntryKind::Run;
}

namespace {

// Most intervals [start, end) open at once (an end at t closes before a start at t opens).
std::int32_t most_at_once(std::vector<std::pair<TimeNs, int>>& events) {
  std::sort(events.begin(), events.end());
  std::int32_t open = 0, most = 0;
  for (const auto& [t, delta] : events) {
    open += delta;
    most = std::max(most, open);
  }
  return most;
}

// Per SM, the plan's pieces of every launch in the order they started; each entry's gate is the last piece of
// another launch before it in that order (its launch and its position in that launch's queue on the SM).
void add_gates(ExecutionPlan& out, const Schedule& plan) {
  struct Ref {
    TimeNs start, end;
    std::int32_t launch, block;
    std::int32_t entry;  // position in its launch's queue on this SM
  };
  std::vector<std::vector<Ref>> per_sm(static_cast<std::size_t>(out.sm_count));
  for (std::size_t l = 0; l < out.launches.size(); ++l) {
    const auto& q = out.launches[l];
    for (int sm = 0; sm < out.sm_count; ++sm)
      for (std::int32_t e = q.sm_begin[static_cast<std::size_t>(sm)]; e < q.sm_begin[static_cast<std::size_t>(sm) + 1];
           ++e) {
        const auto& p = plan.pieces[q.plan_piece[static_cast<std::size_t>(e)]];
        per_sm[static_cast<std::size_t>(sm)].push_back(
            {p.start, p.end, static_cast<std::int32_t>(l), p.block, e - q.sm_begin[static_cast<std::size_t>(sm)]});
      }
  }
  for (int sm = 0; sm < out.sm_count; ++sm) {
    auto& refs = per_sm[static_cast<std::size_t>(sm)];
    std::sort(refs.begin(), refs.end(), [](const Ref& a, const Ref& b) {
      return std::tie(a.start, a.end, a.launch, a.block) < std::tie(b.start, b.end, b.launch, b.block);
    });
    // The last piece seen of each of the two most recent launches: the gate of a piece is the latest piece of a
    // launch other than its own.
    Ref last{0, 0, -1, 0, -1}, last_other{0, 0, -1, 0, -1};
    for (const auto& r : refs) {
      const Ref& gate = last.launch != r.launch ? last : last_other;
      auto& entry = out.launches[static_cast<std::size_t>(r.launch)].entries[static_cast<std::size_t>(
          out.launches[static_cast<std::size_t>(r.launch)].sm_begin[static_cast<std::size_t>(sm)] + r.entry)];
      entry.gate_launch = gate.launch;
      entry.gate_entry = gate.launch >= 0 ? gate.entry : -1;
      if (r.launch != last.launch) last_other = last;
      last = r;
    }
  }
}

}  // namespace

void check_plan_pieces(const Schedule& plan, std::size_t launches, int sm_count) {
  for (const auto& p : plan.pieces) {
    if (p.gpu != 0)
      throw std::invalid_argument(
          fmt::format("the plan puts launch {} on GPU {}: the executor drives one GPU (run the workload with one GPU)",
                      p.launch, p.gpu));
    if (p.sm < 0 || p.sm >= sm_count)
      throw std::invalid_argument(
          fmt::format("the plan puts launch {} on SM {}, but the GPU has {} SMs", p.launch, p.sm, sm_count));
    if (p.launch < 0 || static_cast<std::size_t>(p.launch) >= launches)
      throw std::invalid_argument(
          fmt::format("the plan has a piece of launch {}, but the workload has {} launches", p.launch, launches));
  }
}

ExecutionPlan build_execution_plan(const Schedule& plan, std::size_t launches, int sm_count) {
  ExecutionPlan out;
  out.sm_count = sm_count;
  out.launches.resize(launches);
  // Pieces by launch, then SM, then start (ties by end, then block: the order a worker takes them).
  std::vector<std::size_t> order(plan.pieces.size());
  std::iota(order.begin(), order.end(), 0);
  check_plan_pieces(plan, launches, sm_count);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = plan.pieces[a];
    const auto& y = plan.pieces[b];
    return std::tie(x.launch, x.sm, x.start, x.end, x.block) < std::tie(y.launch, y.sm, y.start, y.end, y.block);
  });
  std::size_t i = 0;
  for (std::size_t l = 0; l < launches; ++l) {
    auto& q = out.launches[l];
    q.sm_begin.assign(static_cast<std::size_t>(sm_count) + 1, 0);
    q.sm_quota.assign(static_cast<std::size_t>(sm_count), 0);
    for (int sm = 0; sm < sm_count; ++sm) {
      q.sm_begin[static_cast<std::size_t>(sm)] = static_cast<std::int32_t>(q.entries.size());
      std::vector<std::pair<TimeNs, int>> events;
      for (; i < order.size() && plan.pieces[order[i]].launch == static_cast<std::int32_t>(l) &&
             plan.pieces[order[i]].sm == sm;
           ++i) {
        const auto& p = plan.pieces[order[i]];
        const EntryKind kind = entry_kind(p.outcome);
        q.entries.push_back({p.block, static_cast<std::int32_t>(kind), kind == EntryKind::Run ? 0 : p.end - p.start});
        q.plan_piece.push_back(order[i]);
        q.stops |= kind != EntryKind::Run;
        q.switches |= kind == EntryKind::Switch;
        events.emplace_back(p.start, 1);
        events.emplace_back(p.end, -1);
      }
      q.sm_quota[static_cast<std::size_t>(sm)] = most_at_once(events);
    }
    q.sm_begin[static_cast<std::size_t>(sm_count)] = static_cast<std::int32_t>(q.entries.size());
  }
  add_gates(out, plan);
  std::size_t planned = 0;
  for (auto& q : out.launches) {
    planned += !q.entries.empty();
    q.start_order.resize(q.entries.size());
    std::iota(q.start_order.begin(), q.start_order.end(), 0);
    std::stable_sort(q.start_order.begin(), q.start_order.end(), [&](std::int32_t a, std::int32_t b) {
      const auto& x = plan.pieces[q.plan_piece[static_cast<std::size_t>(a)]];
      const auto& y = plan.pieces[q.plan_piece[static_cast<std::size_t>(b)]];
      return std::tie(x.start, x.end, x.sm, x.block) < std::tie(y.start, y.end, y.sm, y.block);
    });
  }
  for (auto& q : out.launches) {
    bool every_sm = planned == 1 && !q.entries.empty();
    for (int sm = 0; every_sm && sm < sm_count; ++sm)
      every_sm = q.sm_begin[static_cast<std::size_t>(sm) + 1] > q.sm_begin[static_cast<std::size_t>(sm)];
    q.gpu_to_itself = every_sm;
  }
  return out;
}

LaunchQueues alone_queues(std::int64_t blocks, int sm_count, int quota, EntryKind kind) {
  LaunchQueues q;
  q.sm_begin.reserve(static_cast<std::size_t>(sm_count) + 1);
  for (int sm = 0; sm < sm_count; ++sm) {
    q.sm_begin.push_back(static_cast<std::int32_t>(q.entries.size()));
    for (std::int64_t b = sm; b < blocks; b += sm_count) {
      q.entries.push_back({static_cast<std::int32_t>(b), static_cast<std::int32_t>(kind), 0});
      q.plan_piece.push_back(static_cast<std::size_t>(b));
    }
  }
  q.sm_begin.push_back(static_cast<std::int32_t>(q.entries.size()));
  q.sm_quota.assign(static_cast<std::size_t>(sm_count), quota);
  q.stops = kind != EntryKind::Run;
  q.switches = kind == EntryKind::Switch;
  q.start_order.reserve(q.entries.size());
  for (std::int64_t b = 0; b < blocks; ++b)
    q.start_order.push_back(q.sm_begin[static_cast<std::size_t>(b % sm_count)] +
                            static_cast<std::int32_t>(b / sm_count));
  q.gpu_to_itself = blocks >= sm_count;
  return q;
}

bool hardware_placed(const LaunchQueues& q, int residency) {
  if (!q.gpu_to_itself || q.stops || residency < 1 || q.start_order.size() != q.entries.size()) return false;
  return std::all_of(q.sm_quota.begin(), q.sm_quota.end(), [&](std::int32_t quota) { return quota >= residency; });
}

int worker_grid_blocks(int workers_per_sm, int sms, std::size_t entries, int entries_per_worker) {
  std::int64_t blocks = static_cast<std::int64_t>(workers_per_sm) * sms;
  if (entries_per_worker > 0)
    blocks += static_cast<std::int64_t>((entries + static_cast<std::size_t>(entries_per_worker) - 1) /
                                        static_cast<std::size_t>(entries_per_worker));
  return static_cast<int>(std::min<std::int64_t>(blocks, std::numeric_limits<int>::max()));
}

LaunchQueues piece_part_queue(const Schedule& plan, const std::vector<sim::PlannedPieces>& parts) {
  LaunchQueues q;
  q.sm_begin.assign(2, 0);
  q.sm_quota.assign(1, 0);
  for (const auto& part : parts)
    for (const std::size_t k : part.pieces) {
      const BlockPiece& p = plan.pieces.at(k);
      ExecEntry e;
      e.block = p.block;
      const EntryKind kind = entry_kind(p.outcome);
      e.kind = static_cast<std::int32_t>(kind);
      e.budget_ns = kind == EntryKind::Run ? 0 : p.end - p.start;
      e.planned_end_ns = p.end;
      q.stops = q.stops || kind != EntryKind::Run;
      q.switches = q.switches || kind == EntryKind::Switch;
      q.entries.push_back(e);
      q.plan_piece.push_back(k);
    }
  return q;
}

std::vector<bool> parts_needing_claims(const LaunchQueues& q, const std::vector<sim::PlannedPieces>& parts) {
  std::unordered_map<std::int32_t, int> pieces_of_block;
  for (const ExecEntry& e : q.entries) ++pieces_of_block[e.block];
  std::vector<bool> out;
  out.reserve(parts.size());
  std::size_t e = 0;
  for (const auto& part : parts) {
    bool claims = false;
    for (std::size_t k = 0; k < part.pieces.size(); ++k, ++e) {
      const ExecEntry& entry = q.entries.at(e);
      claims = claims || entry.kind != static_cast<std::int32_t>(EntryKind::Run) || pieces_of_block[entry.block] > 1;
    }
    out.push_back(claims);
  }
  if (e != q.entries.size()) throw std::invalid_argument("parts_needing_claims: the parts are not the queue's");
  return out;
}

}  // namespace gpusched::live
