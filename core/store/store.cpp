#include "core/store/store.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "core/content_hash.h"
#include "core/store/schema.h"
#include "core/store/sqlite.h"

namespace gpusched::store {

struct Store::Impl {
  Database db;
  bool read_only = false;
  bool has_phases = true;  // false for a version 1-2 store opened read-only
};

namespace {

std::string placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? ", ?" : "?";
  return s;
}

std::int64_t pragma_int(const Database& db, const char* name) {
  Statement s(db, fmt::format("PRAGMA {}", name));
  return s.step() ? s.int64(0) : 0;
}

// Classifies the file before anything is written to it.
bool has_table(const Database& db, const char* schema_name, const char* table) {
  Statement s(db, fmt::format("SELECT count(*) FROM {}.sqlite_master WHERE type = 'table' AND name = ?", schema_name));
  s.bind(1, table);
  return s.step() && s.int64(0) == 1;
}

// Classifies the file before anything is written to it; returns its schema version after any upgrade.
std::int64_t check_format(Database& db, const std::string& path, bool read_only) {
  std::int64_t app_id = 0, version = 0, tables = 0;
  try {
    app_id = pragma_int(db, "application_id");
    version = pragma_int(db, "user_version");
    Statement s(db, "SELECT count(*) FROM sqlite_master");
    if (s.step()) tables = s.int64(0);
  } catch (const SqliteError& e) {
    if ((e.code() & 0xff) == SQLITE_NOTADB || (e.code() & 0xff) == SQLITE_CORRUPT)
      throw StoreFormatError(path, "not a gpusched result store: the file is not an SQLite database, or it is corrupt");
    throw;
  }
  if (app_id == 0 && version == 0 && tables == 0) {
    if (read_only) throw StoreFormatError(path, "not a gpusched result store: the database is empty");
    Transaction t(db);
    db.exec(schema::kCreate);
    db.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}", kApplicationId, kSchemaVersion));
    t.commit();
    return kSchemaVersion;
  }
  if (app_id != kApplicationId)
    throw StoreFormatError(path, fmt::format("not a gpusched result store: an SQLite database of another program "
                                             "(application_id {:#x}, expected {:#x})",
                                             static_cast<std::uint32_t>(app_id), kApplicationId));
  if (version > kSchemaVersion)
    throw StoreFormatError(path, fmt::format("written by a newer gpusched (store schema version {}; this build reads "
                                             "versions up to {}): use a newer gpusched",
                                             version, kSchemaVersion));
  if (version < 1) throw StoreFormatError(path, fmt::format("unknown store schema version {}", version));
  for (const char* table : schema::kTables) {
    Statement s(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
    s.bind(1, table);
    if (!s.step() || s.int64(0) != 1)
      throw StoreFormatError(path, fmt::format("damaged gpusched result store: table '{}' is missing", table));
  }
  if (version >= 3 && !has_table(db, "main", "phases"))
    throw StoreFormatError(path, "damaged gpusched result store: table 'phases' is missing");
  if (version < kSchemaVersion && !read_only) {  // readers take older stores as they are; a writer upgrades
    Transaction t(db);
    if (version < 2) db.exec(schema::kMigrate1To2);
    if (version < 3) db.exec(schema::kMigrate2To3);
    db.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion));
    t.commit();
    version = kSchemaVersion;
  }
  return version;
}

void bind_run(Statement& s, const RunInfo& r) {
  int i = 0;
  s.bind(++i, r.key);
  s.bind(++i, r.mode);
  s.bind(++i, r.workload);
  s.bind(++i, r.workload_file);
  s.bind(++i, r.workload_hash);
  s.bind(++i, r.policy);
  s.bind(++i, r.policy_params);
  s.bind(++i, r.gpu);
  s.bind(++i, r.gpu_hash);
  s.bind(++i, r.gpu_count);
  s.bind(++i, r.interference);
  s.bind(++i, static_cast<std::int64_t>(r.seed));
  s.bind(++i, r.sweep);
  s.bind(++i, r.version);
  s.bind(++i, r.git_commit);
  s.bind(++i, r.host);
  s.bind(++i, r.started_at);
  s.bind(++i, r.finished_at);
  s.bind(++i, r.events);
  s.bind(++i, r.blocks_kept ? 1 : 0);
  s.bind(++i, r.launch_count);
  s.bind(++i, r.piece_count);
}

RunInfo read_run(const Statement& s, int c) {  // c: column of `id`, followed by kRunColumns
  RunInfo r;
  r.id = s.int64(c++);
  r.key = s.text(c++);
  r.mode = s.text(c++);
  r.workload = s.text(c++);
  r.workload_file = s.text(c++);
  r.workload_hash = s.text(c++);
  r.policy = s.text(c++);
  r.policy_params = s.text(c++);
  r.gpu = s.text(c++);
  r.gpu_hash = s.text(c++);
  r.gpu_count = static_cast<int>(s.int64(c++));
  r.interference = s.text(c++);
  r.seed = static_cast<std::uint64_t>(s.int64(c++));
  r.sweep = s.text(c++);
  r.version = s.text(c++);
  r.git_commit = s.text(c++);
  r.host = s.text(c++);
  r.started_at = s.text(c++);
  r.finished_at = s.text(c++);
  r.events = s.int64(c++);
  r.blocks_kept = s.int64(c++) != 0;
  r.launch_count = static_cast<int>(s.int64(c++));
  r.piece_count = s.int64(c++);
  return r;
}

void bind_metrics(Statement& s, int i, const Metrics& m) {
  s.bind(++i, m.stp);
  s.bind(++i, m.antt);
  s.bind(++i, m.strict_f);
  s.bind(++i, m.makespan);
  s.bind(++i, m.bound_area);
  s.bind(++i, m.bound_longest);
  s.bind(++i, m.bound);
  s.bind(++i, m.makespan_over_bound);
  s.bind(++i, m.sm_utilization);
  s.bind(++i, m.warp_occupancy);
  s.bind(++i, m.deadline_misses);
  s.bind(++i, m.preemptions);
  s.bind(++i, m.wasted_work);
  s.bind(++i, m.mean_preemption_latency);
  s.bind(++i, m.max_preemption_latency);
}

Metrics read_metrics(const Statement& s, int c) {
  Metrics m;
  m.stp = s.real(c++);
  m.antt = s.real(c++);
  m.strict_f = s.real(c++);
  m.makespan = s.int64(c++);
  m.bound_area = s.int64(c++);
  m.bound_longest = s.int64(c++);
  m.bound = s.int64(c++);
  m.makespan_over_bound = s.real(c++);
  m.sm_utilization = s.real(c++);
  m.warp_occupancy = s.real(c++);
  m.deadline_misses = static_cast<int>(s.int64(c++));
  m.preemptions = s.int64(c++);
  m.wasted_work = s.int64(c++);
  m.mean_preemption_latency = s.int64(c++);
  m.max_preemption_latency = s.int64(c++);
  return m;
}

std::string summary_select() {
  return fmt::format("SELECT runs.id, {}, {} FROM runs JOIN metrics ON metrics.run_id = runs.id", schema::kRunColumns,
                     schema::kMetricColumns);
}

constexpr int kProgressEvery = 4096;

}  // namespace

std::string make_run_key(const RunInfo& r, const std::string& unique) {
  ContentHasher h;
  for (const std::string* s : {&r.mode, &r.workload_hash, &r.policy, &r.policy_params, &r.gpu_hash, &r.interference})
    h.add(*s);
  h.add(r.gpu_count);
  h.add(static_cast<std::uint64_t>(r.seed));
  h.add(unique);
  return r.mode + "-" + h.hex();
}

RunResult run_result_of(RunRecord&& rec) {
  RunResult r;
  r.metrics = rec.metrics;
  for (const auto& l : rec.launches) r.launches.push_back(l.outcome);
  r.schedule = std::move(rec.schedule);
  return r;
}

RunRecord make_run_record(RunInfo info, const Workload& w, RunResult&& result, bool keep_blocks) {
  RunRecord rec;
  rec.info = std::move(info);
  rec.info.launch_count = static_cast<int>(w.launches.size());
  rec.info.piece_count =
      result.schedule.pieces.empty() ? rec.info.piece_count : static_cast<std::int64_t>(result.schedule.pieces.size());
  rec.info.events = result.events;
  rec.info.blocks_kept = keep_blocks;
  rec.metrics = result.metrics;
  rec.launches.reserve(result.launches.size());
  for (std::size_t i = 0; i < result.launches.size() && i < w.launches.size(); ++i) {
    LaunchRow row;
    row.index = static_cast<int>(i);
    row.id = w.launches[i].id;
    row.kernel = w.kernel_of(i).name;
    row.tenant = w.launches[i].tenant;
    row.outcome = result.launches[i];
    rec.launches.push_back(std::move(row));
  }
  if (keep_blocks) rec.schedule = std::move(result.schedule);
  return rec;
}

std::string utc_now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

const std::string& Store::path() const {
  return impl_->db.path();
}

void Store::set_busy_timeout(int milliseconds) {
  impl_->db.exec(fmt::format("PRAGMA busy_timeout = {}", std::max(0, milliseconds)));
}

Store Store::open(const std::string& path, Mode mode) {
  namespace fs = std::filesystem;
  const bool read_only = mode == Mode::ReadOnly;
  std::error_code ec;
  if (read_only && !fs::exists(path, ec)) throw StoreFormatError(path, "no such result store");
  if (fs::exists(path, ec) && fs::is_directory(path, ec))
    throw StoreFormatError(path, "is a directory, not a result store");
  auto impl = std::make_unique<Impl>();
  try {
    impl->db = Database(path, read_only, !read_only);
  } catch (const SqliteError& e) {
    throw StoreFormatError(path, fmt::format("cannot open the result store: {}", e.what()));
  }
  impl->read_only = read_only;
  impl->db.exec("PRAGMA busy_timeout = 30000");
  impl->has_phases = check_format(impl->db, path, read_only) >= 3;
  impl->db.exec("PRAGMA foreign_keys = ON");
  if (!read_only) {
    // WAL lets readers (the GUI, a report) work while a sweep writes; NORMAL sync is durable across
    // process crashes, which is what "never half a run" needs (a power cut may lose the last commits).
    impl->db.exec("PRAGMA journal_mode = WAL");
    impl->db.exec("PRAGMA synchronous = NORMAL");
  }
  return Store(std::move(impl));
}

std::optional<std::int64_t> Store::find_run(const std::string& key) const {
  Statement s(impl_->db, "SELECT id FROM runs WHERE key = ?");
  s.bind(1, key);
  if (s.step()) return s.int64(0);
  return std::nullopt;
}

std::int64_t Store::write_run(const RunRecord& run, bool* inserted, const std::function<void(std::int64_t)>& progress,
                              std::int64_t predicted_run) {
  if (run.info.key.empty()) throw std::invalid_argument("write_run: the run has no key");
  if (run.info.mode != "sim" && run.info.mode != "live")
    throw std::invalid_argument(fmt::format("write_run: mode must be sim or live, found '{}'", run.info.mode));
  auto& db = impl_->db;
  Transaction t(db);
  if (auto existing = find_run(run.info.key)) {
    if (inserted) *inserted = false;
    return *existing;
  }
  {
    Statement s(db, fmt::format("INSERT INTO runs ({}) VALUES ({})", schema::kRunColumns,
                                placeholders(schema::kRunColumnCount)));
    bind_run(s, run.info);
    s.run();
  }
  const std::int64_t id = db.last_insert_rowid();
  {
    Statement s(db, fmt::format("INSERT INTO metrics (run_id, {}) VALUES ({})", schema::kMetricColumns,
                                placeholders(schema::kMetricColumnCount + 1)));
    s.bind(1, id);
    bind_metrics(s, 1, run.metrics);
    s.run();
  }
  {
    Statement s(db, fmt::format("INSERT INTO launches (run_id, {}) VALUES ({})", schema::kLaunchColumns,
                                placeholders(schema::kLaunchColumnCount + 1)));
    for (const auto& l : run.launches) {
      int i = 0;
      s.bind(++i, id);
      s.bind(++i, l.index);
      s.bind(++i, l.id);
      s.bind(++i, l.kernel);
      s.bind(++i, l.tenant);
      const auto& o = l.outcome;
      for (TimeNs v : {o.arrival, o.release, o.first_dispatch, o.finish, o.turnaround, o.alone}) s.bind(++i, v);
      s.bind(++i, o.slowdown);
      s.bind(++i, o.deadline_missed ? 1 : 0);
      s.bind(++i, o.blocks);
      s.run();
    }
  }
  if (run.info.blocks_kept) {
    Statement s(db, fmt::format("INSERT INTO blocks (run_id, {}) VALUES ({})", schema::kBlockColumns,
                                placeholders(schema::kBlockColumnCount + 1)));
    std::int64_t seq = 0;
    for (const auto& p : run.schedule.pieces) {
      s.bind(1, id);
      s.bind(2, seq);
      s.bind(3, p.launch);
      s.bind(4, p.block);
      s.bind(5, static_cast<int>(p.gpu));
      s.bind(6, static_cast<int>(p.sm));
      s.bind(7, p.start);
      s.bind(8, p.end);
      s.bind(9, static_cast<int>(p.outcome));
      s.run();
      ++seq;
      if (progress && seq % kProgressEvery == 0) progress(seq);
    }
    Statement ph(db, fmt::format("INSERT INTO phases (run_id, {}) VALUES ({})", schema::kPhaseColumns,
                                 placeholders(schema::kPhaseColumnCount + 1)));
    std::int64_t pseq = 0;
    for (const auto& p : run.schedule.phases) {
      ph.bind(1, id);
      ph.bind(2, pseq++);
      ph.bind(3, p.launch);
      ph.bind(4, static_cast<int>(p.gpu));
      ph.bind(5, static_cast<int>(p.state));
      ph.bind(6, p.start);
      ph.bind(7, p.end);
      ph.run();
    }
  }
  if (predicted_run != 0) {
    if (!run_summary(predicted_run))
      throw std::invalid_argument(fmt::format("write_run: predicted run {} is not in {}", predicted_run, path()));
    link_validation(id, predicted_run);
  }
  t.commit();
  if (inserted) *inserted = true;
  return id;
}

void Store::link_validation(std::int64_t live_run, std::int64_t predicted_run) {
  Statement s(impl_->db,
              "INSERT OR IGNORE INTO validations (live_run_id, predicted_run_id, created_at) VALUES (?, ?, ?)");
  s.bind(1, live_run);
  s.bind(2, predicted_run);
  s.bind(3, utc_now_iso8601());
  s.run();
}

std::int64_t Store::run_count() const {
  Statement s(impl_->db, "SELECT count(*) FROM runs");
  return s.step() ? s.int64(0) : 0;
}

std::vector<RunSummary> Store::list_runs(const RunFilter& f) const {
  std::string sql = summary_select();
  std::vector<std::string> binds;
  const std::pair<const char*, const std::string*> conds[] = {
      {"mode", &f.mode}, {"workload", &f.workload},         {"policy", &f.policy},
      {"gpu", &f.gpu},   {"interference", &f.interference}, {"sweep", &f.sweep}};
  for (const auto& [col, val] : conds) {
    if (val->empty()) continue;
    sql += binds.empty() ? " WHERE " : " AND ";
    sql += fmt::format("runs.{} = ?", col);
    binds.push_back(*val);
  }
  sql += " ORDER BY runs.id";
  Statement s(impl_->db, sql);
  for (std::size_t i = 0; i < binds.size(); ++i) s.bind(static_cast<int>(i + 1), binds[i]);
  std::vector<RunSummary> out;
  while (s.step()) out.push_back({read_run(s, 0), read_metrics(s, 1 + schema::kRunColumnCount)});
  return out;
}

std::optional<RunSummary> Store::run_summary(std::int64_t id) const {
  Statement s(impl_->db, summary_select() + " WHERE runs.id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return RunSummary{read_run(s, 0), read_metrics(s, 1 + schema::kRunColumnCount)};
}

std::vector<LaunchRow> Store::launches(std::int64_t run) const {
  Statement s(impl_->db, fmt::format("SELECT {} FROM launches WHERE run_id = ? ORDER BY idx", schema::kLaunchColumns));
  s.bind(1, run);
  std::vector<LaunchRow> out;
  while (s.step()) {
    LaunchRow l;
    int c = 0;
    l.index = static_cast<int>(s.int64(c++));
    l.id = s.text(c++);
    l.kernel = s.text(c++);
    l.tenant = s.text(c++);
    auto& o = l.outcome;
    for (TimeNs* v : {&o.arrival, &o.release, &o.first_dispatch, &o.finish, &o.turnaround, &o.alone}) *v = s.int64(c++);
    o.slowdown = s.real(c++);
    o.deadline_missed = s.int64(c++) != 0;
    o.blocks = s.int64(c++);
    out.push_back(std::move(l));
  }
  return out;
}

Schedule Store::schedule(std::int64_t run) const {
  Schedule out;
  {
    Statement n(impl_->db, "SELECT count(*) FROM blocks WHERE run_id = ?");
    n.bind(1, run);
    if (n.step()) out.pieces.reserve(static_cast<std::size_t>(n.int64(0)));
  }
  Statement s(impl_->db,
              "SELECT launch, block, gpu, sm, start_ns, end_ns, outcome FROM blocks WHERE run_id = ? ORDER BY seq");
  s.bind(1, run);
  while (s.step()) {
    BlockPiece p;
    p.launch = static_cast<std::int32_t>(s.int64(0));
    p.block = static_cast<std::int32_t>(s.int64(1));
    p.gpu = static_cast<std::int16_t>(s.int64(2));
    p.sm = static_cast<std::int16_t>(s.int64(3));
    p.start = s.int64(4);
    p.end = s.int64(5);
    const std::int64_t outcome = s.int64(6);
    if (outcome < 0 || outcome > static_cast<std::int64_t>(PieceOutcome::Killed))
      throw StoreFormatError(
          path(), fmt::format("damaged gpusched result store: run {} has a piece with outcome {}", run, outcome));
    p.outcome = static_cast<PieceOutcome>(outcome);
    out.pieces.push_back(p);
  }
  if (impl_->has_phases) {
    Statement ph(impl_->db, "SELECT launch, gpu, state, start_ns, end_ns FROM phases WHERE run_id = ? ORDER BY seq");
    ph.bind(1, run);
    while (ph.step()) {
      PhaseSpan p;
      p.launch = static_cast<std::int32_t>(ph.int64(0));
      p.gpu = static_cast<std::int16_t>(ph.int64(1));
      const std::int64_t state = ph.int64(2);
      if (state < 0 || state > static_cast<std::int64_t>(PhaseState::SaveState))
        throw StoreFormatError(
            path(), fmt::format("damaged gpusched result store: run {} has a phase with state {}", run, state));
      p.state = static_cast<PhaseState>(state);
      p.start = ph.int64(3);
      p.end = ph.int64(4);
      out.phases.push_back(p);
    }
  }
  return out;
}

RunRecord Store::load_run(std::int64_t id) const {
  auto summary = run_summary(id);
  if (!summary) throw std::invalid_argument(fmt::format("{}: no run with id {}", path(), id));
  RunRecord r;
  r.info = std::move(summary->info);
  r.metrics = summary->metrics;
  r.launches = launches(id);
  r.schedule = schedule(id);
  return r;
}

std::vector<ValidationPair> Store::validations() const {
  Statement s(
      impl_->db,
      "SELECT live_run_id, predicted_run_id, created_at FROM validations ORDER BY live_run_id, predicted_run_id");
  std::vector<ValidationPair> out;
  while (s.step()) out.push_back({s.int64(0), s.int64(1), s.text(2)});
  return out;
}

std::vector<std::string> Store::keys() const {
  Statement s(impl_->db, "SELECT key FROM runs ORDER BY id");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

MergeStats Store::merge_from(const std::string& other_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::equivalent(other_path, path(), ec))
    throw std::invalid_argument(fmt::format("{}: cannot merge a store into itself", other_path));
  { Store check = Store::open(other_path, Mode::ReadOnly); }  // format and version checks, with their messages
  auto& db = impl_->db;
  {
    Statement attach(db, "ATTACH DATABASE ? AS src");
    attach.bind(1, other_path);
    attach.run();
  }
  struct Detach {
    Database& db;
    ~Detach() { sqlite3_exec(db.handle(), "DETACH DATABASE src", nullptr, nullptr, nullptr); }
  } detach{db};

  MergeStats stats;
  Transaction t(db);
  Statement missing(db, "SELECT id FROM src.runs WHERE key NOT IN (SELECT key FROM main.runs) ORDER BY id");
  Statement total(db, "SELECT count(*) FROM src.runs");
  const std::int64_t total_runs = total.step() ? total.int64(0) : 0;
  Statement copy_run(
      db, fmt::format("INSERT INTO main.runs ({0}) SELECT {0} FROM src.runs WHERE id = ?", schema::kRunColumns));
  Statement copy_metrics(
      db, fmt::format("INSERT INTO main.metrics (run_id, {0}) SELECT ?, {0} FROM src.metrics WHERE run_id = ?",
                      schema::kMetricColumns));
  Statement copy_launches(
      db, fmt::format(
              "INSERT INTO main.launches (run_id, {0}) SELECT ?, {0} FROM src.launches WHERE run_id = ? ORDER BY idx",
              schema::kLaunchColumns));
  Statement copy_blocks(
      db,
      fmt::format("INSERT INTO main.blocks (run_id, {0}) SELECT ?, {0} FROM src.blocks WHERE run_id = ? ORDER BY seq",
                  schema::kBlockColumns));
  // Stores before version 3 have no phases.
  std::optional<Statement> copy_phases;
  if (has_table(db, "src", "phases"))
    copy_phases.emplace(db, fmt::format("INSERT INTO main.phases (run_id, {0}) SELECT ?, {0} FROM src.phases WHERE "
                                        "run_id = ? ORDER BY seq",
                                        schema::kPhaseColumns));
  std::vector<std::int64_t> old_ids;  // collected first: the loop below inserts into the table queried
  while (missing.step()) old_ids.push_back(missing.int64(0));
  for (const std::int64_t old_id : old_ids) {
    copy_run.bind(1, old_id);
    copy_run.run();
    const std::int64_t new_id = db.last_insert_rowid();
    for (Statement* s : {&copy_metrics, &copy_launches, &copy_blocks, copy_phases ? &*copy_phases : nullptr}) {
      if (!s) continue;
      s->bind(1, new_id);
      s->bind(2, old_id);
      s->run();
    }
    ++stats.runs_added;
  }
  stats.runs_skipped = total_runs - stats.runs_added;
  // Validation links, mapped through the runs' keys (ids differ between stores).
  db.exec(
      "INSERT OR IGNORE INTO main.validations (live_run_id, predicted_run_id, created_at) "
      "SELECT ml.id, mp.id, v.created_at FROM src.validations v "
      "JOIN src.runs sl ON sl.id = v.live_run_id JOIN src.runs sp ON sp.id = v.predicted_run_id "
      "JOIN main.runs ml ON ml.key = sl.key JOIN main.runs mp ON mp.key = sp.key");
  stats.validations_added = db.changes();
  t.commit();
  return stats;
}

}  // namespace gpusched::store
