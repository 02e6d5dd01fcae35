#include <fmt/format.h>

#include "core/gpu_file.h"
#include "sim/cli/commands.h"

namespace gpusched::cli {

void add_gpus_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("gpus", "List the GPU presets, or print one as a GPU file to start from");
  auto show = std::make_shared<std::string>();
  cmd->add_option("--show", *show, "Print this preset (or GPU file) in the GPU file format");
  cmd->callback([show] {
    if (!show->empty()) {
      Warnings w;
      const GpuSpec g = resolve_gpu(*show, &w, {}, "--show");
      print_warnings(w);
      fmt::print("{}", gpu_file_text(g));
      return;
    }
    fmt::print("{:<14} {:<8} {:>4} {:>7} {:>5} {:>6} {:>7} {:>8} {:>5} {:>8} {:>9} {:<11} {}\n", "name", "arch", "SMs",
               "threads", "warps", "blocks", "regs", "smem", "grids", "MHz", "DRAM GB/s", "placement", "source");
    for (const auto& g : gpu_presets())
      fmt::print("{:<14} {:<8} {:>4} {:>7} {:>5} {:>6} {:>7} {:>8} {:>5} {:>8.0f} {:>9.1f} {:<11} {}\n", g.name,
                 to_string(g.architecture), g.sm_count, g.max_threads_per_sm, g.max_warps_per_sm, g.max_blocks_per_sm,
                 g.registers_per_sm, g.shared_memory_per_sm, g.max_resident_grids, g.clock_mhz, g.dram_bandwidth_gbps,
                 to_string(g.placement), g.source);
  });
}

}  // namespace gpusched::cli
