// The `age` interference model's rule and its fit from co-run records (docs/interference.md, "Slowdown over a
// block's life"). Two mechanisms the co-runs separate (docs/interference.md, "Who came first" and "Where the slowdown
// comes from"):
//  - issue priority: an SM's warp schedulers favour older warps, so a launch's blocks get the issue slots that the
//    launches older than it on the SM leave. With U_j(n) the issue utilisation of n blocks per SM of kernel j alone
//    (its recordings: blocks x instructions per block / (SMs x span x clock x peak IPC), interpolated over the recorded
//    residencies, at most 0.97), a group g of n_g blocks of kernel k_g beside older groups j:
//        issue term = -gamma x ln(1 - min(0.97, sum over older j of U_j(n_j))) x U_g / (U_g + kappa)
//    (U_g = U_{k_g}(n_g): a block that issues little, memory-bound, needs few of the slots; kappa sets how few);
//  - memory pressure, in either order: each other group j adds pi(suite kernel of j) x n_j / limit_j.
//  Its rate is exp(-(issue term + memory term)). gamma and kappa are global; pi is per kernel. A kernel without
// counted instructions has no issue term as victim or aggressor; a kernel never recorded as a partner has pi = 0.
// The fit: gamma and kappa on a grid, pi by least squares through the origin of each partner's residual ln(slowdown)
// against its share, scoring median + 0.2 x p90 of the relative block-time errors (deterministic).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/corun_records.h"
#include "core/gpu_spec.h"
#include "core/kernel_profile.h"

namespace gpusched::sim {

// U_k(n): issue utilisation of n blocks per SM of kernel k alone, from its record sets; 0 without counted
// instructions or records.
double issue_utilisation(const KernelProfile& k, const GpuSpec& gpu, double blocks_per_sm);

struct AgeParams {
  double gamma = 1.0;
  double kappa = 0.05;
  // The older groups' summed utilisation is clamped here: the largest single partner's utilisation the fit saw, so
  // that several older launches together (mpmax keeps many on an SM) do not extrapolate the slowdown past what was
  // measured. 0.97 when not fitted.
  double u_cap = 0.97;
  std::map<std::string, double> pressure;  // per suite kernel ("gather")

  double pressure_of(const std::string& suite_kernel) const {
    const auto it = pressure.find(suite_kernel);
    return it == pressure.end() ? 0.0 : it->second;
  }
};

// ln(slowdown) of a victim group with victim utilisation `u_victim` beside older groups whose utilisations sum to
// `u_older`, plus the memory term `memory` (sum of pi x share): the model's rule in one place.
double age_log_slowdown(const AgeParams& p, double u_victim, double u_older, double memory);

// A co-run record's predicted slowdown (its single partner at its measured exposure, older when launched first).
// `profile(name)` gives the kernels' profiles (nullptr: unknown); `limit(name)` their occupancy limits.
double age_predict(const AgeParams& p, const CoRunRecord& r, const GpuSpec& gpu,
                   const std::function<const KernelProfile*(const std::string&)>& profile);

// Fits from the single-partner rows for which `use(victim suite, partner suite)` is true (all when empty).
AgeParams fit_age(const std::vector<CoRunRecord>& records, const GpuSpec& gpu,
                  const std::function<const KernelProfile*(const std::string&)>& profile,
                  const std::function<bool(const std::string&, const std::string&)>& use = {});

}  // namespace gpusched::sim
