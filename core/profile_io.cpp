#include "core/profile_io.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/atomic_file.h"
#include "core/block_records_csv.h"
#include "core/slot_occupancy.h"
#include "core/text_file.h"
#include "core/toml_support.h"

namespace gpusched {
namespace fs = std::filesystem;
namespace {

std::array<int, 3> read_dims(const TableReader& r, std::string_view key, std::int64_t max_each) {
  const auto v = r.integer_array(key);
  if (v.empty() || v.size() > 3)
    r.fail(key, expected_found("an array of 1 to 3 positive integers", fmt::format("{} elements", v.size())));
  std::array<int, 3> out{1, 1, 1};
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 1 || v[i] > max_each)
      throw InputError(r.position_of(key), fmt::format("{}[{}]", r.field_path(key), i),
                       expected_found(fmt::format("an integer in [1, {}]", max_each), fmt::format("{}", v[i])));
    out[i] = static_cast<int>(v[i]);
  }
  return out;
}

}  // namespace

const GpuSpec* profile_gpu(const KernelProfile& p) {
  if (p.gpu.empty()) return nullptr;
  return find_gpu_preset(p.gpu);
}

KernelProfile parse_kernel_profile(const std::string& text, const std::string& name, const std::string& base_dir,
                                   Warnings* warnings, ProfileReadOptions options) {
  const auto doc = TomlDocument::parse_string(text, name);
  TableReader r(doc.root(), name, "", warnings);
  check_format_header(r, "gpusched-kernel", kKernelFormatVersion);
  KernelProfile p;
  p.file = name;
  p.name = r.string("name");
  if (p.name.empty()) r.fail("name", expected_found("a non-empty name", "\"\""));
  p.gpu = r.string_or("gpu", "");
  const GpuSpec* gpu = nullptr;
  if (!p.gpu.empty()) {
    gpu = find_gpu_preset(p.gpu);
    if (!gpu)
      r.fail("gpu", expected_found(fmt::format("a GPU preset ({})", gpu_preset_names()), fmt::format("\"{}\"", p.gpu)));
  }
  p.grid = read_dims(r, "grid", INT32_MAX);
  p.block = read_dims(r, "block", 1024);
  if (p.threads_per_block() > 1024)
    r.fail("block", expected_found("at most 1024 threads per block", fmt::format("{}", p.threads_per_block())));
  if (p.block_count() > (std::int64_t{1} << 31))
    r.fail("grid", expected_found("at most 2^31 blocks", fmt::format("{}", p.block_count())));
  p.registers_per_thread = static_cast<int>(r.integer_in("registers_per_thread", 0, 255));
  p.shared_memory_per_block = static_cast<int>(r.integer_in("shared_memory_per_block", 0, 1 << 24, 0));
  if (r.has("instructions_per_block")) {
    const double v = r.number("instructions_per_block");
    if (!(v >= 0)) r.fail("instructions_per_block", expected_found("a non-negative number", fmt::format("{}", v)));
    p.instructions_per_block = v;
  }
  if (r.has("memory_instructions_per_block")) {
    const double v = r.number("memory_instructions_per_block");
    if (!(v >= 0))
      r.fail("memory_instructions_per_block", expected_found("a non-negative number", fmt::format("{}", v)));
    p.memory_instructions_per_block = v;
  }
  if (r.has("dram_bytes_per_block")) {
    const double v = r.number("dram_bytes_per_block");
    if (!(v >= 0)) r.fail("dram_bytes_per_block", expected_found("a non-negative number", fmt::format("{}", v)));
    p.dram_bytes_per_block = v;
  }
  if (r.has("uncoalesced_fraction")) {
    const double v = r.number("uncoalesced_fraction");
    if (!(v >= 0 && v <= 1))
      r.fail("uncoalesced_fraction", expected_found("a fraction in [0, 1]", fmt::format("{}", v)));
    p.uncoalesced_fraction = v;
  }
  if (r.has("gpu_wide_share")) {
    const double v = r.number("gpu_wide_share");
    if (!(v >= 0 && v <= 1)) r.fail("gpu_wide_share", expected_found("a fraction in [0, 1]", fmt::format("{}", v)));
    p.gpu_wide_share = v;
  }
  const std::int64_t default_context =
      default_context_bytes(p.registers_per_thread, p.threads_per_block(), p.shared_memory_per_block);
  p.context_bytes_per_block = r.integer_in("context_bytes_per_block", 0, INT64_MAX, default_context);
  p.memory_footprint_bytes = r.integer_in("memory_footprint_bytes", 0, INT64_MAX, 0);
  p.dirty_bytes = r.integer_in("dirty_bytes", 0, INT64_MAX, p.memory_footprint_bytes);
  if (p.dirty_bytes > p.memory_footprint_bytes)
    r.fail("dirty_bytes", expected_found(fmt::format("at most memory_footprint_bytes ({})", p.memory_footprint_bytes),
                                         fmt::format("{}", p.dirty_bytes)));
  p.idempotent_until = r.number_or("idempotent_until", 1.0);
  p.stoppable = r.boolean_or("stoppable", true);
  if (!(p.idempotent_until >= 0.0 && p.idempotent_until <= 1.0))
    r.fail("idempotent_until", expected_found("a fraction in [0, 1]", fmt::format("{}", p.idempotent_until)));
  for (const char* key : {"pur", "mur"}) {
    if (!r.has(key)) continue;
    const double v = r.number(key);
    if (!(v >= 0.0 && v <= 8.0)) r.fail(key, expected_found("a ratio in [0, 8]", fmt::format("{}", v)));
    (std::string_view(key) == "pur" ? p.pur : p.mur) = v;
  }
  const std::string unit = r.string_or("time_unit", "ns");
  double clock_mhz = 0.0;
  if (unit == "cycles") {
    clock_mhz = r.number("clock_mhz");
    if (!(clock_mhz > 0.0))
      r.fail("clock_mhz", expected_found("a positive clock in MHz", fmt::format("{}", clock_mhz)));
  } else if (unit != "ns") {
    r.fail("time_unit", expected_found("\"ns\" or \"cycles\"", fmt::format("\"{}\"", unit)));
  } else if (r.has("clock_mhz")) {
    (void)r.number("clock_mhz");  // allowed, informative
  }

  if (const toml::table* prov = r.table_or_null("provenance")) {
    TableReader pr(*prov, name, "provenance", warnings);
    for (const auto& [key, node] : *prov) {
      const std::string k(key.str());
      if (const auto* str = node.as_string())
        p.provenance[k] = str->get();
      else if (const auto* i = node.as_integer())
        p.provenance[k] = std::to_string(i->get());
      else
        pr.fail(k, expected_found("a string or an integer", describe_node(node)));
      (void)pr.has(k);
    }
  }
  for (const auto& [table, weights] :
       {std::pair{"equivalent_blocks", &p.equivalent_blocks}, std::pair{"gpu_wide_blocks", &p.gpu_wide_blocks}}) {
    const toml::table* eq = r.table_or_null(table);
    if (!eq) continue;
    TableReader er(*eq, name, table, warnings);
    for (const auto& [key, node] : *eq) {
      const std::string k(key.str());
      const double v = er.number(k);
      if (!(v >= 0.0 && v <= 64.0)) er.fail(k, expected_found("a weight in [0, 64]", fmt::format("{}", v)));
      (*weights)[k] = v;
    }
    er.finish();
  }
  const auto sets = r.table_array("records");
  std::int64_t set_index = 0;
  for (const auto* t : sets) {
    TableReader sr(*t, name, fmt::format("records[{}]", set_index++), warnings);
    RecordSet set;
    set.residency = static_cast<int>(sr.integer_in("residency", 1, 1024));
    if (gpu) {
      const auto occ = compute_occupancy(*gpu, p.shape());
      if (occ.blocks_per_sm == 0)
        r.fail_here(fmt::format("kernel '{}' cannot run on {}: {}", p.name, gpu->name, occ.reason));
      if (set.residency > occ.blocks_per_sm)
        sr.fail("residency",
                expected_found(fmt::format("at most {} (the occupancy limit on {})", occ.blocks_per_sm, gpu->name),
                               fmt::format("{}", set.residency)));
    }
    for (const auto& other : p.record_sets)
      if (other.residency == set.residency)
        sr.fail("residency", fmt::format("a second record set at residency {}", set.residency));
    const std::string rel = sr.string("file");
    const fs::path file = fs::path(base_dir) / rel;
    set.file = file.lexically_normal().string();
    sr.finish();
    BlockRecordLimits lim;
    lim.block_count = p.block_count();
    lim.sm_count = gpu ? gpu->sm_count : 0;
    lim.cycles_clock_mhz = clock_mhz;
    BlockRecordReader reader(set.file, lim);
    BlockRecord rec;
    std::vector<bool> seen(static_cast<std::size_t>(p.block_count()), false);
    std::vector<BlockRecord> records;
    while (reader.next(rec)) {
      const auto b = static_cast<std::size_t>(rec.block);
      if (seen[b])
        throw InputError(SourcePosition{set.file, static_cast<int>(reader.line()), 1}, "block",
                         fmt::format("block {} is recorded twice", rec.block));
      seen[b] = true;
      if (options.load_records) records.push_back(rec);
    }
    if (options.load_records) {
      // Both times of every recorded block: the one the replay uses, and the other beside it.
      const auto slots = slot_occupancy(records, set.residency);
      const bool raw = options.block_time == BlockTime::Raw;
      set.duration_by_block.assign(static_cast<std::size_t>(p.block_count()), -1);
      set.alternate_by_block.assign(static_cast<std::size_t>(p.block_count()), -1);
      for (std::size_t i = 0; i < records.size(); ++i) {
        const auto b = static_cast<std::size_t>(records[i].block);
        const TimeNs stamps = records[i].end - records[i].start;
        set.duration_by_block[b] = raw ? stamps : slots[i];
        set.alternate_by_block[b] = raw ? slots[i] : stamps;
      }
      set.block_time = options.block_time;
      if (!records.empty()) {
        TimeNs first = records.front().start, last = records.front().end;
        for (const auto& one : records) {
          first = std::min(first, one.start);
          last = std::max(last, one.end);
        }
        set.span = last - first;
      }
    }
    finalize_record_set(set);
    if (options.load_records && set.recorded == 0)
      throw InputError(SourcePosition{set.file, static_cast<int>(reader.line()), 0}, "records",
                       "expected at least one block record, found none");
    p.record_sets.push_back(std::move(set));
  }
  std::sort(p.record_sets.begin(), p.record_sets.end(),
            [](const RecordSet& a, const RecordSet& b) { return a.residency < b.residency; });
  r.finish();
  return p;
}

KernelProfile read_kernel_profile(const std::string& path, Warnings* warnings, ProfileReadOptions options) {
  return parse_kernel_profile(read_text_file(path), path, fs::path(path).parent_path().string(), warnings, options);
}

void write_kernel_profile(const std::string& dir, const KernelProfile& p,
                          const std::vector<std::vector<BlockRecord>>& records) {
  fs::create_directories(dir);
  std::string out;
  auto dims = [](const std::array<int, 3>& d) {
    if (d[1] == 1 && d[2] == 1) return fmt::format("[{}]", d[0]);
    return fmt::format("[{}, {}, {}]", d[0], d[1], d[2]);
  };
  out += "format = \"gpusched-kernel\"\nversion = 1\n";
  out += fmt::format("name = \"{}\"\n", p.name);
  if (!p.gpu.empty()) out += fmt::format("gpu = \"{}\"\n", p.gpu);
  out += fmt::format("grid = {}\nblock = {}\n", dims(p.grid), dims(p.block));
  out += fmt::format("registers_per_thread = {}\nshared_memory_per_block = {}\n", p.registers_per_thread,
                     p.shared_memory_per_block);
  if (p.instructions_per_block) out += fmt::format("instructions_per_block = {}\n", *p.instructions_per_block);
  if (p.memory_instructions_per_block)
    out += fmt::format("memory_instructions_per_block = {}\n", *p.memory_instructions_per_block);
  if (p.dram_bytes_per_block) out += fmt::format("dram_bytes_per_block = {}\n", *p.dram_bytes_per_block);
  if (p.uncoalesced_fraction) out += fmt::format("uncoalesced_fraction = {}\n", *p.uncoalesced_fraction);
  if (p.gpu_wide_share) out += fmt::format("gpu_wide_share = {}\n", *p.gpu_wide_share);
  out += fmt::format("context_bytes_per_block = {}\n", p.context_bytes_per_block);
  if (p.memory_footprint_bytes > 0) out += fmt::format("memory_footprint_bytes = {}\n", p.memory_footprint_bytes);
  if (p.dirty_bytes != p.memory_footprint_bytes) out += fmt::format("dirty_bytes = {}\n", p.dirty_bytes);
  out += fmt::format("idempotent_until = {}\n", p.idempotent_until);
  if (!p.stoppable) out += "stoppable = false\n";
  if (p.pur) out += fmt::format("pur = {}\n", *p.pur);
  if (p.mur) out += fmt::format("mur = {}\n", *p.mur);
  out += "time_unit = \"ns\"\n";
  if (!p.provenance.empty()) {
    out += "\n[provenance]\n";
    for (const auto& [k, v] : p.provenance) {
      std::string escaped;
      for (char c : v) {
        if (c == '"' || c == '\\') escaped += '\\';
        // One line of ASCII: the readers refuse non-ASCII outside comments (toml++ 3.3 misreads it).
        const auto u = static_cast<unsigned char>(c);
        escaped += (c == '\n' || c == '\r') ? ' ' : (u >= 0x80 || u < 0x20 ? '?' : c);
      }
      out += fmt::format("{} = \"{}\"\n", k, escaped);
    }
  }
  if (!p.equivalent_blocks.empty()) {
    out += "\n[equivalent_blocks]\n";
    for (const auto& [k, v] : p.equivalent_blocks) out += fmt::format("\"{}\" = {}\n", k, v);
  }
  if (!p.gpu_wide_blocks.empty()) {
    out += "\n[gpu_wide_blocks]\n";
    for (const auto& [k, v] : p.gpu_wide_blocks) out += fmt::format("\"{}\" = {}\n", k, v);
  }
  // Every file is written under a temporary name first and renamed into place only when all are complete,
  // the attribute file last: an error leaves none of them, and a reader never finds the profile without its
  // record files.
  std::vector<std::unique_ptr<AtomicFile>> csvs;
  for (std::size_t i = 0; i < p.record_sets.size(); ++i) {
    const auto file = fmt::format("{}.r{}.csv", p.name, p.record_sets[i].residency);
    out += fmt::format("\n[[records]]\nresidency = {}\nfile = \"{}\"\n", p.record_sets[i].residency, file);
    csvs.push_back(std::make_unique<AtomicFile>((fs::path(dir) / file).string()));
    write_block_records(*csvs.back(), records.at(i));
  }
  AtomicFile f((fs::path(dir) / (p.name + ".kernel.toml")).string());
  f.write(out);
  for (auto& c : csvs) c->commit();
  f.commit();
}

}  // namespace gpusched
