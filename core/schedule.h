// Schedule: every executed block piece. The one currency between sim, live, store and gui (DESIGN).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/time.h"

namespace gpusched {

// How a piece of a block's execution ended.
//  Completed   - ran from the block's start to its end in one piece;
//  Drained     - completed on an SM that was being drained (it was waited for);
//  Flushed     - abandoned while idempotent; the block runs again from its start (work lost);
//  SwitchedOut - stopped and its context saved; it continues in a later piece;
//  SwitchedIn  - started by restoring a saved context and ran to the block's end.
// Killed: the launch was killed (at its deadline) with the block resident; its work is dropped, not rerun.
enum class PieceOutcome : std::uint8_t { Completed, Drained, Flushed, SwitchedOut, SwitchedIn, Killed };
std::string_view to_string(PieceOutcome o);
bool piece_outcome_from_string(std::string_view s, PieceOutcome& out);
// The piece was stopped before its block's end (flushed, switched out or killed): its SM changes hands there.
inline bool stopped_before_block_end(PieceOutcome o) {
  return o == PieceOutcome::Flushed || o == PieceOutcome::SwitchedOut || o == PieceOutcome::Killed;
}

struct BlockPiece {
  TimeNs start = 0;
  TimeNs end = 0;
  std::int32_t launch = 0;  // index into the workload's launches
  std::int32_t block = 0;   // block index within the launch
  std::int16_t gpu = 0;
  std::int16_t sm = 0;  // SM within its GPU
  PieceOutcome outcome = PieceOutcome::Completed;
  friend bool operator==(const BlockPiece&, const BlockPiece&) = default;
};

// States a launch passes through under time-sharing (seed 004 Fig. 3: the kernel control block), kept as
// spans beside the block pieces. Finish is the end of the last span.
enum class PhaseState : std::uint8_t { Wait, RestoreState, ReadyToLaunch, Running, SaveState };
std::string_view to_string(PhaseState s);
bool phase_state_from_string(std::string_view s, PhaseState& out);

struct PhaseSpan {
  TimeNs start = 0;
  TimeNs end = 0;
  std::int32_t launch = 0;
  std::int16_t gpu = -1;  // the GPU the state concerns (-1: none, e.g. waiting in the queue)
  PhaseState state = PhaseState::Wait;
  friend bool operator==(const PhaseSpan&, const PhaseSpan&) = default;
};

struct Schedule {
  std::vector<BlockPiece> pieces;  // in the order pieces ended (ties by SM and slot)
  std::vector<PhaseSpan> phases;   // launch states set by the policy (time-sharing), in the order they ended
};

}  // namespace gpusched
