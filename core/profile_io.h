// Reading and writing kernel profiles: a TOML attribute file (format "gpusched-kernel") naming one CSV
// of block records per recorded residency. docs/formats.md describes every field.
#pragma once
#include <string>
#include <vector>

#include "core/error.h"
#include "core/gpu_spec.h"
#include "core/kernel_profile.h"

namespace gpusched {

inline constexpr int kKernelFormatVersion = 1;

struct ProfileReadOptions {
  bool load_records = true;  // false: attributes only (records are still checked by validate)
  // What the replay uses as a block's time (kernel_profile.h); both are kept in the record set.
  BlockTime block_time = BlockTime::Slot;
};

// Reads and checks a profile and its record files. Throws InputError.
KernelProfile read_kernel_profile(const std::string& path, Warnings* warnings, ProfileReadOptions options = {});
// Same, from text already in memory; record files are resolved against `base_dir`.
KernelProfile parse_kernel_profile(const std::string& text, const std::string& name, const std::string& base_dir,
                                   Warnings* warnings, ProfileReadOptions options = {});

// Writes `<dir>/<name>.kernel.toml` and one `<name>.r<R>.csv` per record set; records are in ns.
// `records[i]` are the records of `profile.record_sets[i]`.
void write_kernel_profile(const std::string& dir, const KernelProfile& profile,
                          const std::vector<std::vector<BlockRecord>>& records);

// The GPU a profile names (preset), or nullptr when it names none. Throws for an unknown name.
const GpuSpec* profile_gpu(const KernelProfile& p);

}  // namespace gpusched
