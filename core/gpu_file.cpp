#include "core/gpu_file.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <filesystem>

#include "core/text_file.h"
#include "core/toml_support.h"

namespace gpusched {

GpuSpec parse_gpu_file(const std::string& text, const std::string& name, Warnings* warnings) {
  const auto doc = TomlDocument::parse_string(text, name);
  TableReader r(doc.root(), name, "", warnings);
  check_format_header(r, "gpusched-gpu", kGpuFormatVersion);
  GpuSpec g;
  if (r.has("base")) {
    const auto base = r.string("base");
    const GpuSpec* preset = find_gpu_preset(base);
    if (!preset)
      r.fail("base", expected_found(fmt::format("a GPU preset ({})", gpu_preset_names()), fmt::format("\"{}\"", base)));
    g = *preset;
  } else {
    const auto arch_name = r.string("architecture");
    const auto arch = architecture_from_string(arch_name);
    if (!arch)
      r.fail("architecture", expected_found("fermi, kepler, maxwell or hopper", fmt::format("\"{}\"", arch_name)));
    g = architecture_defaults(*arch);
    g.sm_count = static_cast<int>(r.integer_in("sm_count", 1, 4096));
  }
  g.name = r.string("name");
  if (g.name.empty()) r.fail("name", expected_found("a non-empty name", "\"\""));
  g.description = r.string_or("description", g.description);
  g.source = r.string_or("source", name);
  if (r.has("architecture") && r.has("base")) {
    const auto arch = architecture_from_string(r.string("architecture"));
    if (!arch) r.fail("architecture", expected_found("fermi, kepler, maxwell or hopper", r.string("architecture")));
    g.architecture = *arch;
  }
  auto int_field = [&](const char* key, int& field, int lo, int hi) {
    field = static_cast<int>(r.integer_in(key, lo, hi, field));
  };
  int_field("compute_major", g.compute_major, 1, 20);
  int_field("compute_minor", g.compute_minor, 0, 20);
  int_field("sm_count", g.sm_count, 1, 4096);
  int_field("warp_size", g.warp_size, 1, 1024);
  int_field("max_threads_per_sm", g.max_threads_per_sm, 1, 1 << 16);
  int_field("max_warps_per_sm", g.max_warps_per_sm, 1, 4096);
  int_field("max_blocks_per_sm", g.max_blocks_per_sm, 1, 1024);
  int_field("max_threads_per_block", g.max_threads_per_block, 1, 1 << 16);
  int_field("registers_per_sm", g.registers_per_sm, 1, 1 << 24);
  int_field("max_registers_per_block", g.max_registers_per_block, 1, 1 << 24);
  int_field("max_registers_per_thread", g.max_registers_per_thread, 1, 1024);
  int_field("register_allocation_unit", g.register_allocation_unit, 1, 1 << 16);
  int_field("register_sub_partitions", g.register_sub_partitions, 1, 64);
  int_field("shared_memory_per_sm", g.shared_memory_per_sm, 0, 1 << 30);
  int_field("max_shared_memory_per_block", g.max_shared_memory_per_block, 0, 1 << 30);
  int_field("shared_memory_allocation_unit", g.shared_memory_allocation_unit, 1, 1 << 20);
  int_field("reserved_shared_memory_per_block", g.reserved_shared_memory_per_block, 0, 1 << 20);
  int_field("warp_schedulers_per_sm", g.warp_schedulers_per_sm, 1, 64);
  int_field("max_resident_grids", g.max_resident_grids, 0, 1 << 20);
  auto positive = [&](const char* key, double& field) {
    field = r.number_or(key, field);
    if (!(field > 0.0)) r.fail(key, expected_found("a positive number", fmt::format("{}", field)));
  };
  positive("clock_mhz", g.clock_mhz);
  positive("dram_bandwidth_gbps", g.dram_bandwidth_gbps);
  positive("pcie_bandwidth_gbps", g.pcie_bandwidth_gbps);
  g.memory_bytes = r.integer_in("memory_bytes", 1, INT64_MAX, g.memory_bytes);
  if (r.has("placement")) {
    const auto s = r.string("placement");
    const auto p = placement_from_string(s);
    if (!p) r.fail("placement", expected_found("\"round-robin\" or \"most-free\"", fmt::format("\"{}\"", s)));
    g.placement = *p;
  }
  if (const toml::table* timing = r.table_or_null("timing")) {
    TableReader tr(*timing, name, "timing", warnings);
    g.launch_latency_ns = tr.integer_in("launch_latency_ns", 0, 1'000'000'000, g.launch_latency_ns);
    g.completion_latency_ns = tr.integer_in("completion_latency_ns", 0, 1'000'000'000, g.completion_latency_ns);
    g.launch_gap_ns = tr.integer_in("launch_gap_ns", 0, 1'000'000'000, g.launch_gap_ns);
    g.grid_start_interval_ns = tr.integer_in("grid_start_interval_ns", 0, 1'000'000'000, g.grid_start_interval_ns);
    g.block_dispatch_ns = tr.number_or("block_dispatch_ns", g.block_dispatch_ns);
    if (!(g.block_dispatch_ns >= 0.0 && g.block_dispatch_ns <= 1e6))
      tr.fail("block_dispatch_ns",
              expected_found("a number of ns in [0, 1e6]", fmt::format("{}", g.block_dispatch_ns)));
    g.timing_source = tr.string_or("source", name);
    if (const toml::table* prov = tr.table_or_null("provenance")) {
      // Free text of the calibration (device, driver, date, repeats, spread): kept with the file, not used.
      TableReader pr(*prov, name, "timing.provenance", warnings);
      for (const auto& [key, node] : *prov)
        if (!node.is_string() && !node.is_integer() && !node.is_floating_point())
          pr.fail(std::string(key.str()), expected_found("a string or a number", describe_node(node)));
    }
    tr.finish();
  }
  if (g.max_warps_per_sm * g.warp_size < g.max_threads_per_sm)
    r.fail("max_warps_per_sm", fmt::format("max_warps_per_sm * warp_size ({}) is below max_threads_per_sm ({})",
                                           g.max_warps_per_sm * g.warp_size, g.max_threads_per_sm));
  r.finish();
  return g;
}

GpuSpec read_gpu_file(const std::string& path, Warnings* warnings) {
  return parse_gpu_file(read_text_file(path), path, warnings);
}

std::string gpu_file_text(const GpuSpec& g) {
  std::string out = "format = \"gpusched-gpu\"\nversion = 1\n";
  out += fmt::format("name = \"{}\"\ndescription = \"{}\"\nsource = \"{}\"\narchitecture = \"{}\"\n", g.name,
                     g.description, g.source, to_string(g.architecture));
  out += fmt::format("compute_major = {}\ncompute_minor = {}\nsm_count = {}\nwarp_size = {}\n", g.compute_major,
                     g.compute_minor, g.sm_count, g.warp_size);
  out += fmt::format("max_threads_per_sm = {}\nmax_warps_per_sm = {}\nmax_blocks_per_sm = {}\n", g.max_threads_per_sm,
                     g.max_warps_per_sm, g.max_blocks_per_sm);
  out += fmt::format("max_threads_per_block = {}\nregisters_per_sm = {}\nmax_registers_per_block = {}\n",
                     g.max_threads_per_block, g.registers_per_sm, g.max_registers_per_block);
  out += fmt::format("max_registers_per_thread = {}\nregister_allocation_unit = {}\nregister_sub_partitions = {}\n",
                     g.max_registers_per_thread, g.register_allocation_unit, g.register_sub_partitions);
  out += fmt::format("shared_memory_per_sm = {}\nmax_shared_memory_per_block = {}\n", g.shared_memory_per_sm,
                     g.max_shared_memory_per_block);
  out += fmt::format("shared_memory_allocation_unit = {}\nreserved_shared_memory_per_block = {}\n",
                     g.shared_memory_allocation_unit, g.reserved_shared_memory_per_block);
  out += fmt::format("warp_schedulers_per_sm = {}\nmax_resident_grids = {}\nclock_mhz = {}\ndram_bandwidth_gbps = {}\n",
                     g.warp_schedulers_per_sm, g.max_resident_grids, g.clock_mhz, g.dram_bandwidth_gbps);
  out += fmt::format("pcie_bandwidth_gbps = {}\nmemory_bytes = {}\nplacement = \"{}\"\n", g.pcie_bandwidth_gbps,
                     g.memory_bytes, to_string(g.placement));
  out += fmt::format("\n[timing]\nlaunch_latency_ns = {}\ncompletion_latency_ns = {}\nlaunch_gap_ns = {}\n",
                     g.launch_latency_ns, g.completion_latency_ns, g.launch_gap_ns);
  out += fmt::format("block_dispatch_ns = {}\ngrid_start_interval_ns = {}\n", g.block_dispatch_ns,
                     g.grid_start_interval_ns);
  if (!g.timing_source.empty()) out += fmt::format("source = \"{}\"\n", g.timing_source);
  return out;
}

GpuSpec resolve_gpu(const std::string& name_or_path, Warnings* warnings, const SourcePosition& where,
                    const std::string& field) {
  if (const GpuSpec* p = find_gpu_preset(name_or_path)) return *p;
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return read_gpu_file(name_or_path, warnings);
  throw InputError(where, field,
                   expected_found(fmt::format("a GPU preset ({}) or a GPU file", gpu_preset_names()),
                                  fmt::format("\"{}\"", name_or_path)));
}

}  // namespace gpusched
