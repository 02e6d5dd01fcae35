// Commands over result stores: `merge` (idempotent), `runs` (list), `report` (grouped statistics), `export`
// (one run's Schedule as Perfetto JSON or CSV) and `compare` (one run against another of the same workload).
// They read through core/store only.
#include <fmt/format.h>

#include <cmath>

#include "core/name_list.h"
#include "core/store/report.h"
#include "core/store/run_comparison.h"
#include "core/store/store.h"
#include "sim/cli/commands.h"
#include "sim/timeline.h"

namespace gpusched::cli {
namespace {

struct FilterArgs {
  store::RunFilter filter;
  void add(CLI::App* cmd) {
    cmd->add_option("--mode", filter.mode, "Only runs of this mode (sim or live)");
    cmd->add_option("--workload", filter.workload, "Only runs of this workload");
    cmd->add_option("--policy", filter.policy, "Only runs of this policy");
    cmd->add_option("--gpu", filter.gpu, "Only runs on this GPU");
    cmd->add_option("--interference", filter.interference, "Only runs with this interference model");
    cmd->add_option("--sweep", filter.sweep, "Only runs of this sweep");
  }
};

void compare(const std::string& db, std::int64_t run, std::int64_t reference) {
  const auto store = store::Store::open(db, store::Store::Mode::ReadOnly);
  const auto a = store.load_run(run), b = store.load_run(reference);
  const auto c = store::compare_runs(a, b);
  fmt::print("run {} ({} {}, {}) against run {} ({} {}, {}), workload {}\n", run, a.info.mode, a.info.policy,
             a.info.interference, reference, b.info.mode, b.info.policy, b.info.interference, a.info.workload);
  fmt::print("{}", store::format_comparison(a, b, c));
}

std::string stat_cell(const store::Stats& s) {
  return fmt::format("{:.3f} / {} ± {:.3f}", s.mean, s.geomean_defined ? fmt::format("{:.3f}", s.geomean) : "-",
                     s.stddev);
}

void report(const std::string& db, const FilterArgs& f, const std::string& group_by, const std::string& format) {
  const auto store = store::Store::open(db, store::Store::Mode::ReadOnly);
  const auto runs = store.list_runs(f.filter);
  const auto fields = split_name_list(group_by);
  const auto groups = store::group_runs(runs, fields);
  const auto& metrics = store::report_metrics();
  if (format == "csv") {
    std::string header;
    for (const auto& field : fields) header += field + ",";
    header += "runs";
    for (const auto& m : metrics)
      for (const char* s : {"mean", "geomean", "stddev", "min", "median", "max"})
        header += fmt::format(",{}_{}", m.name, s);
    fmt::print("{}\n", header);
    for (const auto& g : groups) {
      std::string line;
      for (const auto& k : g.key) line += (k.find_first_of(",\"") == std::string::npos ? k : "\"" + k + "\"") + ",";
      line += std::to_string(g.runs.size());
      for (const auto& s : g.stats)
        line +=
            fmt::format(",{:.6f},{},{:.6f},{:.6f},{:.6f},{:.6f}", s.mean,
                        s.geomean_defined ? fmt::format("{:.6f}", s.geomean) : "", s.stddev, s.min, s.median, s.max);
      fmt::print("{}\n", line);
    }
    return;
  }
  const bool md = format == "markdown";
  std::vector<std::string> head = fields;
  if (head.empty()) head.push_back("all runs");
  head.push_back("runs");
  for (const auto& m : metrics) head.push_back(std::string(m.name) + " mean / gmean ± sd");
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : groups) {
    std::vector<std::string> row = g.key;
    if (row.empty()) row.push_back("");
    row.push_back(std::to_string(g.runs.size()));
    for (const auto& s : g.stats) row.push_back(stat_cell(s));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  const auto print_row = [&](const std::vector<std::string>& r) {
    std::string line = md ? "|" : "";
    for (std::size_t c = 0; c < r.size(); ++c)
      line += md ? fmt::format(" {} |", r[c]) : fmt::format("{:<{}}{}", r[c], width[c], c + 1 < r.size() ? "  " : "");
    fmt::print("{}\n", line);
  };
  if (!md) fmt::print("{} runs in {}\n", runs.size(), db);
  print_row(head);
  if (md) {
    std::string sep = "|";
    for (std::size_t c = 0; c < head.size(); ++c)
      sep += c < fields.size() || (fields.empty() && c == 0) ? "---|" : "---:|";
    fmt::print("{}\n", sep);
  }
  for (const auto& r : rows) print_row(r);
}

void list(const std::string& db, const FilterArgs& f) {
  const auto store = store::Store::open(db, store::Store::Mode::ReadOnly);
  fmt::print("{:>5}  {:<4}  {:<24}  {:<14}  {:<10}  {:<12}  {:>5}  {:>7}  {:>7}  {:>8}  {}\n", "id", "mode", "workload",
             "policy", "gpu", "interference", "seed", "STP", "ANTT", "mk/bound", "blocks");
  for (const auto& r : store.list_runs(f.filter)) {
    const auto& i = r.info;
    fmt::print("{:>5}  {:<4}  {:<24}  {:<14}  {:<10}  {:<12}  {:>5}  {:>7.3f}  {:>7.3f}  {:>8.3f}  {}\n", i.id, i.mode,
               i.workload, i.policy, i.gpu, i.interference, i.seed, r.metrics.stp, r.metrics.antt,
               r.metrics.makespan_over_bound, i.blocks_kept ? std::to_string(i.piece_count) : "-");
  }
}

// The workload labels a stored run's Schedule needs for export: launch ids and kernel names.
Workload label_workload(const store::RunRecord& run) {
  std::vector<std::shared_ptr<const KernelProfile>> kernels;
  std::vector<Launch> launches;
  for (const auto& l : run.launches) {
    auto k = std::make_shared<KernelProfile>();
    k->name = l.kernel;
    Launch launch;
    launch.id = l.id;
    launch.kernel = kernels.size();
    launch.tenant = l.tenant;
    kernels.push_back(std::move(k));
    launches.push_back(std::move(launch));
  }
  return make_workload(run.info.workload, std::move(kernels), std::move(launches));
}

}  // namespace

void add_store_commands(CLI::App& app) {
  {
    auto* cmd = app.add_subcommand("merge", "Merge result stores into OUT (runs already in OUT are skipped)");
    auto out = std::make_shared<std::string>();
    auto inputs = std::make_shared<std::vector<std::string>>();
    cmd->add_option("out", *out, "Store to merge into (created if missing)")->required();
    cmd->add_option("inputs", *inputs, "Stores to merge from")->required()->expected(1, 1 << 20);
    cmd->callback([=] {
      auto store = store::Store::open(*out);
      for (const auto& in : *inputs) {
        const auto s = store.merge_from(in);
        fmt::print("{}: {} runs added, {} already present, {} validation links added\n", in, s.runs_added,
                   s.runs_skipped, s.validations_added);
      }
      fmt::print("{}: {} runs\n", *out, store.run_count());
    });
  }
  {
    auto* cmd = app.add_subcommand("runs", "List the runs of a result store");
    auto db = std::make_shared<std::string>();
    auto f = std::make_shared<FilterArgs>();
    cmd->add_option("db", *db, "Result store")->required();
    f->add(cmd);
    cmd->callback([=] { list(*db, *f); });
  }
  {
    auto* cmd =
        app.add_subcommand("report", "Per-group mean, geometric mean and spread of STP, ANTT, StrictF, makespan/bound");
    auto db = std::make_shared<std::string>();
    auto f = std::make_shared<FilterArgs>();
    auto group_by = std::make_shared<std::string>("policy");
    auto format = std::make_shared<std::string>("table");
    cmd->add_option("db", *db, "Result store")->required();
    std::string fields;
    for (const auto& field : store::group_fields()) fields += (fields.empty() ? "" : ", ") + field;
    cmd->add_option("--group-by", *group_by, "Comma-separated fields (" + fields + "); '' for one group");
    cmd->add_option("--format", *format, "Output: table, markdown or csv")
        ->check(CLI::IsMember({"table", "markdown", "csv"}));
    f->add(cmd);
    cmd->callback([=] { report(*db, *f, *group_by, *format); });
  }
  {
    auto* cmd = app.add_subcommand(
        "compare",
        "One stored run against another of the same workload: turnaround, makespan, STP, ANTT errors "
        "and block-time distributions");
    auto db = std::make_shared<std::string>();
    auto run = std::make_shared<std::int64_t>(0);
    auto reference = std::make_shared<std::int64_t>(0);
    cmd->add_option("db", *db, "Result store")->required();
    cmd->add_option("run", *run, "Run id (e.g. a prediction)")->required();
    cmd->add_option("reference", *reference, "Run id errors are relative to (e.g. the live measurement)")->required();
    cmd->callback([=] { compare(*db, *run, *reference); });
  }
  {
    auto* cmd = app.add_subcommand("export", "Write one stored run's Schedule as Perfetto JSON or CSV");
    auto db = std::make_shared<std::string>();
    auto run = std::make_shared<std::int64_t>(0);
    auto perfetto = std::make_shared<std::string>();
    auto csv = std::make_shared<std::string>();
    cmd->add_option("db", *db, "Result store")->required();
    cmd->add_option("--run", *run, "Run id (see 'gpusched runs')")->required();
    auto* p = cmd->add_option("--perfetto", *perfetto, "Perfetto / Chrome trace JSON file");
    auto* c = cmd->add_option("--csv", *csv, "Schedule CSV file");
    p->excludes(c);
    cmd->callback([=] {
      if (perfetto->empty() && csv->empty()) throw std::invalid_argument("export: give --perfetto FILE or --csv FILE");
      const auto store = store::Store::open(*db, store::Store::Mode::ReadOnly);
      const auto rec = store.load_run(*run);
      if (!rec.info.blocks_kept)
        throw std::invalid_argument(
            fmt::format("{}: run {} was stored without its blocks (metrics only); run it "
                        "again with 'gpusched sim --db' or keep_blocks = true in the sweep",
                        *db, *run));
      const auto w = label_workload(rec);
      GpuSpec gpu;
      gpu.name = rec.info.gpu;
      if (!perfetto->empty()) sim::write_perfetto_json(*perfetto, rec.schedule, w, gpu);
      if (!csv->empty()) sim::write_schedule_csv(*csv, rec.schedule, w);
      fmt::print("run {}: {} pieces written to {}\n", *run, rec.schedule.pieces.size(),
                 perfetto->empty() ? *csv : *perfetto);
    });
  }
}

}  // namespace gpusched::cli
