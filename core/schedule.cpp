#include "core/schedule.h"

namespace gpusched {

std::string_view to_string(PieceOutcome o) {
  switch (o) {
    case PieceOutcome::Completed: return "completed";
    case PieceOutcome::Drained: return "drained";
    case PieceOutcome::Flushed: return "flushed";
    case PieceOutcome::SwitchedOut: return "switched_out";
    case PieceOutcome::SwitchedIn: return "switched_in";
    case PieceOutcome::Killed: return "killed";
  }
  return "completed";
}

bool piece_outcome_from_string(std::string_view s, PieceOutcome& out) {
  for (auto o : {PieceOutcome::Completed, PieceOutcome::Drained, PieceOutcome::Flushed, PieceOutcome::SwitchedOut,
                 PieceOutcome::SwitchedIn, PieceOutcome::Killed})
    if (s == to_string(o)) {
      out = o;
      return true;
    }
  return false;
}

}  // namespace gpusched
