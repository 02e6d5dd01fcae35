#include "live/workload_loading.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpusched::live {

sim::LoadedWorkload load_one_gpu_workload(const std::string& path, const std::string& gpu_override,
                                          const std::string& runner) {
  Warnings warnings;
  auto loaded = sim::load_workload_and_gpu(path, gpu_override, &warnings, "--gpu", "name one with --gpu");
  for (const auto& w : warnings) fmt::print(stderr, "{}\n", w);
  if (loaded.workload.gpu_count != 1)
    throw std::invalid_argument(
        fmt::format("{}: the workload runs on {} GPUs; {} one", path, loaded.workload.gpu_count, runner));
  sim::check_runnable(loaded.workload, loaded.gpu);
  return loaded;
}

}  // namespace gpusched::live
