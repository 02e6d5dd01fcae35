// GPU files (format "gpusched-gpu"): a GpuSpec written by hand, optionally starting from a preset.
#pragma once
#include <string>

#include "core/error.h"
#include "core/gpu_spec.h"

namespace gpusched {

inline constexpr int kGpuFormatVersion = 1;

GpuSpec read_gpu_file(const std::string& path, Warnings* warnings);
GpuSpec parse_gpu_file(const std::string& text, const std::string& name, Warnings* warnings);
std::string gpu_file_text(const GpuSpec& gpu);  // a file that reads back to `gpu`

// A preset name or a path to a GPU file. Throws InputError naming `field` at `where` if neither.
GpuSpec resolve_gpu(const std::string& name_or_path, Warnings* warnings, const SourcePosition& where = {},
                    const std::string& field = "gpu");

}  // namespace gpusched
