#include "live/executor/entry_rows.h"

#include <fmt/format.h>

namespace gpusched::live {

PieceOutcome executed_outcome(ExecOutcome o) {
  switch (o) {
    case ExecOutcome::Flushed:
      return PieceOutcome::Flushed;
    case ExecOutcome::SwitchedOut:
      return PieceOutcome::SwitchedOut;
    case ExecOutcome::SwitchedIn:
      return PieceOutcome::SwitchedIn;
    case ExecOutcome::Killed:
      return PieceOutcome::Killed;
    case ExecOutcome::Drained:
      return PieceOutcome::Drained;
    default:
      return PieceOutcome::Completed;
  }
}

std::string_view to_string(ExecOutcome o) {
  if (o == ExecOutcome::None) return "none";
  if (o == ExecOutcome::Skipped) return "skipped";
  return gpusched::to_string(executed_outcome(o));
}

namespace {

std::string us(std::int64_t ns) {
  return ns == kNotStamped ? std::string() : fmt::format("{:.3f}", static_cast<double>(ns) / 1e3);
}

}  // namespace

std::vector<std::string> entry_csv_rows(std::string_view execution, const std::vector<std::string>& launch_ids,
                                        const Schedule& plan, const std::vector<PieceEntry>& entries,
                                        const std::vector<std::vector<TimeNs>>& part_called) {
  std::vector<std::string> rows;
  rows.reserve(entries.size());
  for (const PieceEntry& e : entries) {
    const BlockPiece& planned = plan.pieces.at(e.plan_piece);
    const auto launch = static_cast<std::size_t>(e.launch);
    const auto& calls = part_called.at(launch);
    const std::int64_t called = calls.empty() ? kNotStamped : calls.at(static_cast<std::size_t>(e.part));
    rows.push_back(fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}", execution, launch_ids.at(launch), e.part,
                               e.entry, e.block, e.sm, to_string(planned.outcome), to_string(e.outcome),
                               us(planned.start), us(planned.end), us(called), us(e.entered), us(e.start), us(e.end)));
  }
  return rows;
}

}  // namespace gpusched::live
