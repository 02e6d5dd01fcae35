#include "core/text_file.h"

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace gpusched {
std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourcePosition{path, 0, 0}, "cannot open the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError(SourcePosition{path, 0, 0}, "cannot read the file");
  return buf.str();
}
}  // namespace gpusched
