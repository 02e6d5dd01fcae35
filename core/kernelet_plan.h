// Kernelet's scheduling decisions (seed 000, sections 4.1-4.3): the smallest slice whose overhead stays within
// p%, the balanced slice ratio (Eq. 8), pruning by PUR/MUR differences, and FindCoSchedule, which picks the
// pair of pending kernels and per-SM block counts with the highest co-scheduling profit (Eq. 1) under the
// Markov-chain model. Plain data in and out, so the policies, the benchmark and the tests share it.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/gpu_spec.h"
#include "core/kernel_profile.h"
#include "core/markov_model.h"
#include "core/occupancy.h"

namespace gpusched::kernelet {

// One pending kernel as the planner sees it.
struct PlanKernel {
  ModelKernel model;                  // Markov inputs
  double instructions_per_block = 1;  // I_K in Eq. 8 (only ratios matter)
  BlockFootprint footprint;
  int max_blocks_per_sm = 1;       // occupancy alone
  std::optional<double> pur, mur;  // Table 4; a kernel without them is never pruned
};

// Builds a PlanKernel from a profile (model inputs as model_kernel(), or calibrated_model_kernel() with `calibrated`:
// core/markov_calibration.h; R_m = 0 where the profile gives none).
PlanKernel plan_kernel(const KernelProfile& k, const GpuSpec& gpu, const SmModel& model, bool calibrated = false);

struct CoSchedule {
  std::size_t first = 0, second = 0;        // indices into the pending kernels
  int blocks_first = 0, blocks_second = 0;  // per SM: the slice ratio
  double ipc_first = 0, ipc_second = 0;     // concurrent IPCs (per SM)
  double cp = 0;                            // Eq. 1
  double delta_t = 0;                       // Eq. 8 at this ratio (cycles per SM-slice, per unit of I)
};

// Section 4.3's text prunes a pair when its PUR differ by less than alpha_p *or* its MUR by less than alpha_m;
// Table 6's counts follow an *and* rule (both close) in most cells (docs/reproductions.md). Both are offered;
// the text's is the default.
enum class PruneRule { Or, And };

// Section 4.3: "if all the co-schedules are pruned, we need to increase alpha_p or alpha_m". Raising a threshold
// prunes more, so the sentence is read two ways: Relax lowers the thresholds (halved) until some pair survives (the
// sentence's intent as we read it: find a candidate), Alone takes "all pruned" as the rule's verdict that no pair of
// the pending kernels gains, and co-schedules none (the oldest kernel runs alone until the pending set changes).
enum class AllPruned { Relax, Alone };

struct PruneOptions {
  double alpha_p = 0.4;  // prune pairs whose PUR differ by less than this ...
  double alpha_m = 0.1;  // ... or (and, under PruneRule::And) whose MUR differ by less than this
  PruneRule rule = PruneRule::Or;
  AllPruned all_pruned = AllPruned::Relax;
};

// "or" / "and"; throws std::invalid_argument naming the value otherwise.
PruneRule parse_prune_rule(const std::string& s);
// "relax" / "alone"; throws std::invalid_argument naming the value otherwise.
AllPruned parse_all_pruned(const std::string& s);

struct FindStats {
  std::size_t pairs = 0;            // candidate pairs
  std::size_t pruned = 0;           // removed by the PUR/MUR rule (at the thresholds finally used)
  std::size_t evaluated = 0;        // pairs the model was run for
  double alpha_p = 0, alpha_m = 0;  // thresholds finally used (halved while everything was pruned)
};

// Remembers the model's IPCs for (kernel inputs, block counts), across calls.
class IpcCache {
 public:
  std::vector<double> get(const SmModel& model, const std::vector<ModelKernel>& kernels,
                          const std::vector<int>& blocks);
  std::size_t size() const { return map_.size(); }

 private:
  std::map<std::vector<std::tuple<int, double, double, int>>, std::vector<double>> map_;
};

// True if the pair survives pruning at these thresholds.
bool survives_pruning(const PlanKernel& a, const PlanKernel& b, const PruneOptions& o);

// Per-SM block counts (b1, b2), both >= 1, that fit one SM together; for each b1 only the largest b2.
std::vector<std::pair<int, int>> ratio_candidates(const GpuSpec& gpu, const PlanKernel& a, const PlanKernel& b);

// The balanced ratio of one pair (minimum Eq. 8 difference; ties to the higher CP) with its CP; nullopt when
// the two cannot share an SM.
std::optional<CoSchedule> balanced_co_schedule(const GpuSpec& gpu, const SmModel& model, const PlanKernel& a,
                                               const PlanKernel& b, IpcCache& cache);

// Kernel pairs i < j seen through their kernels' types (type[i] < types): per ordered pair of types (a, b), at
// index a * types + b, how many pairs i < j have type[i] = a and type[j] = b, and the first of them in (i, j)
// order. One pass, O(n x types): what pruning, the model and OPT's probes see of a pair is its types, so a choice
// over every pair reduces to one over the type pairs present, ties going to each one's first pair.
struct TypePair {
  std::size_t count = 0;
  std::size_t first = 0, second = 0;
};
std::vector<TypePair> pairs_by_type(const std::vector<std::size_t>& type, std::size_t types);

// FindCoSchedule: candidate pairs, pruning (when every pair is pruned: thresholds halved until some pair survives,
// or no co-schedule under AllPruned::Alone), the balanced ratio and CP of each survivor, the maximum CP. Kernels
// with identical inputs are evaluated once. nullopt for fewer than two kernels, when no pair can share an SM, or
// when every pair is pruned under AllPruned::Alone.
std::optional<CoSchedule> find_co_schedule(const GpuSpec& gpu, const SmModel& model,
                                           const std::vector<PlanKernel>& pending, const PruneOptions& prune,
                                           IpcCache& cache, FindStats* stats = nullptr);

// Section 4.1: the smallest slice size P (a multiple of the SM count, up to a full wave) whose sliced
// execution time — ceil(N / P) slices, each paying `launch_overhead` and running ceil(P / SMs) blocks per SM,
// so lasting block_time(ceil(P / SMs)) — is within `max_overhead` (0.02) of the unsliced time (full waves at
// block_time(R)). block_time(r) is the mean block time at residency r. The whole kernel when none qualifies.
std::int64_t smallest_slice(std::int64_t blocks, int sms, int blocks_per_sm,
                            const std::function<double(int)>& block_time, double launch_overhead, double max_overhead);

}  // namespace gpusched::kernelet
