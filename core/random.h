// Deterministic random numbers: the same seed gives the same numbers on every platform and standard
// library (std::*_distribution is not portable, so the transforms are written here).
#pragma once
#include <cmath>
#include <cstdint>

namespace gpusched {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Counter-based: hash of (seed, a, b) so a block's draw does not depend on the order of dispatch.
inline std::uint64_t hash_draw(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b);
}

// Maps a 64-bit hash onto [0, n) by multiply-high (Lemire), without a division.
inline std::uint64_t bounded(std::uint64_t hash, std::uint64_t n) {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(hash) * n) >> 64);
}

inline double to_unit_interval(std::uint64_t bits) {  // [0, 1)
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return splitmix64(state_++); }
  double uniform01() { return to_unit_interval(next()); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  // Uniform integer in [lo, hi].
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(next() % span);
  }
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform01();
    const double u2 = uniform01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Lognormal with the given mean and coefficient of variation (stddev / mean).
  double lognormal_mean_cv(double mean, double cv) {
    if (cv <= 0) return mean;
    const double s2 = std::log1p(cv * cv);
    return std::exp(std::log(mean) - s2 / 2 + std::sqrt(s2) * normal());
  }
  double exponential(double mean) { return -mean * std::log(1.0 - uniform01()); }

 private:
  std::uint64_t state_;
};

}  // namespace gpusched
