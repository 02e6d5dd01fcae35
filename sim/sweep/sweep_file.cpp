#include "sim/sweep/sweep_file.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <filesystem>

#include "core/text_file.h"
#include "core/toml_support.h"

namespace gpusched::sim {
namespace {

// A parameter value given as a TOML scalar, as the text the plug-in's Params reads.
bool scalar_text(const toml::node& n, std::string& out) {
  if (const auto* s = n.as_string()) {
    out = s->get();
    return true;
  }
  if (const auto* i = n.as_integer()) {
    out = std::to_string(i->get());
    return true;
  }
  if (const auto* f = n.as_floating_point()) {
    out = fmt::format("{}", f->get());
    return true;
  }
  if (const auto* b = n.as_boolean()) {
    out = b->get() ? "true" : "false";
    return true;
  }
  return false;
}

SourcePosition position_of(const std::string& file, const toml::node& n) {
  return {file, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
}

std::map<std::string, std::string> scalar_table(const TableReader& r, std::string_view key) {
  std::map<std::string, std::string> out;
  const toml::table* t = r.table_or_null(key);
  if (!t) return out;
  for (const auto& [k, v] : *t) {
    std::string text;
    if (!scalar_text(v, text))
      throw InputError(position_of(r.file(), v), r.field_path(key) + "." + std::string(k.str()),
                       expected_found("a string, number or boolean", describe_node(v)));
    out[std::string(k.str())] = text;
  }
  return out;
}

std::vector<std::uint64_t> seeds_of(const TableReader& r, std::string_view key, std::vector<std::uint64_t> fallback) {
  if (!r.has(key)) return fallback;
  const auto values = r.integer_array(key);
  if (values.empty()) r.fail(key, expected_found("at least one seed", "an empty array"));
  std::vector<std::uint64_t> out;
  for (auto v : values) {
    if (v < 0) r.fail(key, expected_found("seeds >= 0", std::to_string(v)));
    out.push_back(static_cast<std::uint64_t>(v));
  }
  return out;
}

}  // namespace

SweepSpec parse_sweep(const std::string& text, const std::string& name, const std::string& base_dir,
                      Warnings* warnings) {
  const auto doc = TomlDocument::parse_string(text, name);
  TableReader r(doc.root(), name, "", warnings);
  check_format_header(r, "gpusched-sweep", kSweepFormatVersion);
  SweepSpec s;
  s.file = name;
  s.base_dir = base_dir;
  s.name = r.string_or("name", std::filesystem::path(name).stem().string());
  if (r.has("keep_blocks")) {
    const auto* t = r.node_or_null("keep_blocks");
    if (!t->is_boolean()) r.fail("keep_blocks", expected_found("true or false", describe_node(*t)));
    s.keep_blocks = t->as_boolean()->get();
  }
  s.seeds = seeds_of(r, "seeds", {1});
  if (r.has("interference")) {
    s.interference = r.string_array_or_empty("interference");
    if (s.interference.empty()) r.fail("interference", expected_found("at least one model", "an empty array"));
  }
  s.gpus = r.string_array_or_empty("gpus");
  for (const auto& g : s.gpus)
    if (g.empty()) r.fail("gpus", expected_found("GPU presets or GPU files", "an empty string"));
  if (r.has("gpu_counts"))
    for (auto c : r.integer_array("gpu_counts")) {
      if (c < 1 || c > 64) r.fail("gpu_counts", expected_found("counts in [1, 64]", std::to_string(c)));
      s.gpu_counts.push_back(static_cast<int>(c));
    }

  const auto workloads = r.table_array("workloads");
  if (workloads.empty()) throw InputError(r.position(), "workloads", "missing (at least one [[workloads]] entry)");
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    TableReader wr(*workloads[i], name, fmt::format("workloads[{}]", i), warnings);
    SweepWorkloadSource src;
    src.line = wr.position().line;
    if (wr.has("files")) {
      src.files = wr.string_array_or_empty("files");
      if (src.files.empty()) wr.fail("files", expected_found("at least one path or glob", "an empty array"));
      if (wr.has("generator")) wr.fail("generator", "give either files or a generator, not both");
    } else if (wr.has("generator")) {
      src.generator = wr.string("generator");
      if (src.generator == "pairs") {
        src.kernels = wr.string_array_or_empty("kernels");
        if (src.kernels.empty()) wr.fail("kernels", expected_found("kernel profiles (paths or globs)", "none"));
        for (const char* k : {"gpu", "offset_cycles", "offset_fraction", "seed"}) {
          if (!wr.has(k)) continue;
          std::string value;
          const auto* node = wr.node_or_null(k);
          if (!scalar_text(*node, value)) wr.fail(k, expected_found("a string or number", describe_node(*node)));
          src.params[k] = value;
        }
        if (!src.params.count("gpu")) wr.fail_here("field 'gpu': missing (the GPU the pairs run on)");
      } else if (src.generator == "synthetic") {
        src.seeds = seeds_of(wr, "seeds", {1});
        for (const char* k :
             {"kernels", "max_blocks", "min_blocks", "gpu", "streams", "min_block_us", "max_block_us", "block_rsd"}) {
          if (!wr.has(k)) continue;
          std::string value;
          const auto* node = wr.node_or_null(k);
          if (!scalar_text(*node, value)) wr.fail(k, expected_found("a string or number", describe_node(*node)));
          src.params[k] = value;
        }
      } else {
        wr.fail("generator", expected_found("\"pairs\" or \"synthetic\"", fmt::format("\"{}\"", src.generator)));
      }
    } else {
      wr.fail_here("expected 'files' or 'generator'");
    }
    wr.finish();
    s.workloads.push_back(std::move(src));
  }

  const auto policies = r.table_array("policies");
  if (policies.empty()) throw InputError(r.position(), "policies", "missing (at least one [[policies]] entry)");
  for (std::size_t i = 0; i < policies.size(); ++i) {
    TableReader pr(*policies[i], name, fmt::format("policies[{}]", i), warnings);
    SweepPolicy p;
    p.line = pr.position().line;
    p.name = pr.string("name");
    p.set = scalar_table(pr, "set");
    if (const toml::table* g = pr.table_or_null("grid")) {
      for (const auto& [k, v] : *g) {
        const std::string key(k.str());
        const std::string field = pr.field_path("grid") + "." + key;
        const auto* arr = v.as_array();
        if (!arr || arr->empty())
          throw InputError(position_of(name, v), field,
                           expected_found("a non-empty array of values", describe_node(v)));
        for (const auto& e : *arr) {
          std::string value;
          if (!scalar_text(e, value))
            throw InputError(position_of(name, e), field,
                             expected_found("strings, numbers or booleans", describe_node(e)));
          p.grid[key].push_back(value);
        }
        if (p.set.count(key)) throw InputError(position_of(name, v), field, "also given in 'set'");
      }
    }
    if (p.name == "all" && (!p.set.empty() || !p.grid.empty()))
      pr.fail("name", "\"all\" takes no parameters (name the policy to set them)");
    pr.finish();
    s.policies.push_back(std::move(p));
  }
  r.finish();
  return s;
}

SweepSpec read_sweep_file(const std::string& path, Warnings* warnings) {
  const std::string text = read_text_file(path);
  const auto dir = std::filesystem::path(path).parent_path().string();
  return parse_sweep(text, path, dir.empty() ? "." : dir, warnings);
}

}  // namespace gpusched::sim
