#include "core/workload_io.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <toml++/toml.h>

#include "core/profile_io.h"
#include "core/text_file.h"
#include "core/toml_support.h"

namespace gpusched {
namespace fs = std::filesystem;

Workload parse_workload(const std::string& text, const std::string& name, const std::string& base_dir,
                        Warnings* warnings, bool load_records) {
  const auto doc = TomlDocument::parse_string(text, name);
  TableReader r(doc.root(), name, "", warnings);
  check_format_header(r, "gpusched-workload", kWorkloadFormatVersion);
  Workload w;
  w.file = name;
  w.name = r.string_or("name", fs::path(name).stem().stem().string());
  w.gpu = r.string_or("gpu", "");
  if (!w.gpu.empty() && !find_gpu_preset(w.gpu) && !fs::is_regular_file(fs::path(base_dir) / w.gpu))
    r.fail("gpu", expected_found(fmt::format("a GPU preset ({}) or a GPU file", gpu_preset_names()),
                                 fmt::format("\"{}\"", w.gpu)));
  if (!w.gpu.empty() && !find_gpu_preset(w.gpu)) w.gpu = (fs::path(base_dir) / w.gpu).string();
  w.gpu_count = static_cast<int>(r.integer_in("gpus", 1, 64, 1));

  const toml::table* kernels = r.table_or_null("kernels");
  if (!kernels) throw InputError(r.position(), "kernels", "missing (a [kernels] table naming the kernel files)");
  TableReader kr(*kernels, name, "kernels", warnings);
  std::map<std::string, std::size_t> kernel_index;
  ProfileReadOptions popts;
  popts.load_records = load_records;
  for (const auto& [key, node] : *kernels) {
    const std::string k(key.str());
    const std::string rel = kr.string(k);
    const std::string path = (fs::path(base_dir) / rel).lexically_normal().string();
    auto profile = std::make_shared<KernelProfile>(read_kernel_profile(path, warnings, popts));
    kernel_index[k] = w.kernels.size();
    w.kernels.push_back(std::move(profile));
    w.kernel_keys.push_back(k);
  }
  kr.finish();

  const auto launch_tables = r.table_array("launch");
  if (launch_tables.empty()) throw InputError(r.position(), "launch", "missing (at least one [[launch]] is required)");
  std::map<std::string, std::size_t> ids;
  std::vector<std::vector<std::pair<std::string, std::size_t>>> pending_after(launch_tables.size());
  std::vector<const toml::table*> tables;
  for (std::size_t i = 0; i < launch_tables.size(); ++i) {
    TableReader lr(*launch_tables[i], name, fmt::format("launch[{}]", i), warnings);
    Launch l;
    l.line = lr.position().line;
    l.id = lr.string("id");
    if (l.id.empty()) lr.fail("id", expected_found("a non-empty id", "\"\""));
    if (auto [it, fresh] = ids.emplace(l.id, i); !fresh)
      lr.fail("id", fmt::format("duplicate launch id '{}' (first defined at line {})", l.id,
                                w.launches[it->second].line));
    const std::string kname = lr.string("kernel");
    const auto kit = kernel_index.find(kname);
    if (kit == kernel_index.end()) {
      std::string known;
      for (const auto& [k, _] : kernel_index) known += (known.empty() ? "" : ", ") + k;
      lr.fail("kernel", expected_found(fmt::format("a kernel named in [kernels] ({})", known),
                                       fmt::format("\"{}\"", kname)));
    }
    l.kernel = kit->second;
    l.tenant = lr.string_or("tenant", l.id);
    l.stream = lr.string_or("stream", "");
    l.arrival = lr.integer_in("arrival_ns", 0, INT64_MAX / 4, 0);
    l.priority = static_cast<int>(lr.integer_in("priority", INT32_MIN, INT32_MAX, 0));
    if (lr.has("deadline_ns")) l.deadline = lr.integer_in("deadline_ns", 0, INT64_MAX / 4);
    l.block_coalesced = lr.boolean_or("block_coalesced", false);
    const auto after = lr.string_array_or_empty("after");
    for (std::size_t j = 0; j < after.size(); ++j) pending_after[i].emplace_back(after[j], j);
    lr.finish();
    w.launches.push_back(std::move(l));
  }
  // Dependencies may name launches defined later in the file, so resolve them after reading all ids.
  for (std::size_t i = 0; i < w.launches.size(); ++i) {
    TableReader lr(*launch_tables[i], name, fmt::format("launch[{}]", i), nullptr);
    for (const auto& [dep, j] : pending_after[i]) {
      const auto it = ids.find(dep);
      if (it == ids.end())
        throw InputError(lr.position_of("after"), fmt::format("launch[{}].after[{}]", i, j),
                         expected_found("the id of a launch in this file", fmt::format("\"{}\"", dep)));
      w.launches[i].after.push_back(it->second);
    }
  }
  r.finish();
  w.dag = WorkloadDag::build(w.launches, name);
  return w;
}

Workload read_workload(const std::string& path, Warnings* warnings) {
  return parse_workload(read_text_file(path), path, fs::path(path).parent_path().string(), warnings);
}

std::string workload_file_text(const Workload& w, const std::vector<std::string>& kernel_paths) {
  std::string out = "format = \"gpusched-workload\"\nversion = 1\n";
  out += fmt::format("name = \"{}\"\n", w.name);
  if (!w.gpu.empty()) out += fmt::format("gpu = \"{}\"\n", w.gpu);
  if (w.gpu_count != 1) out += fmt::format("gpus = {}\n", w.gpu_count);
  out += "\n[kernels]\n";
  for (std::size_t k = 0; k < w.kernels.size(); ++k)
    out += fmt::format("\"{}\" = \"{}\"\n", w.kernel_keys[k], kernel_paths.at(k));
  for (const auto& l : w.launches) {
    out += fmt::format("\n[[launch]]\nid = \"{}\"\nkernel = \"{}\"\n", l.id, w.kernel_keys[l.kernel]);
    if (l.tenant != l.id) out += fmt::format("tenant = \"{}\"\n", l.tenant);
    if (!l.stream.empty()) out += fmt::format("stream = \"{}\"\n", l.stream);
    out += fmt::format("arrival_ns = {}\n", l.arrival);
    if (l.priority != 0) out += fmt::format("priority = {}\n", l.priority);
    if (l.deadline) out += fmt::format("deadline_ns = {}\n", *l.deadline);
    if (l.block_coalesced) out += "block_coalesced = true\n";
    if (!l.after.empty()) {
      out += "after = [";
      for (std::size_t j = 0; j < l.after.size(); ++j)
        out += fmt::format("{}\"{}\"", j ? ", " : "", w.launches[l.after[j]].id);
      out += "]\n";
    }
  }
  return out;
}

}  // namespace gpusched
