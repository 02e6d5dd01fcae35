#pragma once
#include <cstdint>
#include <string>

namespace gpusched {
inline constexpr std::uintmax_t kMaxTextFileBytes = 64ull << 20;
// The whole file as a string; throws InputError("cannot open the file") naming it.
std::string read_text_file(const std::string& path);
}  // namespace gpusched
