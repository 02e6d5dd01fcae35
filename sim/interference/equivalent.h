// The `equivalent` interference model's rule (sim/interference/equivalent.cpp, docs/interference.md "Equivalent
// residency"), for the code that applies it outside the engine (gpusched crossval's held-out co-runs).
#pragma once
#include <string>

#include "core/kernel_profile.h"

namespace gpusched::sim {

// Mean block time of `k` at `residency` (fractional): interpolated between its record sets, extrapolated past the
// last along its last segment; 0 without record sets.
double equivalent_mean_ns(const KernelProfile& k, double residency);

// What a pair without a fitted weight weighs: `Value` the model's `unfitted` parameter (1 by default: as an own
// block), `Median` the median of the victim's fitted weights (its typical sensitivity to other kernels; `unfitted`
// where it has none).
enum class EquivalentFallback { Value, Median };
// "value" / "median"; throws std::invalid_argument naming the value otherwise.
EquivalentFallback parse_equivalent_fallback(const std::string& s);

// The weight an unfitted pair of victim k gets under `fallback`.
double equivalent_unfitted_weight(const KernelProfile& k, EquivalentFallback fallback, double unfitted);

// w(k <- other): how many of k's own blocks one block of `other` (a profile name) weighs as; `unfitted` where k's
// profile has no weight for it.
double equivalent_weight(const KernelProfile& k, const std::string& other, double unfitted = 1.0);

}  // namespace gpusched::sim
