// Reading the workload a live command runs (validate, native): plain C++ of the simulator's, kept out of
// suite_binding.h, which CUDA sources include.
#pragma once
#include <string>

#include "sim/runner.h"

namespace gpusched::live {

// A workload for one GPU and the GPU it is predicted on (`gpu_override` from --gpu, else the workload's), read
// and checked; readers' warnings go to stderr. Throws std::invalid_argument when it runs on several GPUs ("PATH:
// the workload runs on N GPUs; <runner> one") or a kernel cannot run on the GPU.
sim::LoadedWorkload load_one_gpu_workload(const std::string& path, const std::string& gpu_override,
                                          const std::string& runner);

}  // namespace gpusched::live
