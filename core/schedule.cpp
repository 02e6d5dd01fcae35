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

std::string_view to_string(PhaseState s) {
  switch (s) {
    case PhaseState::Wait: return "wait";
    case PhaseState::RestoreState: return "restore_state";
    case PhaseState::ReadyToLaunch: return "ready_to_launch";
    case PhaseState::Running: return "running";
    case PhaseState::SaveState: return "save_state";
  }
  return "wait";
}

bool phase_state_from_string(std::string_view s, PhaseState& out) {
  for (auto st : {PhaseState::Wait, PhaseState::RestoreState, PhaseState::ReadyToLaunch, PhaseState::Running,
                  PhaseState::SaveState})
    if (s == to_string(st)) {
      out = st;
      return true;
    }
  return false;
}

}  // namespace gpusched
