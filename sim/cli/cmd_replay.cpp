// gpusched replay KERNEL...: each recorded kernel simulated alone on the GPU it was recorded on, against its own
// recording's span, replaying slot occupancies (the default) and raw end - start (docs/formats.md, "Block time").
#include <fmt/format.h>

#include <cmath>

#include "core/gpu_file.h"
#include "core/profile_io.h"
#include "sim/cli/commands.h"
#include "sim/replay_check.h"

namespace gpusched::cli {
namespace {

struct ReplayArgs {
  std::vector<std::string> kernels;
  std::string gpu;
  std::string format = "table";
  double max_error_pct = -1;
};

int run_replay(const ReplayArgs& a) {
  std::vector<sim::ReplayCheck> checks;
  for (const auto& path : a.kernels) {
    Warnings warnings;
    const KernelProfile k = read_kernel_profile(path, &warnings);
    print_warnings(warnings);
    std::string gpu_name = a.gpu.empty() ? k.gpu : a.gpu;
    if (gpu_name.empty())
      throw std::invalid_argument(fmt::format("{}: the kernel names no GPU; give one with --gpu", path));
    const GpuSpec gpu = resolve_gpu(gpu_name, &warnings, {}, "--gpu");
    checks.push_back(sim::replay_alone(k, gpu));
  }
  if (a.format == "csv") fmt::print("kernel,recorded_ns,slot_ns,slot_err_pct,raw_ns,raw_err_pct\n");
  if (a.format == "markdown")
    fmt::print(
        "| kernel | recorded span | slot occupancy (default) | error | raw end - start | error |\n"
        "|---|---:|---:|---:|---:|---:|\n");
  if (a.format == "table")
    fmt::print("{:<20} {:>12} {:>12} {:>8} {:>12} {:>8}\n", "kernel", "recorded", "slot", "error", "raw", "error");
  double worst = 0;
  for (const auto& c : checks) {
    worst = std::max(worst, std::abs(c.slot_error()));
    if (a.format == "csv")
      fmt::print("{},{},{},{:.2f},{},{:.2f}\n", c.kernel, c.recorded_span, c.slot_span, 100 * c.slot_error(),
                 c.raw_span, 100 * c.raw_error());
    else if (a.format == "markdown")
      fmt::print("| {} | {} | {} | {:+.1f}% | {} | {:+.1f}% |\n", c.kernel, format_duration(c.recorded_span),
                 format_duration(c.slot_span), 100 * c.slot_error(), format_duration(c.raw_span), 100 * c.raw_error());
    else
      fmt::print("{:<20} {:>12} {:>12} {:>7.1f}% {:>12} {:>7.1f}%\n", c.kernel, format_duration(c.recorded_span),
                 format_duration(c.slot_span), 100 * c.slot_error(), format_duration(c.raw_span), 100 * c.raw_error());
  }
  if (a.max_error_pct >= 0 && 100 * worst > a.max_error_pct) {
    fmt::print(stderr, "replay: the largest slot-occupancy error is {:.2f}%, over --max-error {}%\n", 100 * worst,
               a.max_error_pct);
    return 3;
  }
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "replay",
      "Simulate each recorded kernel alone and compare with its own recording's span (slot and raw block time)");
  auto a = std::make_shared<ReplayArgs>();
  cmd->add_option("kernels", a->kernels, "Kernel profiles (.kernel.toml) with recorded start times")->required();
  cmd->add_option("--gpu", a->gpu, "GPU preset or file (default: the one each kernel was recorded on)");
  cmd->add_option("--format", a->format, "Output: table, markdown or csv")
      ->check(CLI::IsMember({"table", "markdown", "csv"}));
  cmd->add_option("--max-error", a->max_error_pct,
                  "Exit 3 when a kernel's slot-occupancy replay misses its recording by more than this many percent");
  cmd->callback([a] {
    if (const int rc = run_replay(*a); rc != 0) throw ExitCode{rc};
  });
}

}  // namespace gpusched::cli
