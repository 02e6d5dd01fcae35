#include "core/atomic_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gpusched {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  temp_ = fmt::format("{}.tmp{}", path_, ::getpid());
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) throw std::runtime_error(fmt::format("{}: cannot write: {}", path_, std::strerror(errno)));
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicFile::write(std::string_view data) {
  if (!data.empty() && std::fwrite(data.data(), 1, data.size(), file_) != data.size())
    throw std::runtime_error(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
}

void AtomicFile::commit() {
  if (std::fclose(file_) != 0) {
    file_ = nullptr;
    throw std::runtime_error(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
  }
  file_ = nullptr;
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw std::runtime_error(fmt::format("{}: cannot rename into place: {}", path_, std::strerror(errno)));
  committed_ = true;
}

}  // namespace gpusched
