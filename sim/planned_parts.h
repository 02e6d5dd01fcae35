// A plan's launches cut where its SM partition changes (docs/validation.md, "Partitions on green contexts"), so that
// the hardware can carry out a spatial plan: each part is a range of a launch's blocks that the plan runs on one set
// of SMs, as a grid of its own in a green context of those SMs, issued when the plan starts its first block.
#pragma once
#include <cstdint>
#include <vector>

#include "core/run_result.h"
#include "core/time.h"

namespace gpusched::sim {

struct PlannedPart {
  std::int32_t first = 0;  // blocks first..first+blocks-1 of the launch
  std::int32_t blocks = 0;
  std::vector<int> sms;  // the SMs the plan runs them on, ascending
  TimeNs start = 0;      // the plan's start of the part's first block
};

// Per launch, its parts in block order. The plan's SM partition changes only where some launch starts its first
// block, starts its last or ends (spatial repartitions when a launch is released, finishes issuing or finishes); a
// launch's blocks that start between two such instants are one part, and neighbouring parts on the same SMs are
// merged. Empty for a launch whose parts would not be block ranges (a plan that starts its blocks out of index
// order), and for every launch of a plan over several GPUs or one that runs a block in several pieces.
// `at_residency_changes` (validate and as-priorities --cut-at-residency): neighbouring parts on the same SMs are kept
// apart where the most of the launch's blocks the plan runs at once on one SM differs between them
// (PieceCut::apart_where_residency_changes), so that a part held to the plan's blocks an SM is held to its own phase's.
std::vector<std::vector<PlannedPart>> planned_parts(const RunResult& plan, bool at_residency_changes = false);

// Whether a cut can carry out the whole plan: it has launches and every one of them has parts (an execution in parts,
// and its replay, need them all cut).
bool every_launch_has_parts(const std::vector<std::vector<PlannedPart>>& cut);

// A part of a plan that stops and resumes blocks (Chimera's flushes and switches, docs/validation.md, "Preempting plans
// in parts"): the plan's pieces of one launch that start between two instants where the partition changes, in their
// planned start order, whatever their blocks. A grid of one worker per piece carries it out; a piece the plan stops
// is stopped after its planned duration, and a block's later piece resumes what its earlier one saved.
struct PlannedPieces {
  std::vector<std::size_t> pieces;  // indices into plan.schedule.pieces, by planned start (ties by block)
  std::vector<int> sms;             // the SMs the plan runs them on, ascending
  TimeNs start = 0;                 // the plan's start of the first
};

// How planned_piece_parts cuts a plan.
struct PieceCut {
  // > 0: a part that starts less than this after the start of its launch's part before it joins that part (the union
  // of their SMs, the earlier start). The instants are global, so one preemption cuts every running launch, and the
  // cut has parts of a few pieces a few microseconds apart; the GPU starts at most one grid about every 2 us
  // (docs/validation.md, "Grids the GPU starts a second"), so such parts queue behind each other. Joined, a piece may
  // start up to `merge_within` before its planned start, on an SM of its launch's part before.
  TimeNs merge_within = 0;
  // A part on the same SMs as its launch's part before it is merged into that part, except, where this is set, when
  // another launch starts pieces on those SMs between the two (the plan hands the SMs over: it stops the launch's
  // pieces there, or lets them end and gives the slots to another). Merged, the later part's workers are in the same
  // grid, and the hardware places them in the freed slots as soon as no grid of a greater priority is waiting, ahead
  // of their planned start and of the launch the slots are for (validate-h200's srtf-chimera: mriq's pieces after
  // histogram took histogram's slots in some executions, histogram +77 %; bursts-h200's: b0-2-histogram's blocks
  // after b1-3-blackscholes ran before it, which started 150 us late; docs/validation.md, "Safe points off the sample
  // loop").
  bool apart_after_hand_over = true;
  // A part on the same SMs as its launch's part before it is merged into that part, except, where this is set, when
  // the most of the launch's blocks the plan runs at once on one SM differs between the two instants' windows (the
  // plan holds the launch to fewer slots an SM beside another launch, then lets it fill them: JIT MPMax's reservation,
  // srtf-adaptive's residency cap). Parts held to the plan's blocks an SM (validate --capped-parts) are held to their
  // part's most: merged, a part planned to hold one slot an SM while another launch runs and seven after it holds seven
  // from its start, and takes the other launch's slots (validate-h200's mpmax: mriq's part 13 took stencil's, whose
  // part waited 1 ms; docs/validation.md, "Parts held by the phase of the plan").
  bool apart_where_residency_changes = false;
};

// Per launch, its parts in start order. The instants are planned_parts' (each launch's first start, last start and
// end) and the end of every piece the plan stops (flush, switch, kill): where an SM changes hands. (Every launch's
// release as a further instant, where a preempting policy decides, was measured no better: docs/validation.md,
// "Preempting plans in parts".) Neighbouring parts on the same SMs are merged (but see
// PieceCut::apart_after_hand_over), then joined as PieceCut::merge_within says. Empty for every launch of a plan over
// several GPUs. `unjoined`, where given, is set to the number of parts the cut has with merge_within 0 (validate
// reports both).
std::vector<std::vector<PlannedPieces>> planned_piece_parts(const RunResult& plan, const PieceCut& how = {},
                                                            std::size_t* unjoined = nullptr);

// Per launch and part of a cut of pieces: whether the part holds only the launch's planned sample (planned_samples:
// the blocks a plan that samples runs on one SM before the launch runs anywhere else, srtf-chimera's). Stream
// priorities rank a launch by its whole issuing window, so the sample of a launch the plan finishes late sits below
// the launches running beside it; the hardware then gives its SM's freed slots to their grids first, and the sample
// waits for them to run out of blocks (validate-h200's srtf-chimera: stencil's sample 2.1 ms, sad's 0.5 ms, gather's
// 0.9 ms). `gpusched-live validate` issues such parts at the greatest priority (--sample-parts).
std::vector<std::vector<char>> sample_parts(const RunResult& plan, const std::vector<std::vector<PlannedPieces>>& cut);

// One planned piece of a plan cut as `gpusched-live validate` cuts it in parts: by planned_parts where every block runs
// in one piece, else by planned_piece_parts. `gpusched as-priorities --parts-csv` writes them, and
// scripts/part-lateness.py lays an execution's pieces over them (docs/validation.md, "Events behind parts").
struct PlannedPartPiece {
  std::int32_t launch = 0;
  std::int32_t part = 0;  // the part's index among its launch's parts
  std::int32_t block = 0;
  TimeNs start = 0, end = 0;
};
// In launch, part and planned start order; empty for a plan no cut covers (a launch without parts, several GPUs).
// `at_residency_changes` as for planned_parts (plans of whole blocks only).
std::vector<PlannedPartPiece> planned_part_pieces(const RunResult& plan, bool at_residency_changes = false);
// The pieces of a given cut of a plan of whole blocks (planned_parts'), in the same order; empty where it does not
// cover every launch.
std::vector<PlannedPartPiece> planned_part_pieces(const RunResult& plan,
                                                  const std::vector<std::vector<PlannedPart>>& cut);

}  // namespace gpusched::sim
