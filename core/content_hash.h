// Content hashes that identify what a run was given: a workload with every kernel profile and block record
// it uses, and a GPU's specification. Stored with each run (the store's `workload_hash`, `gpu_hash`) and part
// of a run's key, so a changed trace is a different run. Not cryptographic: 64-bit, word-wise mixing.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "core/gpu_spec.h"
#include "core/workload.h"

namespace gpusched {

class ContentHasher {
 public:
  void add(std::uint64_t word);
  void add(std::int64_t v) { add(static_cast<std::uint64_t>(v)); }
  void add(int v) { add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  void add(double v);
  void add(std::string_view s);
  std::uint64_t value() const;
  std::string hex() const;  // 16 lowercase hex digits

 private:
  std::uint64_t state_ = 0x6a09e667f3bcc908ULL;
  std::uint64_t count_ = 0;
};

std::string workload_content_hash(const Workload& w);
std::string gpu_content_hash(const GpuSpec& gpu);

}  // namespace gpusched
