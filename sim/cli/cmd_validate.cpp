// gpusched validate FILE...: checks kernel profiles, workloads, GPU files and block-record CSVs, and
// prints a summary of each (kernels, blocks, block-time statistics, occupancy and the binding limit).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <toml++/toml.h>

#include "core/block_records_csv.h"
#include "core/gpu_file.h"
#include "core/profile_io.h"
#include "core/text_file.h"
#include "core/toml_support.h"
#include "core/workload_io.h"
#include "sim/cli/commands.h"

namespace gpusched::cli {
namespace {

void print_occupancy(const KernelProfile& k, const GpuSpec& gpu, const char* indent) {
  const auto o = compute_occupancy(gpu, k.shape());
  if (o.blocks_per_sm == 0) {
    fmt::print("{}occupancy on {}: cannot run ({})\n", indent, gpu.name, o.reason);
    return;
  }
  fmt::print("{}occupancy on {}: {} blocks/SM ({:.0f}% of warps), limited by {} "
             "(threads {}, warps {}, registers {}, shared memory {}, block slots {})\n",
             indent, gpu.name, o.blocks_per_sm, 100.0 * o.warp_occupancy, to_string(o.limit), o.by_threads, o.by_warps,
             o.by_registers == INT_MAX ? std::string("-") : std::to_string(o.by_registers),
             o.by_shared_memory == INT_MAX ? std::string("-") : std::to_string(o.by_shared_memory), o.by_block_slots);
}

void print_kernel(const KernelProfile& k, const GpuSpec* gpu, const char* indent) {
  fmt::print("{}kernel {}: {} blocks of {} threads, {} registers/thread, {} B shared memory/block\n", indent, k.name,
             k.block_count(), k.threads_per_block(), k.registers_per_thread, k.shared_memory_per_block);
  for (const auto& s : k.record_sets) {
    const auto& d = s.sorted_durations;
    fmt::print("{}  records at residency {}: {} blocks recorded; block time mean {} sd {} ({:.1f}% RSD) min {} max {}\n",
               indent, s.residency, s.recorded, format_duration(static_cast<TimeNs>(s.mean_ns)),
               format_duration(static_cast<TimeNs>(s.stddev_ns)), s.mean_ns > 0 ? 100.0 * s.stddev_ns / s.mean_ns : 0.0,
               format_duration(d.empty() ? 0 : d.front()), format_duration(d.empty() ? 0 : d.back()));
  }
  if (gpu) print_occupancy(k, *gpu, (std::string(indent) + "  ").c_str());
}

void validate_csv(const std::string& path) {
  BlockRecordReader reader(path, BlockRecordLimits{});
  BlockRecord r;
  std::int64_t n = 0;
  double sum = 0, sq = 0;
  TimeNs lo = INT64_MAX, hi = 0, first = INT64_MAX, last = 0;
  int max_sm = -1;
  while (reader.next(r)) {
    const double d = static_cast<double>(r.end - r.start);
    ++n;
    sum += d;
    sq += d * d;
    lo = std::min(lo, r.end - r.start);
    hi = std::max(hi, r.end - r.start);
    first = std::min(first, r.start);
    last = std::max(last, r.end);
    max_sm = std::max(max_sm, r.sm);
  }
  const double mean = n ? sum / static_cast<double>(n) : 0;
  const double sd = n > 1 ? std::sqrt(std::max(0.0, (sq - sum * mean) / static_cast<double>(n - 1))) : 0;
  fmt::print("{}: block records: {} records on {} SMs, span {}; block time mean {:.1f} sd {:.1f} min {} max {} (time units "
             "as written)\n",
             path, n, max_sm + 1, n ? last - first : 0, mean, sd, n ? lo : 0, hi);
}

void validate_file(const std::string& path, Warnings& warnings) {
  if (std::filesystem::path(path).extension() == ".csv") return validate_csv(path);
  const auto doc = TomlDocument::parse_file(path);
  TableReader r(doc.root(), path, "", nullptr);
  const auto format = r.string("format");
  if (format == "gpusched-kernel") {
    const auto k = read_kernel_profile(path, &warnings);
    fmt::print("{}: kernel profile\n", path);
    print_kernel(k, profile_gpu(k), "  ");
  } else if (format == "gpusched-workload") {
    const auto w = read_workload(path, &warnings);
    std::size_t edges = 0;
    for (std::size_t i = 0; i < w.launches.size(); ++i) edges += w.dag.predecessors(i).size();
    fmt::print("{}: workload '{}': {} launches, {} kernels, {} blocks, {} dependencies, {} GPU(s){}\n", path, w.name,
               w.launches.size(), w.kernels.size(), w.total_blocks(), edges, w.gpu_count,
               w.gpu.empty() ? "" : fmt::format(" of {}", w.gpu));
    std::optional<GpuSpec> gpu;
    if (!w.gpu.empty()) gpu = resolve_gpu(w.gpu, &warnings, {path, 0, 0}, "gpu");
    for (const auto& k : w.kernels) print_kernel(*k, gpu ? &*gpu : profile_gpu(*k), "  ");
  } else if (format == "gpusched-gpu") {
    const auto g = read_gpu_file(path, &warnings);
    fmt::print("{}: GPU '{}': {} {} SMs, {} threads, {} warps, {} blocks, {} registers, {} B shared memory per SM\n",
               path, g.name, g.sm_count, to_string(g.architecture), g.max_threads_per_sm, g.max_warps_per_sm,
               g.max_blocks_per_sm, g.registers_per_sm, g.shared_memory_per_sm);
  } else {
    r.fail("format", expected_found("\"gpusched-kernel\", \"gpusched-workload\" or \"gpusched-gpu\"",
                                    fmt::format("\"{}\"", format)));
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Check trace, workload and GPU files and summarise them");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "Files to check (.kernel.toml, workload .toml, GPU .toml, block-record .csv)")
      ->required();
  cmd->callback([files] {
    Warnings warnings;
    for (const auto& f : *files) validate_file(f, warnings);
    print_warnings(warnings);
  });
}

}  // namespace gpusched::cli
