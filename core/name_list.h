// Comma-separated lists of names on the command line ("fifo,srtf", "none,age"): the names in order, empty items
// dropped ("fifo,,srtf" and "fifo,srtf," are fifo and srtf). Shared by the commands that take such lists.
#pragma once
#include <string>
#include <vector>

namespace gpusched {
inline std::vector<std::string> split_name_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto p = s.find(',', start);
    auto part = s.substr(start, p == std::string::npos ? std::string::npos : p - start);
    if (!part.empty()) out.push_back(std::move(part));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}
}  // namespace gpusched
