// The `equivalent` interference model's rule (sim/interference/equivalent.cpp, docs/interference.md "Equivalent
// residency"), for the code that applies it outside the engine (gpusched crossval's held-out co-runs).
#pragma once
#include <string>

#include "core/kernel_profile.h"

namespace gpusched::sim {

// Mean block time of `k` at `residency` (fractional): interpolated between its record sets, extrapolated past the
// last along its last segment; 0 without record sets.
double equivalent_mean_ns(const KernelProfile& k, double residency);

// w(k <- other): how many of k's own blocks one block of `other` (a profile name) weighs as; `unfitted` where k's
// profile has no weight for it.
double equivalent_weight(const KernelProfile& k, const std::string& other, double unfitted = 1.0);

}  // namespace gpusched::sim
