#include "core/knapsack.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpusched {
namespace {

struct Search {
  const std::vector<KnapsackItem>& items;
  std::array<std::int64_t, 3> capacity;
  std::vector<std::size_t> order;                    // decision order
  std::array<std::vector<std::size_t>, 3> by_ratio;  // per dimension: value per weight, descending
  std::int64_t budget;
  std::int64_t nodes = 0;
  double best = -1.0;
  std::vector<char> taken, best_taken;
  std::vector<std::size_t> rank;  // position of each item in `order`

  // Fractional bound on items decided after `depth`, for one dimension.
  double bound_dim(int d, std::size_t depth, std::int64_t room) const {
    double total = 0.0;
    for (const std::size_t i : by_ratio[d]) {
      if (rank[i] < depth) continue;
      const auto w = items[i].weight[d];
      if (w <= room) {
        total += items[i].value;
        room -= w;
      } else {
        total += items[i].value * static_cast<double>(room) / static_cast<double>(w);
        break;
      }
    }
    return total;
  }

  void dfs(std::size_t depth, double value, std::array<std::int64_t, 3> room) {
    if (++nodes > budget) return;
    if (value > best + 1e-12) {
      best = value;
      best_taken = taken;
    }
    if (depth == order.size()) return;
    // The bound is the smallest of the three dimensions' fractional bounds; any one of them at or below the
    // incumbent prunes, so the others need not be computed.
    for (int d = 0; d < 3; ++d)
      if (value + bound_dim(d, depth, room[d]) <= best + 1e-12) return;
    const std::size_t i = order[depth];
    const auto& w = items[i].weight;
    if (w[0] <= room[0] && w[1] <= room[1] && w[2] <= room[2]) {
      taken[i] = 1;
      dfs(depth + 1, value + items[i].value, {room[0] - w[0], room[1] - w[1], room[2] - w[2]});
      taken[i] = 0;
    }
    dfs(depth + 1, value, room);
  }
};

// Items by value per unit of their tightest dimension (a fraction of its capacity), descending; ties keep the
// items' order.
std::vector<std::size_t> density_order(const std::vector<KnapsackItem>& items,
                                       const std::array<std::int64_t, 3>& capacity) {
  const auto n = items.size();
  std::vector<double> tightness(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d)
      if (capacity[d] > 0)
        tightness[i] =
            std::max(tightness[i], static_cast<double>(items[i].weight[d]) / static_cast<double>(capacity[d]));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return items[a].value * std::max(tightness[b], 1e-12) > items[b].value * std::max(tightness[a], 1e-12);
  });
  return order;
}

// Items in `order`, each taken while it fits: marks `taken`, returns the value.
double greedy_pass(const std::vector<KnapsackItem>& items, const std::array<std::int64_t, 3>& capacity,
                   const std::vector<std::size_t>& order, std::vector<char>& taken) {
  auto room = capacity;
  double value = 0;
  for (const std::size_t i : order) {
    const auto& w = items[i].weight;
    if (w[0] <= room[0] && w[1] <= room[1] && w[2] <= room[2]) {
      taken[i] = 1;
      value += items[i].value;
      for (int d = 0; d < 3; ++d) room[d] -= w[d];
    }
  }
  return value;
}

}  // namespace

KnapsackSolution solve_knapsack_greedy(const std::vector<KnapsackItem>& all_items,
                                       const std::array<std::int64_t, 3>& capacity) {
  // Only the items that fit on their own are ordered (the same relative order as among all: the sort is stable).
  std::vector<std::size_t> original;
  std::vector<KnapsackItem> items;
  for (std::size_t i = 0; i < all_items.size(); ++i) {
    const auto& w = all_items[i].weight;
    if (w[0] <= capacity[0] && w[1] <= capacity[1] && w[2] <= capacity[2]) {
      original.push_back(i);
      items.push_back(all_items[i]);
    }
  }
  std::vector<char> taken(items.size(), 0);
  KnapsackSolution out;
  out.value = greedy_pass(items, capacity, density_order(items, capacity), taken);
  for (std::size_t i = 0; i < items.size(); ++i)
    if (taken[i]) out.chosen.push_back(original[i]);
  return out;  // `exact` stays true: no branch and bound hit a budget (the choice itself is approximate)
}

KnapsackSolution solve_knapsack_exact(const std::vector<KnapsackItem>& all_items,
                                      const std::array<std::int64_t, 3>& capacity, std::int64_t node_budget) {
  // Items that do not fit the capacity on their own can never be chosen: the search runs over the others only.
  // That changes no choice (the decision order of the others and the first best found are the same; the bounds
  // only get tighter) and makes the many small knapsacks of the reordering (one kernel's freed resources) cheap.
  std::vector<std::size_t> original;
  std::vector<KnapsackItem> fitting;
  for (std::size_t i = 0; i < all_items.size(); ++i) {
    const auto& w = all_items[i].weight;
    if (w[0] <= capacity[0] && w[1] <= capacity[1] && w[2] <= capacity[2]) {
      original.push_back(i);
      fitting.push_back(all_items[i]);
    }
  }
  const std::vector<KnapsackItem>& items = fitting;
  Search s{items, capacity, {}, {}, node_budget, 0, -1.0, std::vector<char>(items.size(), 0), {}, {}};
  const auto n = items.size();
  s.order = density_order(items, capacity);
  s.rank.resize(n);
  for (std::size_t k = 0; k < n; ++k) s.rank[s.order[k]] = k;
  for (int d = 0; d < 3; ++d) {
    auto& r = s.by_ratio[d];
    r.resize(n);
    std::iota(r.begin(), r.end(), std::size_t{0});
    std::stable_sort(r.begin(), r.end(), [&](std::size_t a, std::size_t b) {
      // value / weight descending, zero weights first (they always fit)
      return items[a].value * static_cast<double>(items[b].weight[d]) >
             items[b].value * static_cast<double>(items[a].weight[d]);
    });
  }
  // A greedy incumbent (items in decision order, taken while they fit) lets the bound prune from the start.
  {
    std::vector<char> taken(n, 0);
    s.best = greedy_pass(items, capacity, s.order, taken);
    s.best_taken = std::move(taken);
  }
  s.dfs(0, 0.0, capacity);
  KnapsackSolution out;
  for (std::size_t i = 0; i < n; ++i)
    if (s.best_taken[i]) out.chosen.push_back(original[i]);
  out.value = std::max(0.0, s.best);
  out.exact = s.nodes <= node_budget;
  out.nodes = s.nodes;
  return out;
}

KnapsackSolution solve_knapsack_linearized(const std::vector<KnapsackItem>& items,
                                           const std::array<std::int64_t, 3>& capacity, std::int64_t max_cells) {
  for (const auto c : capacity)
    if (c < 0) throw std::invalid_argument("knapsack capacities must not be negative");
  const std::int64_t c1 = capacity[1] + 1, c2 = capacity[2] + 1;
  const auto n = static_cast<std::int64_t>(items.size());
  // Check the table size in floating point first: the linearised capacity itself can overflow.
  const double cells_estimate = (static_cast<double>(capacity[0]) * static_cast<double>(c1) * static_cast<double>(c2) +
                                 static_cast<double>(c1) * static_cast<double>(c2)) *
                                static_cast<double>(n + 1);
  if (cells_estimate > static_cast<double>(max_cells))
    throw std::length_error("linearised knapsack table too large for these capacities: use the exact solver");
  const std::int64_t W = capacity[0] * c1 * c2 + capacity[1] * c2 + capacity[2];
  std::vector<std::int64_t> w(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    w[i] = items[i].weight[0] * c1 * c2 + items[i].weight[1] * c2 + items[i].weight[2];
  // Algorithm 3: M[i][j] = best value of items 1..i within linearised capacity j.
  const auto cols = static_cast<std::size_t>(W + 1);
  const std::size_t cells = static_cast<std::size_t>(n + 1) * cols;
  if (cells > static_cast<std::size_t>(max_cells)) throw std::length_error("linearised knapsack table too large");
  std::vector<double> M(cells, 0.0);
  auto at = [&](std::int64_t i, std::int64_t j) -> double& {
    return M[static_cast<std::size_t>(i) * cols + static_cast<std::size_t>(j)];
  };
  for (std::int64_t i = 1; i <= n; ++i)
    for (std::int64_t j = 1; j <= W; ++j) {
      const auto wi = w[static_cast<std::size_t>(i - 1)];
      at(i, j) = wi > j ? at(i - 1, j)
                        : std::max(at(i - 1, j), items[static_cast<std::size_t>(i - 1)].value + at(i - 1, j - wi));
    }
  // Algorithm 2: backtrack from the full capacity.
  KnapsackSolution out;
  std::int64_t j = W;
  for (std::int64_t i = n; i >= 1 && j > 0; --i)
    if (at(i, j) != at(i - 1, j)) {
      out.chosen.push_back(static_cast<std::size_t>(i - 1));
      j -= w[static_cast<std::size_t>(i - 1)];
    }
  std::reverse(out.chosen.begin(), out.chosen.end());
  for (const auto i : out.chosen) out.value += items[i].value;
  return out;
}

}  // namespace gpusched
