// Workload files (format "gpusched-workload"): kernels by name and path, launches with arrivals,
// tenants, priorities, deadlines, streams and explicit dependencies. docs/formats.md has every field.
#pragma once
#include <string>

#include "core/error.h"
#include "core/workload.h"

namespace gpusched {

inline constexpr int kWorkloadFormatVersion = 1;

Workload read_workload(const std::string& path, Warnings* warnings);
// `base_dir` resolves the kernel paths; `load_records` false reads attributes only.
Workload parse_workload(const std::string& text, const std::string& name, const std::string& base_dir,
                        Warnings* warnings, bool load_records = true);

// Writes a workload file that references kernel files by the given relative paths.
std::string workload_file_text(const Workload& w, const std::vector<std::string>& kernel_paths);

}  // namespace gpusched
