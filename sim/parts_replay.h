// A plan carried out in parts (sim/planned_parts.h) as the hardware would carry it out: every part a grid of its
// own, confined to the SMs the plan runs it on (a green context), issued at the part's planned start at its launch's
// stream priority, and the hardware's dispatcher deciding which pending grid's blocks take a freed slot. The parts
// keep the plan's SM partition, but not its mix of launches on one SM: a plan that holds a launch to one slot an SM
// beside another launch's blocks (JIT MPMax's reservation, srtf-adaptive's residency cap) is run by the hardware
// with each SM filled from the highest-priority pending grid. How far this replay is from the plan is how far the
// execution in parts would be if the model were exact (docs/validation.md, "What the hardware makes of a plan in
// parts"). Plain C++: tested without a GPU.
#pragma once
#include <string>
#include <vector>

#include "core/gpu_spec.h"
#include "core/run_result.h"
#include "core/workload.h"
#include "sim/launch_priorities.h"
#include "sim/part_starts.h"
#include "sim/planned_parts.h"
#include "sim/runner.h"

namespace gpusched::sim {

// `cut` is planned_parts(plan): one list per launch of `w`, none empty. Each part is simulated as a launch of a copy
// of its launch's kernel with the part's blocks, each taking the recorded time of its own block of the launch,
// arriving at the part's planned start less the GPU's launch latency
// (the executor issues it so: cmd_validate), never before its launch's own arrival, the grids leaving the front end
// one at a time (front_end_starts with the GPU's grid_start_interval_ns), confined to the part's SMs, at
// the priority launch_priorities(plan, 0, 1 - levels) gives its launch; the dispatcher is the hardware's with stream
// priorities (policy `priority`), its head-of-line blocking per SM: a grid's blocks wait on an SM while a grid ahead
// of it that may run there has blocks left. `options`' interference and seed are kept. The result's `replay` holds
// the parts as launches; `turnaround_err_pct` and `same_finish_order` are per launch of `w` (a launch finishes with
// its last part, its turnaround counted from the plan's release).
//
// `parts.capped` (what `validate --capped-parts` carries out): each part whose planned residency binds
// (binding_part_caps) is also held to it, as a grid of workers that admit themselves on an SM up to that many and pull
// the part's blocks in turn; such a part holds no SM against the grids behind it (its surplus workers leave at once, so
// its grid is soon all placed). A part whose planned residency does not bind runs as a plain grid, head-of-line
// blocking included, as the executor runs it (docs/validation.md, "Parts held to the plan's blocks an SM").
struct PartsReplayOptions {
  bool capped = false;           // the parts whose planned residency binds held to it (above)
  bool part_priorities = false;  // each part at its own priority (part_priorities) instead of its launch's
};
//
// `context_sms` (part_context_sms, flattened launch by launch): each part's grid confined to the SMs of its green
// context instead of its planned SMs, as the executor runs it (a part planned on SM 31 alone may then place blocks on
// SM 30, its group's other SM; docs/validation.md, "Green contexts in the parts replay"). Empty: the planned SMs; an
// empty entry: every SM.
PriorityReplay replay_in_parts(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                               const std::vector<std::vector<PlannedPart>>& cut, RunOptions options, int levels,
                               AloneTimeCache& alone, PartsReplayOptions parts = {},
                               const std::vector<std::vector<int>>& context_sms = {});

// The four ways `gpusched-live validate` can carry out a plan in parts, each replayed: at their launches' priorities,
// held to the plan's blocks an SM (capped), each part at a priority of its own (by part), both; in that order.
struct PartsWay {
  PartsReplayOptions options;
  PriorityReplay replay;
  // The replay's part start delays (sim/part_starts.h, part_start_delays_after_ready_us), in us: what the hardware's
  // placement of the parts does to their starts with the model exact. An execution in parts measures the same.
  std::vector<double> start_delays_us;
  std::size_t parts_short = 0;  // by part: parts beyond the device's priority levels (their order the hardware's)
  double makespan_err_pct = 0;  // the replay's makespan against the plan's, (replay - plan) / plan x 100
  // Parts whose planned residency binds (binding_part_caps) over more blocks than that many on each of their SMs:
  // the plan holds them beside other launches' blocks on an SM for more than one round, a mix the hardware does not
  // keep by itself. The same for every way.
  std::size_t held_parts = 0;
};
// What the report calls a way: "at their launches' priorities", "held to the plan's blocks an SM", "each at its own
// priority", "both".
const char* parts_way_name(PartsReplayOptions way);

// The start delays (us) of a replay_in_parts of `plan` in `cut`, as PartsWay::start_delays_us has them.
std::vector<double> replay_start_delays_us(const Workload& w, const RunResult& plan,
                                           const std::vector<std::vector<PlannedPart>>& cut,
                                           const PriorityReplay& replay);
// The same with the plan's side worked out already (PlanPartIndex of `plan`) and its planned waits.
std::vector<double> replay_start_delays_us(const PlanPartIndex& plan, const std::vector<TimeNs>& planned_waits,
                                           const PriorityReplay& replay);

// The start delays are measured against `cut` (planned_parts(plan), or planned_parts(plan, true)). `context_sms` as
// for replay_in_parts, for every way.
std::vector<PartsWay> replay_parts_ways(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                        const std::vector<std::vector<PlannedPart>>& cut, const RunOptions& options,
                                        int levels, AloneTimeCache& alone,
                                        const std::vector<std::vector<int>>& context_sms = {});

// How validate's auto picks among the ways (docs/validation.md, "Start delays the parts replay foresees", "Plans
// the hardware does not keep in parts" and "Block times in the parts replay"). A way is within the bound where its
// replay's turnarounds are within the bound (turnarounds_within) and, with a makespan bound, its makespan
// within that many percent of the plan's: a replay within the turnaround bound can still run the plan 19 % long
// (live-h200's mpmax, whose launches are long), and so did the GPU.
//  - First: the first way within the bound;
//  - Starts (the default): that one, unless a later way within the bound foresees start delays of less than half its
//    p99 (the way with the least, of those). The foreseen p99 is within a factor of two of the measured one where the
//    parts replay foresees the execution, so a smaller gain is not trusted. Not a way with parts short of a priority
//    level (validate-h100's mpmax ran 40 % long so), nor one that holds parts where the first did not: held parts'
//    turnarounds are not foreseen everywhere (live-h200's mpmax plan, held for its start delays: p90 75 % on the GPU
//    against 13 % in the replay; live-h100's in session 35).
// Where the plan holds parts below their residency (held_parts) and the parts at their launches' priorities replay
// beyond the makespan bound, the hardware does not keep the mix of launches on an SM that the plan relies on. Then
//  - a way that holds parts is taken only within half the makespan bound: where the hardware loses the mix, held
//    parts' turnarounds are not foreseen (live-h200's mpmax plan held replays 6.7 % long, and ran p90 75 % on the GPU
//    in session 46; validate-h200's replays 0.0 % long, and ran within the bound). On the H100 the half bound
//    no longer tells mpmax's two plans apart (held, live-h100's replays 5.9 % long, p90 69 % on the GPU in session 35;
//    validate-h100's 6.4 %, within the bound there): fitted, when the replay took each part's block times
//    from its launch's first blocks, to 7.3 and 3.5 %;
//  - no way short of priority levels is taken (the order of such parts is the hardware's, and the replay's guess of
//    it is what the plan hangs on);
//  - and where no way is left, `fused`: the fused worker, whose per-SM queues keep the plan's mix, carries the plan
//    out instead (live-h200's mpmax: 5.5-5.9 / 7.6-11.3 % against 14.5 / 18.9 % in parts, session 47; live-h100's in
//    session 35).
// A plan that holds no parts keeps its parts whole, and is not sent to the fused worker. Where no way is within the
// bound otherwise: way 0 (the parts at their launches' priorities), as before. The bound (10 %) lets through the way
// the GPU carried out best where the replay ran a plan 7.2 % long (validate-h200's srtf-adaptive, its parts at their
// launches' priorities) and 4.7 % (validate-h200's kernelet, each part at its own priority: 5.8 / 11.9 % on the GPU,
// against 22.4 / 31.1 % through the fused worker). These rules are fitted to the plans measured so far.
enum class PartsChoice { First, Starts };
inline constexpr double kPartsMakespanBoundPct = 10.0;  // validate's --parts-makespan-bound default; 0: no such bound
struct PartsDecision {
  std::size_t way = 0;  // index into the ways
  bool fused = false;   // none within the bound and the plain parts off the plan's makespan: the fused worker
};
PartsDecision choose_parts_way(const std::vector<PartsWay>& ways, PartsChoice rule,
                               double makespan_bound_pct = kPartsMakespanBoundPct);

// Why auto takes the fused worker where `decision.fused` (validate's report and as-priorities say the same): the
// parts at their launches' priorities (ways[0]) run the plan that much long, beyond the bound. Empty where the
// decision keeps the parts.
std::string fused_choice_reason(const std::vector<PartsWay>& ways, PartsDecision decision,
                                double makespan_bound_pct = kPartsMakespanBoundPct);

// Per part of `cut` (launch by launch, part by part, flattened): a stream priority from `least` down to `greatest`,
// launch_priorities' rule over the parts instead of the launches: a part's window runs from its issue (its planned
// start less the launch latency, not before its launch's arrival) to its last block's planned start, and two parts
// are ordered only where their windows overlap and their SMs meet. A part the plan starts on an SM while another
// part there still has blocks to issue (srtf's sample beside a running launch) then outranks it, where one priority
// per launch put it behind.
LaunchPriorities part_priorities(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                 const std::vector<std::vector<PlannedPart>>& cut, int least, int greatest);

// The same for the parts of a plan that stops and resumes blocks (planned_piece_parts): a part's window runs from its
// issue to the latest planned start of its pieces.
LaunchPriorities part_priorities(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                 const std::vector<std::vector<PlannedPieces>>& cut, int least, int greatest);

// Per part of `cut` (launch by launch, in order): the most of its blocks `plan` runs at once on one SM.
std::vector<std::vector<int>> planned_part_residency(const RunResult& plan,
                                                     const std::vector<std::vector<PlannedPart>>& cut);

// Per part of `cut`: the cap `validate --capped-parts` holds it to, its planned residency where that is below the
// blocks an SM its kernel holds alone on `gpu` (the cap binds), else 0 (the part runs as a plain grid).
std::vector<std::vector<int>> binding_part_caps(const Workload& w, const GpuSpec& gpu, const RunResult& plan,
                                                const std::vector<std::vector<PlannedPart>>& cut);

}  // namespace gpusched::sim
