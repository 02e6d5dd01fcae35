// Plan adherence (issue "Fidelity 2"): how an executed plan departed from the plan, piece by piece, and what each
// launch's turnaround error is made of. In core because it compares any two runs of one workload: an execution on
// the GPU against its plan (gpusched-live validate), or the hardware's dispatch of the plan replayed in simulation
// (sim/parts_replay.h) against it.
//
// Every planned piece that started when another piece on its SM ended has that piece as its hand-off: the slot
// it waited for. In the execution a piece could start once its hand-off's executed piece had ended (or, without
// one, once its launch was released there as long after release as in the plan); its hand-off delay is how much
// later it started: the executor's part. A launch's turnaround error (measured - predicted) is then split exactly
// along the chain of hand-offs that ends at its last executed piece:
//   error = executor (sum of the chain's hand-off delays)
//         + body (where each launch's body speed in the executor alone is known: the chain's planned piece durations
//           x (that factor - 1), what the executor's own body speed adds whatever the plan)
//         + model (sum of the chain's executed - planned piece durations, the planned wait and the body share taken
//           off: interference, block-time variance)
//         + release (how much later the chain's first launch was released than the launch's own, against the plan)
//         + order (the chain's planned end - the launch's planned finish, <= 0: another piece ended it in the plan).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/run_result.h"
#include "core/workload.h"

namespace gpusched {

struct PieceAdherence {
  std::size_t plan_piece = 0;    // index in the planned Schedule's pieces
  std::ptrdiff_t hand_off = -1;  // the planned piece whose end it waited for (index in the planned pieces), or -1
  TimeNs planned_start = 0, planned_end = 0, executed_start = 0, executed_end = 0;
  TimeNs ready = 0;           // when it could have started in the execution
  TimeNs wait = 0;            // planned_wait: its first stamp is due at ready + wait
  TimeNs hand_off_delay = 0;  // executed_start - (ready + wait)
  bool moved = false;  // ran on another SM than planned (a launch the hardware placed): its hand-off was not the plan's
};

struct LaunchErrorParts {
  TimeNs error = 0;  // measured turnaround - predicted turnaround
  TimeNs executor = 0, body = 0, model = 0, release = 0, order = 0;
  std::size_t chain = 0;  // pieces on the chain
};

struct PlanAdherence {
  std::vector<PieceAdherence> pieces;      // one per executed piece, in the executed Schedule's order
  std::vector<LaunchErrorParts> launches;  // by launch index
  // Over the pieces that ran on their planned SM (a moved piece's hand-off delay says nothing about the executor's).
  double hand_off_delay_median_us = 0, hand_off_delay_p99_us = 0;
  std::size_t moved = 0;
  double start_offset_median_us = 0;  // executed_start - planned_start
};

// `executed_plan_piece[i]`: the planned piece executed piece i carried out. Launch outcomes (release, finish) come
// from both runs. `planned_wait[p]` (empty: none): how long planned piece p held its slot before its block's first
// stamp in the plan (its slot occupancy - its raw time, docs/validation.md): a piece's execution is stamped from
// its first instruction, so it is due that long after it could start, and its duration compares with the rest.
// Throws std::invalid_argument when the mapping does not match the Schedules.
// `body_factor` (empty: none, all in `model`): per launch, how much longer its pieces take in this executor than
// planned when the launch runs alone (body_speed_factor of an execution of it alone).
PlanAdherence plan_adherence(const RunResult& planned, const RunResult& executed,
                             const std::vector<std::size_t>& executed_plan_piece,
                             const std::vector<TimeNs>& planned_wait = {}, const std::vector<double>& body_factor = {});

// For an execution whose pieces no executor mapped to the plan's (the hardware placed the blocks: natively, or in
// parts on green contexts): each executed piece's planned piece, the one of its block with the same ordinal by start
// (a block that ran in more pieces than planned maps its later ones to its last). std::nullopt where an executed
// piece's block has no planned piece. With it, plan_adherence's per-piece ready times say when the execution let a
// piece start (its launch's release, the end of the block the plan handed its slot over from), wherever it ran.
std::optional<std::vector<std::size_t>> plan_piece_by_ordinal(const Schedule& planned, const Schedule& executed);

// The executed pieces' total duration over their planned pieces' (the planned wait taken off, as plan_adherence
// compares them): of a launch run alone, its body speed in the executor against the plan. 1 when nothing ran.
double body_speed_factor(const RunResult& planned, const RunResult& executed,
                         const std::vector<std::size_t>& executed_plan_piece, const std::vector<TimeNs>& planned_wait);

// Per planned piece of `plan` (a plan of `w`): how long it held its slot before its block's first stamp (its slot
// occupancy - its raw time: the equivalent raw time of its block, docs/validation.md), never negative. The
// `planned_wait` plan_adherence takes.
std::vector<TimeNs> planned_waits(const Workload& w, const RunResult& plan);

}  // namespace gpusched
