#include "core/green_groups.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpusched {

std::vector<int> covering_groups(const std::vector<std::vector<int>>& group_sms,
                                 const std::vector<std::uint8_t>& wanted) {
  std::vector<int> out;
  for (std::size_t g = 0; g < group_sms.size(); ++g)
    for (const int sm : group_sms[g])
      if (sm >= 0 && static_cast<std::size_t>(sm) < wanted.size() && wanted[static_cast<std::size_t>(sm)]) {
        out.push_back(static_cast<int>(g));
        break;
      }
  if (out.size() == group_sms.size()) out.clear();
  return out;
}

std::vector<int> covering_groups_of_sms(const std::vector<std::vector<int>>& group_sms, const std::vector<int>& sms) {
  std::vector<std::uint8_t> wanted;
  for (const int sm : sms) {
    if (sm < 0) continue;
    if (static_cast<std::size_t>(sm) >= wanted.size()) wanted.resize(static_cast<std::size_t>(sm) + 1, 0);
    wanted[static_cast<std::size_t>(sm)] = 1;
  }
  return covering_groups(group_sms, wanted);
}

std::string describe_groups(const std::vector<std::vector<int>>& group_sms) {
  // Each group's SMs ascending, once. A group is consecutive when its SMs follow one another; a run of groups extends
  // while the next group is consecutive and starts at the SM after the run's last.
  std::vector<std::vector<int>> sorted = group_sms;
  for (auto& sms : sorted) std::sort(sms.begin(), sms.end());
  const auto consecutive = [](const std::vector<int>& sms) {
    return !sms.empty() && sms.back() - sms.front() + 1 == static_cast<int>(sms.size()) &&
           std::adjacent_find(sms.begin(), sms.end()) == sms.end();
  };
  const auto span = [](auto first, auto last) {
    return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
  };
  std::vector<std::string> items;
  for (std::size_t g = 0; g < sorted.size();) {
    if (!consecutive(sorted[g])) {
      items.push_back(sorted[g].empty() ? fmt::format("group {}: SMs none", g)
                                        : fmt::format("group {}: SMs {}", g, fmt::join(sorted[g], ",")));
      ++g;
      continue;
    }
    std::size_t last = g;
    while (last + 1 < sorted.size() && consecutive(sorted[last + 1]) &&
           sorted[last + 1].front() == sorted[last].back() + 1)
      ++last;
    items.push_back(fmt::format("group{} {}: SMs {}", last == g ? "" : "s", span(g, last),
                                span(sorted[g].front(), sorted[last].back())));
    g = last + 1;
  }
  return fmt::format("{}", fmt::join(items, "; "));
}

std::vector<std::vector<int>> claimed_groups_of_parts(const std::vector<std::vector<int>>& group_sms,
                                                      const std::vector<PartSpan>& parts) {
  int max_sm = -1;
  for (const auto& g : group_sms)
    for (const int sm : g) max_sm = std::max(max_sm, sm);
  std::vector<int> group_of(static_cast<std::size_t>(max_sm + 1), -1);
  for (std::size_t g = 0; g < group_sms.size(); ++g)
    for (const int sm : group_sms[g])
      if (sm >= 0) group_of[static_cast<std::size_t>(sm)] = static_cast<int>(g);
  // Per group: the parts with an SM in it, and each one's lowest SM there.
  std::vector<std::vector<std::pair<std::size_t, int>>> in_group(group_sms.size());
  std::vector<std::vector<int>> groups_of_part(parts.size());  // ascending
  for (std::size_t p = 0; p < parts.size(); ++p) {
    for (const int sm : parts[p].sms) {
      if (sm < 0 || sm > max_sm || group_of[static_cast<std::size_t>(sm)] < 0) continue;
      groups_of_part[p].push_back(group_of[static_cast<std::size_t>(sm)]);
    }
    auto& gs = groups_of_part[p];
    std::sort(gs.begin(), gs.end());
    gs.erase(std::unique(gs.begin(), gs.end()), gs.end());
    for (const int g : gs) {
      int lowest = std::numeric_limits<int>::max();
      for (const int sm : parts[p].sms)
        if (sm >= 0 && sm <= max_sm && group_of[static_cast<std::size_t>(sm)] == g) lowest = std::min(lowest, sm);
      in_group[static_cast<std::size_t>(g)].emplace_back(p, lowest);
    }
  }
  const auto overlap = [&](std::size_t a, std::size_t b) {
    return parts[a].start < parts[b].end && parts[b].start < parts[a].end;
  };
  std::vector<std::vector<int>> out(parts.size());
  for (std::size_t p = 0; p < parts.size(); ++p) {
    std::vector<int> kept;
    for (const int g : groups_of_part[p]) {
      int mine = std::numeric_limits<int>::max();
      for (const auto& [q, low] : in_group[static_cast<std::size_t>(g)])
        if (q == p) mine = low;
      bool keep = true;
      for (const auto& [q, low] : in_group[static_cast<std::size_t>(g)])
        if (parts[q].launch != parts[p].launch && low < mine && overlap(p, q)) {
          keep = false;
          break;
        }
      if (keep) kept.push_back(g);
    }
    if (kept.empty()) kept = groups_of_part[p];
    if (kept.size() == group_sms.size()) kept.clear();
    out[p] = std::move(kept);
  }
  return out;
}

std::vector<int> sms_of_groups(const std::vector<std::vector<int>>& group_sms, const std::vector<int>& groups) {
  std::vector<int> out;
  for (const int g : groups)
    if (g >= 0 && static_cast<std::size_t>(g) < group_sms.size())
      out.insert(out.end(), group_sms[static_cast<std::size_t>(g)].begin(),
                 group_sms[static_cast<std::size_t>(g)].end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::vector<int>> consecutive_groups(int sm_count, int size) {
  std::vector<std::vector<int>> out;
  if (size < 1) return out;
  for (int first = 0; first < sm_count; first += size) {
    std::vector<int> g;
    for (int s = first; s < std::min(sm_count, first + size); ++s) g.push_back(s);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace gpusched
