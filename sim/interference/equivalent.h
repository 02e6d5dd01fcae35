// The `equivalent` interference model's rule (sim/interference/equivalent.cpp, docs/interference.md "Equivalent
// residency"), for the code that applies it outside the engine (gpusched crossval's held-out co-runs).
#pragma once
#include <string>
#include <string_view>

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

// Whether two profile names are sizes of one suite kernel ("gather-s1", "gather-s2"; core/corun_records.h's
// suite_kernel_of, without building strings: the engine asks at every re-timing).
bool same_suite_kernel(std::string_view a, std::string_view b);

// w(k <- other): how many of k's own blocks one block of `other` (a profile name) weighs as: k's fitted weight for
// it; else, with `same_suite_as_own`, 1 where `other` is another size of k's suite kernel (the model's
// `same_suite=own`; its default is `fallback`); else `unfitted`.
double equivalent_weight(const KernelProfile& k, const std::string& other, double unfitted = 1.0,
                         bool same_suite_as_own = false);

}  // namespace gpusched::sim
