#include "core/green_groups.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

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
  // A group is "consecutive" when its SMs, ascending, follow one another; a run extends while the next group is
  // consecutive and starts at the SM after the run's last.
  const auto sorted_sms = [&](std::size_t g) {
    auto sms = group_sms[g];
    std::sort(sms.begin(), sms.end());
    return sms;
  };
  const auto consecutive = [](const std::vector<int>& sms) {
    for (std::size_t i = 1; i < sms.size(); ++i)
      if (sms[i] != sms[i - 1] + 1) return false;
    return !sms.empty();
  };
  const auto span = [](std::size_t first, std::size_t last) {
    return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
  };
  std::string out;
  const auto add = [&](const std::string& item) { out += (out.empty() ? "" : "; ") + item; };
  std::size_t g = 0;
  while (g < group_sms.size()) {
    const auto first_sms = sorted_sms(g);
    if (!consecutive(first_sms)) {
      std::string list;
      for (const int sm : first_sms) list += (list.empty() ? "" : ",") + std::to_string(sm);
      add(fmt::format("group {}: SMs {}", g, list.empty() ? "none" : list));
      ++g;
      continue;
    }
    std::size_t last = g;
    int last_sm = first_sms.back();
    while (last + 1 < group_sms.size()) {
      const auto next = sorted_sms(last + 1);
      if (!consecutive(next) || next.front() != last_sm + 1) break;
      last_sm = next.back();
      ++last;
    }
    add(fmt::format("group{} {}: SMs {}", last == g ? "" : "s", span(g, last),
                    span(static_cast<std::size_t>(first_sms.front()), static_cast<std::size_t>(last_sm))));
    g = last + 1;
  }
  return out;
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
