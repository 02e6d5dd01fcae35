// Multi-dimensional 0-1 knapsack (seed 002, Eq. 2-3): choose items maximising the total value with every
// dimension's weight sum within its capacity. Three solvers: the paper's dynamic programme over one
// linearised weight W = W0 x W1 x W2 (Algorithms 2-3; only for small capacities), an exact branch and bound
// over the three dimensions (the default), and a greedy approximation by value density.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace gpusched {

struct KnapsackItem {
  double value = 0.0;
  std::array<std::int64_t, 3> weight{};  // shared memory, registers, threads (seed 002's w_i0, w_i1, w_i2)
};

struct KnapsackSolution {
  std::vector<std::size_t> chosen;  // item indices, ascending
  double value = 0.0;
  bool exact = true;  // false if branch and bound hit its node budget
  std::int64_t nodes = 0;
};

// Exact branch and bound: items ordered by value per unit of their tightest dimension; the bound at a node
// is the smallest, over the three dimensions, fractional-knapsack bound of the items still to decide.
KnapsackSolution solve_knapsack_exact(const std::vector<KnapsackItem>& items,
                                      const std::array<std::int64_t, 3>& capacity,
                                      std::int64_t node_budget = 5'000'000);

// A documented approximation (not in the paper): items in the exact solver's decision order (value per unit of
// their tightest dimension), each taken while it fits; O(n log n). It is the exact solver's first incumbent.
KnapsackSolution solve_knapsack_greedy(const std::vector<KnapsackItem>& items,
                                       const std::array<std::int64_t, 3>& capacity);

// The paper's method: weights and capacity linearised to one integer, w = w0 * C1 * C2 + w1 * C2 + w2 with
// C = capacity + 1, then the classic 1-D table M[(N+1) x (W+1)] and its backtrack (Algorithms 2-3). Throws
// std::length_error when the table would exceed `max_cells`.
KnapsackSolution solve_knapsack_linearized(const std::vector<KnapsackItem>& items,
                                           const std::array<std::int64_t, 3>& capacity,
                                           std::int64_t max_cells = 50'000'000);

}  // namespace gpusched
