// Writes a file under a temporary name and renames it into place on commit(), so an error or a crash
// never leaves a half-written output (DESIGN, "Errors and bad input").
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace gpusched {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(std::string_view data);
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace gpusched
