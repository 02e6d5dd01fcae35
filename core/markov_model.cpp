#include "core/markov_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpusched::kernelet {
namespace {

// Binomial probabilities P(X = 0..n) for X ~ Bin(n, p), by the ratio recurrence (no pow per entry).
void binomial_pmf(int n, double p, std::vector<double>& out) {
  out.assign(static_cast<std::size_t>(n) + 1, 0.0);
  if (p <= 0.0) {
    out[0] = 1.0;
    return;
  }
  if (p >= 1.0) {
    out[static_cast<std::size_t>(n)] = 1.0;
    return;
  }
  const double q = 1.0 - p;
  out[0] = std::pow(q, n);
  if (out[0] > 1e-300) {
    for (int k = 1; k <= n; ++k)
      out[static_cast<std::size_t>(k)] = out[static_cast<std::size_t>(k - 1)] * (n - k + 1) / k * p / q;
  } else {  // underflow of q^n: sum logs instead
    for (int k = 0; k <= n; ++k)
      out[static_cast<std::size_t>(k)] = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) -
                                                  std::lgamma(n - k + 1.0) + k * std::log(p) + (n - k) * std::log(q));
  }
}

// One kernel's own states: (c, u) = units stalled on coalesced / uncoalesced accesses. Two-state kernels
// (no uncoalesced accesses) have u = 0 throughout.
struct KernelStates {
  std::vector<std::pair<int, int>> states;
  std::vector<int> index;  // (c * (n + 1) + u) -> state index, -1 where c + u > n
  int n = 0;
  int at(int c, int u) const { return index[static_cast<std::size_t>(c * (n + 1) + u)]; }
};

KernelStates enumerate(const ChainKernel& k) {
  KernelStates s;
  s.n = k.units;
  s.index.assign(static_cast<std::size_t>((k.units + 1) * (k.units + 1)), -1);
  const bool three = k.uncoalesced > 0.0;
  for (int c = 0; c <= k.units; ++c)
    for (int u = 0; u <= (three ? k.units - c : 0); ++u) {
      s.index[static_cast<std::size_t>(c * (k.units + 1) + u)] = static_cast<int>(s.states.size());
      s.states.emplace_back(c, u);
    }
  return s;
}

void check(const std::vector<ChainKernel>& kernels, const ChainMemory& m) {
  if (kernels.empty()) throw std::invalid_argument("Markov model: no kernels");
  for (const auto& k : kernels) {
    if (k.units < 0 || !(k.warps_per_unit > 0.0))
      throw std::invalid_argument("Markov model: units must be >= 0 and warps_per_unit > 0");
    if (!(k.memory_ratio >= 0.0 && k.memory_ratio <= 1.0) || !(k.uncoalesced >= 0.0 && k.uncoalesced <= 1.0))
      throw std::invalid_argument(
          fmt::format("Markov model: memory_ratio and uncoalesced must lie in [0, 1], found "
                      "{} and {}",
                      k.memory_ratio, k.uncoalesced));
  }
  if (!(m.base_latency >= 1.0) || !(m.bandwidth > 0.0) || !(m.a0 >= 0.0) || !(m.b0 >= 0.0) ||
      !(m.requests_per_uncoalesced >= 1.0))
    throw std::invalid_argument(
        "Markov model: need base_latency >= 1, bandwidth > 0, a0 >= 0, b0 >= 0, "
        "requests_per_uncoalesced >= 1");
}

struct Chain {
  std::vector<KernelStates> per_kernel;
  std::vector<std::size_t> radix;  // global state = sum of kernel state index * radix[k]
  std::size_t states = 1;
};

Chain build_chain(const std::vector<ChainKernel>& kernels, std::size_t max_states) {
  Chain ch;
  for (const auto& k : kernels) {
    ch.per_kernel.push_back(enumerate(k));
    ch.radix.push_back(ch.states);
    ch.states *= ch.per_kernel.back().states.size();
    if (ch.states > max_states)
      throw std::invalid_argument(fmt::format("Markov model: more than {} states (use block granularity)", max_states));
  }
  return ch;
}

// Ready instructions issued in a round by kernel k in global state s.
int ready_units(const Chain& ch, const std::vector<ChainKernel>& kernels, std::size_t s, std::size_t k) {
  const auto& ks = ch.per_kernel[k];
  const auto [c, u] = ks.states[(s / ch.radix[k]) % ks.states.size()];
  return kernels[k].units - c - u;
}

// The stationary vector of a row-stochastic matrix: solves pi (P - I) = 0 with sum(pi) = 1 by Gaussian
// elimination with partial pivoting; a singular system (several closed classes) falls back to the Cesaro
// average of the power iteration from the uniform vector.
std::vector<double> stationary(const std::vector<double>& P, std::size_t n) {
  std::vector<double> A(n * n), b(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) A[i * n + j] = P[j * n + i] - (i == j ? 1.0 : 0.0);  // (P^T - I)
  for (std::size_t j = 0; j < n; ++j) A[(n - 1) * n + j] = 1.0;  // replace one equation by sum(pi) = 1
  b[n - 1] = 1.0;
  bool singular = false;
  for (std::size_t col = 0; col < n && !singular; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::abs(A[r * n + col]) > std::abs(A[pivot * n + col])) pivot = r;
    if (std::abs(A[pivot * n + col]) < 1e-13) {
      singular = true;
      break;
    }
    if (pivot != col) {
      for (std::size_t j = 0; j < n; ++j) std::swap(A[col * n + j], A[pivot * n + j]);
      std::swap(b[col], b[pivot]);
    }
    const double inv = 1.0 / A[col * n + col];
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = A[r * n + col] * inv;
      if (f == 0.0) continue;
      for (std::size_t j = col; j < n; ++j) A[r * n + j] -= f * A[col * n + j];
      b[r] -= f * b[col];
    }
  }
  std::vector<double> pi(n, 0.0);
  if (!singular) {
    for (std::size_t i = n; i-- > 0;) {
      double sum = b[i];
      for (std::size_t j = i + 1; j < n; ++j) sum -= A[i * n + j] * pi[j];
      pi[i] = sum / A[i * n + i];
    }
    double total = 0.0;
    for (double& x : pi) {
      x = std::max(0.0, x);  // rounding can leave -1e-17
      total += x;
    }
    if (total > 0.0) {
      for (double& x : pi) x /= total;
      return pi;
    }
  }
  std::vector<double> x(n, 1.0 / static_cast<double>(n)), next(n), avg(n, 0.0);
  constexpr int kIterations = 20000;
  for (int it = 0; it < kIterations; ++it) {
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) next[j] += x[i] * P[i * n + j];
    x.swap(next);
    for (std::size_t i = 0; i < n; ++i) avg[i] += x[i] / kIterations;
  }
  return avg;
}

std::vector<double> build_matrix(const Chain& ch, const std::vector<ChainKernel>& kernels, const ChainMemory& m) {
  const std::size_t n = ch.states;
  std::vector<double> P(n * n, 0.0);
  std::vector<std::vector<double>> next(kernels.size());  // per kernel: distribution over its own states
  std::vector<double> back_c, back_u;
  // Bin(r, R_m) and Bin(a, uncoalesced) depend on the kernel and a count only, not on the state: computed once
  // per kernel and count instead of once per state (the same values; a chain has thousands of states).
  std::vector<std::vector<std::vector<double>>> ready_of(kernels.size()), split_of(kernels.size());
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    ready_of[k].resize(static_cast<std::size_t>(kernels[k].units) + 1);
    split_of[k].resize(static_cast<std::size_t>(kernels[k].units) + 1);
    for (int x = 0; x <= kernels[k].units; ++x) {
      binomial_pmf(x, kernels[k].memory_ratio, ready_of[k][static_cast<std::size_t>(x)]);
      binomial_pmf(x, kernels[k].uncoalesced, split_of[k][static_cast<std::size_t>(x)]);
    }
  }
  std::vector<std::pair<std::size_t, double>> row, grown;
  for (std::size_t s = 0; s < n; ++s) {
    // Round duration and outstanding requests in state s (shared by all kernels: one memory system).
    double issued = 0.0, outstanding = 0.0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const auto& ks = ch.per_kernel[k];
      const auto [c, u] = ks.states[(s / ch.radix[k]) % ks.states.size()];
      const double g = kernels[k].warps_per_unit;
      issued += static_cast<double>(kernels[k].units - c - u) * g;
      outstanding += static_cast<double>(c) * g + static_cast<double>(u) * g * m.requests_per_uncoalesced;
    }
    const double round = std::max(1.0, issued);  // all units stalled: a one-cycle idle round
    const double latency_c = m.base_latency + m.b0 + m.a0 * outstanding / m.bandwidth;
    const double latency_u = latency_c + (m.requests_per_uncoalesced - 1.0) / m.bandwidth;
    const double p_c = std::min(1.0, round / latency_c);  // P(i -> r) = round duration / L
    const double p_u = std::min(1.0, round / latency_u);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const auto& kk = kernels[k];
      const auto& ks = ch.per_kernel[k];
      const auto [c, u] = ks.states[(s / ch.radix[k]) % ks.states.size()];
      const int r = kk.units - c - u;
      auto& dist = next[k];
      dist.assign(ks.states.size(), 0.0);
      const auto& ready_pmf = ready_of[k][static_cast<std::size_t>(r)];  // ready units that stall this round
      binomial_pmf(c, p_c, back_c);                                      // coalesced stalls that return
      binomial_pmf(u, p_u, back_u);                                      // uncoalesced stalls that return
      for (int a = 0; a <= r; ++a) {
        const double pa = ready_pmf[static_cast<std::size_t>(a)];
        if (pa == 0.0) continue;
        const auto& split_pmf = split_of[k][static_cast<std::size_t>(a)];  // of those, stalled on uncoalesced accesses
        for (int au = 0; au <= a; ++au) {
          const double pau = pa * split_pmf[static_cast<std::size_t>(au)];
          if (pau == 0.0) continue;
          for (int bc = 0; bc <= c; ++bc) {
            const double pbc = pau * back_c[static_cast<std::size_t>(bc)];
            if (pbc == 0.0) continue;
            for (int bu = 0; bu <= u; ++bu) {
              const double p = pbc * back_u[static_cast<std::size_t>(bu)];
              if (p == 0.0) continue;
              dist[static_cast<std::size_t>(ks.at(c - bc + (a - au), u - bu + au))] += p;
            }
          }
        }
      }
    }
    // Kernels move independently given the state: the row is the product of their distributions.
    row.assign(1, {0, 1.0});
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      grown.clear();
      for (const auto& [idx, p] : row)
        for (std::size_t t = 0; t < next[k].size(); ++t)
          if (next[k][t] != 0.0) grown.emplace_back(idx + t * ch.radix[k], p * next[k][t]);
      row.swap(grown);
    }
    for (const auto& [idx, p] : row) P[s * n + idx] += p;
  }
  return P;
}

}  // namespace

std::vector<double> transition_matrix(const std::vector<ChainKernel>& kernels, const ChainMemory& memory,
                                      std::size_t& states) {
  check(kernels, memory);
  const Chain ch = build_chain(kernels, 1u << 20);
  states = ch.states;
  return build_matrix(ch, kernels, memory);
}

ChainSolution solve_chain(const std::vector<ChainKernel>& kernels, const ChainMemory& memory, std::size_t max_states) {
  check(kernels, memory);
  const Chain ch = build_chain(kernels, max_states);
  const auto P = build_matrix(ch, kernels, memory);
  ChainSolution sol;
  sol.states = ch.states;
  sol.stationary = stationary(P, ch.states);
  // Eq. 4-6: a kernel's IPC is its issuing cycles over all cycles; a round lasts as many cycles as there are
  // ready instructions, or one idle cycle when there are none.
  double cycles = 0.0;
  sol.ipc.assign(kernels.size(), 0.0);
  for (std::size_t s = 0; s < ch.states; ++s) {
    double issued = 0.0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const double ik = static_cast<double>(ready_units(ch, kernels, s, k)) * kernels[k].warps_per_unit;
      sol.ipc[k] += sol.stationary[s] * ik;
      issued += ik;
    }
    cycles += sol.stationary[s] * std::max(1.0, issued);
  }
  for (double& x : sol.ipc) {
    x = cycles > 0.0 ? x / cycles : 0.0;
    sol.total_ipc += x;
  }
  return sol;
}

double co_scheduling_profit(const std::vector<double>& concurrent_ipc, const std::vector<double>& alone_ipc) {
  if (concurrent_ipc.size() != alone_ipc.size() || concurrent_ipc.empty())
    throw std::invalid_argument("co_scheduling_profit: one IPC alone per concurrent IPC");
  double sum = 0.0;
  for (std::size_t i = 0; i < concurrent_ipc.size(); ++i)
    if (alone_ipc[i] > 0.0) sum += concurrent_ipc[i] / alone_ipc[i];
  return sum > 0.0 ? 1.0 - 1.0 / sum : -1.0;  // -1: nothing progresses (not a profit)
}

SmModel sm_model_for(const GpuSpec& gpu) {
  SmModel m;
  constexpr double kRequestBytes = 128.0;  // one coalesced warp request: a 128-byte line
  m.memory.bandwidth = gpu.dram_bandwidth_gbps * 1e9 / (kRequestBytes * gpu.clock_mhz * 1e6 * gpu.sm_count);
  m.schedulers = std::max(1, gpu.warp_schedulers_per_sm);
  switch (gpu.architecture) {
    case Architecture::Fermi:  // two schedulers, each half a warp per cycle: peak IPC 1 (seed 000, 5.1)
      m.peak_ipc = 1.0;
      m.memory.base_latency = 500.0;
      break;
    case Architecture::Kepler:  // four schedulers with dual issue: peak IPC 8 (seed 000, 5.1)
      m.peak_ipc = 8.0;
      m.memory.base_latency = 400.0;
      break;
    case Architecture::Maxwell:
      m.peak_ipc = 4.0;
      m.memory.base_latency = 400.0;
      break;
    case Architecture::Hopper:
      m.peak_ipc = 4.0;
      m.memory.base_latency = 500.0;
      break;
  }
  return m;
}

namespace {

std::size_t chain_states(const std::vector<ChainKernel>& chain) {
  std::size_t states = 1;
  for (const auto& k : chain) {
    const auto u = static_cast<std::size_t>(k.units);
    states *= k.uncoalesced > 0.0 ? (u + 1) * (u + 2) / 2 : u + 1;  // enumerate(): (c, u) pairs or c alone
  }
  return states;
}

// Under the warps split every block is a unit of each virtual SM (four times the blocks split's units on a
// four-scheduler SM), so a composition of many blocks can make a chain too large to solve densely at every
// composition a simulation meets. Units are then grouped, g blocks to a unit (the same speed-up as the paper's
// block units: a group stalls and issues together), the smallest g that brings the chain to at most
// kGroupedStates states; each kernel keeps its warps (warps_per_unit grows by units / grouped units).
constexpr std::size_t kGroupedStates = 1024;

void group_units(std::vector<ChainKernel>& chain) {
  if (chain_states(chain) <= kGroupedStates) return;
  const std::vector<ChainKernel> original = chain;
  for (int g = 2;; ++g) {
    for (std::size_t k = 0; k < chain.size(); ++k) {
      const int units = original[k].units;
      chain[k].units = (units + g - 1) / g;
      chain[k].warps_per_unit = original[k].warps_per_unit * units / chain[k].units;
    }
    const bool single = std::all_of(chain.begin(), chain.end(), [](const ChainKernel& k) { return k.units <= 1; });
    if (single || chain_states(chain) <= kGroupedStates) return;  // one unit each: as small as grouping goes
  }
}

}  // namespace

std::vector<double> sm_ipc(const SmModel& model, const std::vector<ModelKernel>& kernels,
                           const std::vector<int>& blocks) {
  if (kernels.size() != blocks.size()) throw std::invalid_argument("sm_ipc: one block count per kernel");
  const int s = std::max(1, model.schedulers);
  ChainMemory memory = model.memory;
  memory.bandwidth /= s;  // each virtual SM gets its share of the SM's bandwidth
  const std::size_t n = kernels.size();
  const bool warp_split = model.split == SchedulerSplit::Warps;
  // Units of kernel k on a virtual SM, in the chain's unit (a block or a warp) before rounding: under the blocks
  // split blocks / s; under the warps split every block is on every virtual SM (with warps_per_block / s warps
  // there), so blocks, or blocks x warps_per_block / s warps. Where that is fractional the IPCs are interpolated
  // (multi-linearly) between the chains with the counts rounded down and up.
  std::vector<int> lo(n), hi(n);
  std::vector<double> frac(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (blocks[k] < 0) throw std::invalid_argument("sm_ipc: negative block count");
    int numerator = blocks[k], denominator = s;
    if (warp_split) {
      denominator = model.granularity == Granularity::Block ? 1 : s;
      numerator = model.granularity == Granularity::Block ? blocks[k] : blocks[k] * kernels[k].warps_per_block;
    }
    lo[k] = numerator / denominator;
    hi[k] = lo[k] + (numerator % denominator ? 1 : 0);
    frac[k] = static_cast<double>(numerator % denominator) / denominator;
  }
  std::vector<double> out(n, 0.0);
  for (std::size_t corner = 0; corner < (std::size_t{1} << n); ++corner) {
    double weight = 1.0;
    std::vector<int> units(n);
    for (std::size_t k = 0; k < n; ++k) {
      const bool up = (corner >> k) & 1;
      if (up && hi[k] == lo[k]) {
        weight = 0.0;
        break;
      }
      weight *= hi[k] == lo[k] ? 1.0 : (up ? frac[k] : 1.0 - frac[k]);
      units[k] = up ? hi[k] : lo[k];
    }
    if (weight == 0.0) continue;
    std::vector<ChainKernel> chain;
    std::vector<std::size_t> which;
    for (std::size_t k = 0; k < n; ++k) {
      if (units[k] == 0) continue;
      ChainKernel ck;
      const bool block_units = model.granularity == Granularity::Block;
      if (warp_split) {  // units[k] already counts the chain's units on one virtual SM
        ck.units = units[k];
        ck.warps_per_unit = block_units ? static_cast<double>(kernels[k].warps_per_block) / s : 1.0;
      } else {
        ck.units = block_units ? units[k] : units[k] * kernels[k].warps_per_block;
        ck.warps_per_unit = block_units ? kernels[k].warps_per_block : 1;
      }
      ck.memory_ratio = kernels[k].memory_ratio;
      ck.uncoalesced = kernels[k].uncoalesced;
      chain.push_back(ck);
      which.push_back(k);
    }
    if (chain.empty()) continue;
    if (warp_split) group_units(chain);
    const auto sol = solve_chain(chain, memory);
    for (std::size_t i = 0; i < which.size(); ++i) out[which[i]] += weight * sol.ipc[i] * model.peak_ipc;
  }
  return out;
}

std::optional<ModelKernel> model_kernel(const KernelProfile& k, const SmModel& model, int warp_size) {
  ModelKernel m;
  m.warps_per_block = std::max(1, (k.threads_per_block() + warp_size - 1) / std::max(1, warp_size));
  if (k.instructions_per_block && k.memory_instructions_per_block && *k.instructions_per_block > 0) {
    m.memory_ratio = std::clamp(*k.memory_instructions_per_block / *k.instructions_per_block, 0.0, 1.0);
    m.uncoalesced = std::clamp(k.uncoalesced_fraction.value_or(0.0), 0.0, 1.0);
    return m;
  }
  if (k.pur && k.mur && *k.pur > 0) {
    const double requests_per_instruction = (*k.mur * model.memory.bandwidth) / (*k.pur * model.peak_ipc);
    if (requests_per_instruction <= 1.0) {
      m.memory_ratio = std::max(0.0, requests_per_instruction);
    } else {
      m.uncoalesced = 1.0;
      m.memory_ratio = std::min(1.0, requests_per_instruction / model.memory.requests_per_uncoalesced);
    }
    return m;
  }
  return std::nullopt;
}

}  // namespace gpusched::kernelet
