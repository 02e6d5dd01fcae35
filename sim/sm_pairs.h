// Which of a plan's SMs should share one of the GPU's smallest green-context groups (docs/validation.md, "SMs paired
// for green contexts"). A green context holds whole groups: two SMs, one TPC, on Hopper. A part the plan confines to
// SM 31 alone runs in a context of SMs 30 and 31, and the hardware places its blocks on both, taking slots the plan
// gives other launches on SM 30. The plan's SMs are interchangeable, so the executor may number them onto the GPU's
// as it likes; these functions pick the pairs of plan SMs that share a group so that parts spill as little as
// possible. Plain C++: unit-tested without a GPU.
#pragma once
#include <array>
#include <optional>
#include <vector>

#include "core/run_result.h"
#include "core/time.h"
#include "sim/planned_parts.h"

namespace gpusched::sim {

// A stretch of work the plan confines to some SMs: a part of a launch as `gpusched-live validate` cuts it
// (planned_parts where every block runs in one piece, planned_piece_parts(plan, cut_how) otherwise), or a whole
// launch where no cut covers the plan.
struct ConfinedWork {
  std::vector<int> sms;  // ascending
  TimeNs busy = 0;       // the plan's piece time of its blocks, summed
};
std::vector<ConfinedWork> confined_work(const RunResult& plan, const PieceCut& cut_how);

// The SM time work could spill onto SMs outside its plan, per pair of SMs that share a group: every stretch confined
// to a set S of fewer than all SMs adds its busy time per SM of S to each pair of one SM in S and one outside it
// (the slots it could take on the other SM of the group, over its life, at the rate it uses its own).
class SpillWeights {
 public:
  SpillWeights(const std::vector<ConfinedWork>& work, int sm_count);
  int sm_count() const { return sm_count_; }
  double operator()(int a, int b) const { return us_[static_cast<std::size_t>(a * sm_count_ + b)]; }

 private:
  int sm_count_;
  std::vector<double> us_;  // sm_count x sm_count, symmetric
};

using SmPair = std::array<int, 2>;

struct SmPairing {
  std::vector<SmPair> pairs;  // group i holds plan SMs pairs[i]
  double spill_us = 0;        // the spill of `pairs`
  double start_spill_us = 0;  // the spill of the pairs it started from
};

// Starts from `start` (every SM in exactly one pair) and exchanges partners between two pairs while that lowers the
// spill, each exchange the best of the two ways; a local optimum, never worse than `start`. Deterministic.
SmPairing pair_sms(const SpillWeights& w, std::vector<SmPair> start);

// The spill of one pairing.
double pairing_spill_us(const SpillWeights& w, const std::vector<SmPair>& pairs);

// Renumbers the plan's SMs: every piece's SM s becomes to[s] (a permutation of 0..sm_count-1), and the pieces are
// put back in the Schedule's order (by end, ties by SM, stable). A plan over one GPU only.
void renumber_sms(RunResult& plan, const std::vector<int>& to);

// Numbers a plan's SMs onto the GPU's groups (`group_sms`: each group's SMs by the GPU's number). Where every group
// holds two SMs and together they hold 0..sm_count-1 once, the pairs start from the groups as they are (the plan's SM
// s on the GPU's s), pair_sms improves them over confined_work(plan, cut_how), and the plan's pair i is
// renumbered onto group i. Returns the pairing, or nothing (the plan left as it is) where the groups are not such
// or the plan is over several GPUs.
std::optional<SmPairing> pair_sms_onto_groups(RunResult& plan, const std::vector<std::vector<int>>& group_sms,
                                              int sm_count, const PieceCut& cut_how);

}  // namespace gpusched::sim
