#include "core/corun_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <string_view>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/text_file.h"

namespace gpusched {
namespace {

constexpr const char* kColumns[] = {"run",
                                    "repeat",
                                    "victim",
                                    "victim_full",
                                    "victim_blocks_per_sm",
                                    "victim_bytes_per_block",
                                    "partners",
                                    "partners_full",
                                    "partners_blocks_per_sm",
                                    "blocks",
                                    "alone_mean_ns",
                                    "corun_mean_ns",
                                    "exposure",
                                    "exposure_at_start",
                                    "victim_exposure",
                                    "victim_exposure_at_start"};
constexpr int kColumnCount = sizeof(kColumns) / sizeof(kColumns[0]);
// Files written before the victim's own residency was recorded end at exposure_at_start (still read).
constexpr int kColumnCountWithoutOwn = kColumnCount - 2;

std::string header_line(int columns = kColumnCount) {
  std::string h;
  for (int i = 0; i < columns; ++i) {
    if (i) h.push_back(',');
    h.append(kColumns[i]);
  }
  return h;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

class LineParser {
 public:
  LineParser(const std::string& file, int line) : file_(file), line_(line) {}

  long long integer(std::string_view s, const char* field, long long lo, long long hi) const {
    long long v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
      fail(field, expected_found("an integer", quoted(s)));
    if (v < lo || v > hi) fail(field, expected_found(fmt::format("an integer in [{}, {}]", lo, hi), std::string(s)));
    return v;
  }
  double number(std::string_view s, const char* field, double lo) const {
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v))
      fail(field, expected_found("a finite number", quoted(s)));
    if (v < lo) fail(field, expected_found(fmt::format("a number >= {}", lo), std::string(s)));
    return v;
  }
  std::string name(std::string_view s, const char* field) const {
    if (s.empty()) fail(field, expected_found("a name", "nothing"));
    return std::string(s);
  }
  [[noreturn]] void fail(const char* field, const std::string& problem) const {
    throw InputError(SourcePosition{file_, line_, 0}, field, problem);
  }

 private:
  static std::string quoted(std::string_view s) { return "\"" + std::string(s.substr(0, 40)) + "\""; }
  const std::string& file_;
  int line_;
};

// `columns`: the header's (kColumnCount, or kColumnCountWithoutOwn for older files).
CoRunRecord parse_row(std::string_view text, const std::string& file, int line, int columns) {
  const LineParser p(file, line);
  const auto f = split(text, ',');
  if (static_cast<int>(f.size()) != columns)
    p.fail(f.size() < static_cast<std::size_t>(columns) ? kColumns[std::min<std::size_t>(f.size(), columns - 1)]
                                                        : kColumns[columns - 1],
           expected_found(fmt::format("{} comma-separated fields", columns), std::to_string(f.size())));
  CoRunRecord r;
  r.run = p.name(trim(f[0]), "run");
  r.repeat = static_cast<int>(p.integer(trim(f[1]), "repeat", 1, 1'000'000));
  r.victim = p.name(trim(f[2]), "victim");
  r.victim_full = static_cast<int>(p.integer(trim(f[3]), "victim_full", 1, 4096));
  r.victim_blocks_per_sm = static_cast<int>(p.integer(trim(f[4]), "victim_blocks_per_sm", 1, 4096));
  if (r.victim_blocks_per_sm > r.victim_full)
    p.fail("victim_blocks_per_sm", expected_found(fmt::format("at most victim_full ({})", r.victim_full),
                                                  std::to_string(r.victim_blocks_per_sm)));
  r.victim_bytes_per_block = p.number(trim(f[5]), "victim_bytes_per_block", 0);
  const auto names = split(trim(f[6]), ';');
  const auto fulls = split(trim(f[7]), ';');
  const auto counts = split(trim(f[8]), ';');
  const auto exposure = split(trim(f[12]), ';');
  const auto at_start = split(trim(f[13]), ';');
  const std::size_t n = names.size();
  const auto same_count = [&](const std::vector<std::string_view>& v, const char* field) {
    if (v.size() != n)
      p.fail(field,
             expected_found(fmt::format("{} ';'-separated entries (one per partner)", n), std::to_string(v.size())));
  };
  same_count(fulls, "partners_full");
  same_count(counts, "partners_blocks_per_sm");
  same_count(exposure, "exposure");
  same_count(at_start, "exposure_at_start");
  for (std::size_t i = 0; i < n; ++i) {
    CoRunPartner q;
    q.kernel = p.name(trim(names[i]), "partners");
    if (q.kernel == r.victim) p.fail("partners", "a kernel cannot be its own partner (\"" + q.kernel + "\")");
    q.full = static_cast<int>(p.integer(trim(fulls[i]), "partners_full", 1, 4096));
    q.blocks_per_sm = static_cast<int>(p.integer(trim(counts[i]), "partners_blocks_per_sm", 1, 4096));
    q.exposure = p.number(trim(exposure[i]), "exposure", 0);
    q.exposure_at_start = p.number(trim(at_start[i]), "exposure_at_start", 0);
    r.partners.push_back(std::move(q));
  }
  r.blocks = p.integer(trim(f[9]), "blocks", 1, INT64_MAX);
  r.alone_mean_ns = p.number(trim(f[10]), "alone_mean_ns", 0);
  r.corun_mean_ns = p.number(trim(f[11]), "corun_mean_ns", 0);
  if (r.alone_mean_ns <= 0) p.fail("alone_mean_ns", expected_found("a time > 0", std::string(trim(f[10]))));
  if (r.corun_mean_ns <= 0) p.fail("corun_mean_ns", expected_found("a time > 0", std::string(trim(f[11]))));
  if (columns == kColumnCount) {
    // The victim block itself is one of its kernel's blocks on its SM: at least 1 over its life and at its start.
    r.victim_exposure = p.number(trim(f[14]), "victim_exposure", 1);
    r.victim_exposure_at_start = p.number(trim(f[15]), "victim_exposure_at_start", 1);
  }
  return r;
}

std::string format_list(const std::vector<CoRunPartner>& ps, auto get) {
  std::string s;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (i) s.push_back(';');
    s.append(get(ps[i]));
  }
  return s;
}

}  // namespace

std::string corun_file_beside(const std::string& profile_file) {
  if (profile_file.empty()) return "";
  const auto path = std::filesystem::path(profile_file).parent_path() / "coruns.csv";
  return std::filesystem::exists(path) ? path.string() : "";
}

std::string_view suite_kernel_view(std::string_view profile_name) {
  const auto dash = profile_name.rfind("-s");
  if (dash == std::string_view::npos || dash + 2 >= profile_name.size()) return profile_name;
  for (std::size_t i = dash + 2; i < profile_name.size(); ++i)
    if (profile_name[i] < '0' || profile_name[i] > '9') return profile_name;
  return profile_name.substr(0, dash);
}

std::string suite_kernel_of(const std::string& profile_name) {
  return std::string(suite_kernel_view(profile_name));
}

CoRunTable parse_corun_records(const std::string& text, const std::string& name) {
  CoRunTable t;
  int columns = 0;  // the header's; 0 until it is read
  int line = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view l = trim(std::string_view(text).substr(start, end - start));
    start = end + 1;
    ++line;
    if (l.empty()) continue;
    if (l.front() == '#') {
      const auto eq = l.find('=');
      if (!columns && eq != std::string_view::npos)
        t.provenance[std::string(trim(l.substr(1, eq - 1)))] = std::string(trim(l.substr(eq + 1)));
      continue;
    }
    if (!columns) {
      if (l == header_line())
        columns = kColumnCount;
      else if (l == header_line(kColumnCountWithoutOwn))
        columns = kColumnCountWithoutOwn;
      else
        throw InputError(SourcePosition{name, line, 1}, "header",
                         expected_found("\"" + header_line() + "\"", "\"" + std::string(l.substr(0, 80)) + "\""));
      continue;
    }
    t.records.push_back(parse_row(l, name, line, columns));
  }
  if (!columns) throw InputError(SourcePosition{name, line, 0}, "header", expected_found("the header line", "none"));
  return t;
}

CoRunTable read_corun_records(const std::string& path) {
  return parse_corun_records(read_text_file(path), path);
}

void write_corun_records(const std::string& path, const CoRunTable& table) {
  std::string s = "# gpusched co-run records (docs/formats.md, \"Co-run records\")\n";
  for (const auto& [k, v] : table.provenance) s += fmt::format("# {} = {}\n", k, v);
  // A table read from an older file has no victim residencies: it is written in the older form.
  const bool own = std::all_of(table.records.begin(), table.records.end(),
                               [](const CoRunRecord& r) { return r.victim_exposure > 0; });
  s += header_line(own ? kColumnCount : kColumnCountWithoutOwn) + "\n";
  for (const auto& r : table.records) {
    s += fmt::format(
        "{},{},{},{},{},{:.0f},{},{},{},{},{:.1f},{:.1f},{},{}", r.run, r.repeat, r.victim, r.victim_full,
        r.victim_blocks_per_sm, r.victim_bytes_per_block,
        format_list(r.partners, [](const CoRunPartner& q) { return q.kernel; }),
        format_list(r.partners, [](const CoRunPartner& q) { return std::to_string(q.full); }),
        format_list(r.partners, [](const CoRunPartner& q) { return std::to_string(q.blocks_per_sm); }), r.blocks,
        r.alone_mean_ns, r.corun_mean_ns,
        format_list(r.partners, [](const CoRunPartner& q) { return fmt::format("{:.4f}", q.exposure); }),
        format_list(r.partners, [](const CoRunPartner& q) { return fmt::format("{:.4f}", q.exposure_at_start); }));
    s += own ? fmt::format(",{:.4f},{:.4f}\n", r.victim_exposure, r.victim_exposure_at_start) : "\n";
  }
  AtomicFile out(path);
  out.write(s);
  out.commit();
}

}  // namespace gpusched
