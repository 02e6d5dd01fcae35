#include "core/text_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace gpusched {
std::string read_text_file(const std::string& path) {
  // Only regular files of sane size: a path to /dev/zero or a FIFO must give an error, not hang.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    if (!std::filesystem::exists(path, ec)) throw InputError(SourcePosition{path, 0, 0}, "cannot open the file");
    throw InputError(SourcePosition{path, 0, 0}, "not a regular file");
  }
  if (std::filesystem::file_size(path, ec) > kMaxTextFileBytes)
    throw InputError(SourcePosition{path, 0, 0}, "file larger than 64 MiB: not a gpusched attribute file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourcePosition{path, 0, 0}, "cannot open the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError(SourcePosition{path, 0, 0}, "cannot read the file");
  return buf.str();
}
}  // namespace gpusched
