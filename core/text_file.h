#pragma once
#include <string>

namespace gpusched {
// The whole file as a string; throws InputError("cannot open the file") naming it.
std::string read_text_file(const std::string& path);
}  // namespace gpusched
