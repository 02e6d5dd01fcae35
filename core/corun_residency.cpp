#include "core/corun_residency.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/profile_io.h"

namespace gpusched {

std::map<std::string, KernelProfile> read_corun_profiles(const CoRunTable& table, const std::string& dir) {
  std::map<std::string, KernelProfile> profiles;
  const auto add = [&](const std::string& name) {
    if (profiles.count(name)) return;
    const auto path = std::filesystem::path(dir.empty() ? "." : dir) / (name + ".kernel.toml");
    if (std::filesystem::exists(path)) profiles.emplace(name, read_kernel_profile(path.string(), nullptr));
  };
  for (const auto& r : table.records) {
    add(r.victim);
    for (const auto& p : r.partners) add(p.kernel);
  }
  return profiles;
}

CoRunRecord at_own_residency(CoRunRecord r, const KernelProfile* victim) {
  if (r.victim_exposure <= 0 || !victim || victim->record_sets.size() < 2) return r;
  const double launched = mean_block_ns_at(*victim, r.victim_blocks_per_sm);
  const double placed = mean_block_ns_at(*victim, r.victim_residency());
  if (launched <= 0 || placed <= 0) return r;
  r.alone_mean_ns *= placed / launched;
  r.victim_blocks_per_sm =
      std::clamp(static_cast<int>(std::lround(r.victim_residency())), 1, std::max(1, r.victim_full));
  return r;
}

void move_to_own_residency(CoRunTable& table, const std::map<std::string, KernelProfile>& profiles) {
  for (auto& r : table.records) {
    const auto it = profiles.find(r.victim);
    r = at_own_residency(std::move(r), it == profiles.end() ? nullptr : &it->second);
  }
}

}  // namespace gpusched
