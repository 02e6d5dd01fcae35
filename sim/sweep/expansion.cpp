#include "sim/sweep/expansion.h"

#include <fmt/format.h>
#include <glob.h>

#include <charconv>
#include <filesystem>

#include "core/content_hash.h"
#include "core/generator.h"
#include "core/gpu_file.h"
#include "core/profile_io.h"
#include "core/workload_io.h"
#include "sim/pairs.h"
#include "sim/run_identity.h"

namespace gpusched::sim {
namespace fs = std::filesystem;
namespace {

// Paths and glob patterns relative to the sweep file's folder; a pattern that matches nothing is an error.
std::vector<std::string> expand_paths(const SweepSpec& s, int line, const std::string& field,
                                      const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const auto& pattern : patterns) {
    const std::string full = fs::path(pattern).is_absolute() ? pattern : (fs::path(s.base_dir) / pattern).string();
    glob_t g{};
    const int rc = ::glob(full.c_str(), 0, nullptr, &g);
    if (rc == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    if (rc != 0)
      throw InputError({s.file, line}, field, expected_found("files", fmt::format("nothing matching \"{}\"", full)));
  }
  return out;
}

// A GPU preset name as is; a GPU file relative to the sweep file's folder.
std::string relative_to_sweep(const SweepSpec& s, const std::string& gpu) {
  if (find_gpu_preset(gpu) || fs::path(gpu).is_absolute()) return gpu;
  return (fs::path(s.base_dir) / gpu).lexically_normal().string();
}

const std::string* param(const SweepWorkloadSource& src, const char* key) {
  const auto it = src.params.find(key);
  return it == src.params.end() ? nullptr : &it->second;
}

template <class T>
T number_param(const SweepSpec& s, const SweepWorkloadSource& src, const char* key, T fallback) {
  const std::string* text = param(src, key);
  if (!text) return fallback;
  T value{};
  const auto* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end)
    throw InputError({s.file, src.line}, key, expected_found("a number", fmt::format("\"{}\"", *text)));
  return value;
}

void add_workload(SweepPlan& plan, Workload w, std::string source) {
  SweepWorkload sw;
  sw.hash = workload_content_hash(w);
  sw.workload = std::move(w);
  sw.source = std::move(source);
  plan.workloads.push_back(std::move(sw));
}

void load_workloads(SweepPlan& plan, Warnings* warnings) {
  const auto& s = plan.spec;
  AloneTimeCache alone;
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto& src = s.workloads[i];
    const std::string field = fmt::format("workloads[{}]", i);
    if (!src.files.empty()) {
      for (const auto& path : expand_paths(s, src.line, field + ".files", src.files))
        add_workload(plan, read_workload(path, warnings), path);
    } else if (src.generator == "pairs") {
      std::vector<std::shared_ptr<const KernelProfile>> kernels;
      for (const auto& path : expand_paths(s, src.line, field + ".kernels", src.kernels))
        kernels.push_back(std::make_shared<KernelProfile>(read_kernel_profile(path, warnings)));
      if (kernels.size() < 2)
        throw InputError({s.file, src.line}, field + ".kernels", expected_found("at least two kernels", "fewer"));
      const std::string gpu_name = *param(src, "gpu");
      const std::string gpu_ref = relative_to_sweep(s, gpu_name);
      const GpuSpec gpu = resolve_gpu(gpu_ref, warnings, {s.file, src.line}, field + ".gpu");
      PairOptions o;
      o.offset_cycles = number_param<int>(s, src, "offset_cycles", 100);
      o.offset_fraction = number_param<double>(s, src, "offset_fraction", -1.0);
      o.seed = number_param<std::uint64_t>(s, src, "seed", 1);
      for (const auto& pair : make_kernel_pairs(kernels, gpu, o, alone))
        add_workload(plan, pair_workload(kernels, pair, gpu_ref),
                     fmt::format("pairs(seed={}, offset_cycles={}, offset_fraction={})", o.seed, o.offset_cycles,
                                 o.offset_fraction));
    } else {  // synthetic
      KnapsackGeneratorSpec g;
      g.kernels = number_param<int>(s, src, "kernels", g.kernels);
      g.max_blocks = number_param<int>(s, src, "max_blocks", g.max_blocks);
      g.min_blocks = number_param<int>(s, src, "min_blocks", g.min_blocks);
      g.streams = number_param<int>(s, src, "streams", g.streams);
      g.min_block_us = number_param<double>(s, src, "min_block_us", g.min_block_us);
      g.max_block_us = number_param<double>(s, src, "max_block_us", g.max_block_us);
      g.block_rsd = number_param<double>(s, src, "block_rsd", g.block_rsd);
      if (const auto* gpu = param(src, "gpu")) g.gpu = *gpu;
      if (!find_gpu_preset(g.gpu))
        throw InputError({s.file, src.line}, field + ".gpu",
                         expected_found(fmt::format("a GPU preset ({})", gpu_preset_names()), g.gpu));
      for (const auto seed : src.seeds) {
        g.seed = seed;
        try {
          auto generated = generate_knapsack_workload(g);
          generated.workload.gpu = g.gpu;
          add_workload(plan, std::move(generated.workload),
                       fmt::format("synthetic(kernels={}, max_blocks={}, seed={})", g.kernels, g.max_blocks, seed));
        } catch (const std::invalid_argument& e) {
          throw InputError({s.file, src.line}, field, e.what());
        }
      }
    }
  }
}

// Policy settings: "all" expanded, grids as cartesian products.
struct PolicySetting {
  int line = 0;
  std::string name;
  std::map<std::string, std::string> params;
};

std::vector<PolicySetting> policy_settings(const SweepSpec& s) {
  std::vector<PolicySetting> out;
  for (const auto& p : s.policies) {
    if (p.name == "all") {
      for (const auto& name : all_policy_names()) out.push_back({p.line, name, {}});
      continue;
    }
    std::vector<std::map<std::string, std::string>> combos{p.set};
    for (const auto& [key, values] : p.grid) {
      std::vector<std::map<std::string, std::string>> next;
      for (const auto& c : combos)
        for (const auto& v : values) {
          auto copy = c;
          copy[key] = v;
          next.push_back(std::move(copy));
        }
      combos = std::move(next);
    }
    for (auto& c : combos) out.push_back({p.line, p.name, std::move(c)});
  }
  return out;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  const auto bad = [&] {
    return std::invalid_argument(fmt::format("--shard: expected I/N with 0 <= I < N, found \"{}\"", text));
  };
  if (slash == std::string::npos) throw bad();
  const auto parse = [&](std::string_view part, int& out) {
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    if (ec != std::errc() || ptr != part.data() + part.size()) throw bad();
  };
  parse(std::string_view(text).substr(0, slash), s.index);
  parse(std::string_view(text).substr(slash + 1), s.count);
  if (s.count < 1 || s.index < 0 || s.index >= s.count) throw bad();
  return s;
}

SweepPlan expand_sweep(const SweepSpec& spec, Warnings* warnings, const Shard& shard) {
  SweepPlan plan;
  plan.spec = spec;
  load_workloads(plan, warnings);

  // GPUs by reference: the sweep's list, else each workload's own.
  std::map<std::string, std::size_t> gpu_index;
  const auto gpu_of = [&](const std::string& ref, const std::string& field) {
    if (const auto it = gpu_index.find(ref); it != gpu_index.end()) return it->second;
    plan.gpus.push_back(resolve_gpu(ref, warnings, {spec.file}, field));
    gpu_index[ref] = plan.gpus.size() - 1;
    return plan.gpus.size() - 1;
  };
  const auto settings = policy_settings(spec);
  const std::vector<int> counts = spec.gpu_counts.empty() ? std::vector<int>{0} : spec.gpu_counts;
  std::size_t index = 0;
  for (std::size_t wi = 0; wi < plan.workloads.size(); ++wi) {
    const auto& sw = plan.workloads[wi];
    std::vector<std::size_t> gpus;
    if (spec.gpus.empty()) {
      if (sw.workload.gpu.empty())
        throw InputError(
            {spec.file}, "gpus",
            fmt::format("workload {} ({}) names no GPU: list GPUs in the sweep's 'gpus'", sw.workload.name, sw.source));
      gpus.push_back(gpu_of(sw.workload.gpu, "gpu"));
    } else {
      for (const auto& g : spec.gpus) gpus.push_back(gpu_of(relative_to_sweep(spec, g), "gpus"));
    }
    for (const std::size_t gi : gpus)
      for (const int count : counts)
        for (const auto& setting : settings)
          for (const auto& model : spec.interference)
            for (const auto seed : spec.seeds) {
              const std::size_t job_index = index++;
              if (!shard.contains(job_index)) continue;
              SweepJob job;
              job.index = job_index;
              job.workload = wi;
              job.gpu = gi;
              job.options.policy = setting.name;
              job.options.policy_params = setting.params;
              job.options.interference = model;
              job.options.seed = seed;
              job.options.gpu_count = count;
              job.options.keep_schedule = spec.keep_blocks;
              try {
                job.info = describe_sim_run(sw.workload, sw.hash, plan.gpus[gi], job.options, spec.name);
              } catch (const std::invalid_argument& e) {
                throw InputError({spec.file, setting.line}, "policies", e.what());
              }
              plan.jobs.push_back(std::move(job));
            }
  }
  return plan;
}

}  // namespace gpusched::sim
