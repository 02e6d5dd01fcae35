// The result store: schema round trip, run keys, crash safety (a writer killed mid-transaction leaves
// nothing), merge idempotence, and clear errors for files that are not gpusched stores.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/content_hash.h"
#include "core/gpu_file.h"
#include "core/store/store.h"
#include "core/workload_io.h"
#include "test_helpers.h"

using namespace gpusched;
using store::Store;

namespace {

std::string temp_path(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("gpusched_store_" + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove(p);
  std::filesystem::remove(p.string() + "-wal");
  std::filesystem::remove(p.string() + "-shm");
  return p.string();
}

struct SmallCase {
  Workload w;
  GpuSpec gpu;
};

SmallCase small() {
  Warnings warn;
  const std::string dir = std::string(GPUSCHED_TEST_DATA) + "/small";
  auto w = read_workload(dir + "/small.toml", &warn);
  auto gpu = resolve_gpu(w.gpu, &warn);
  return {std::move(w), std::move(gpu)};
}

store::RunRecord record_of(const SmallCase& c, const std::string& policy, std::uint64_t seed, bool keep) {
  store::RunInfo info;
  info.workload = c.w.name;
  info.workload_file = c.w.file;
  info.workload_hash = workload_content_hash(c.w);
  info.policy = policy;
  info.gpu = c.gpu.name;
  info.gpu_hash = gpu_content_hash(c.gpu);
  info.interference = "none";
  info.seed = seed;
  info.host = "testhost";
  info.started_at = "2026-11-21T00:00:00.000Z";
  info.finished_at = "2026-11-21T00:00:01.000Z";
  info.key = store::make_run_key(info);
  return store::make_run_record(info, c.w, test::run(c.w, c.gpu, policy, seed), keep);
}

}  // namespace

TEST(Store, RoundTripsEveryField) {
  const auto c = small();
  const auto path = temp_path("roundtrip.db");
  auto rec = record_of(c, "srtf", 3, true);
  ASSERT_FALSE(rec.schedule.pieces.empty());
  std::int64_t id = 0;
  {
    auto s = Store::open(path);
    bool inserted = false;
    id = s.write_run(rec, &inserted);
    EXPECT_TRUE(inserted);
  }
  auto s = Store::open(path, Store::Mode::ReadOnly);
  const auto back = s.load_run(id);
  EXPECT_EQ(back.info.key, rec.info.key);
  EXPECT_EQ(back.info.policy, "srtf");
  EXPECT_EQ(back.info.seed, 3u);
  EXPECT_EQ(back.info.workload_hash, rec.info.workload_hash);
  EXPECT_EQ(back.info.launch_count, static_cast<int>(c.w.launches.size()));
  EXPECT_EQ(back.info.piece_count, static_cast<std::int64_t>(rec.schedule.pieces.size()));
  EXPECT_TRUE(back.info.blocks_kept);
  EXPECT_EQ(back.info.started_at, rec.info.started_at);
  EXPECT_DOUBLE_EQ(back.metrics.stp, rec.metrics.stp);
  EXPECT_DOUBLE_EQ(back.metrics.antt, rec.metrics.antt);
  EXPECT_EQ(back.metrics.makespan, rec.metrics.makespan);
  EXPECT_EQ(back.metrics.bound, rec.metrics.bound);
  ASSERT_EQ(back.launches.size(), rec.launches.size());
  for (std::size_t i = 0; i < rec.launches.size(); ++i) {
    EXPECT_EQ(back.launches[i].id, rec.launches[i].id);
    EXPECT_EQ(back.launches[i].kernel, rec.launches[i].kernel);
    EXPECT_EQ(back.launches[i].outcome.finish, rec.launches[i].outcome.finish);
    EXPECT_EQ(back.launches[i].outcome.alone, rec.launches[i].outcome.alone);
    EXPECT_DOUBLE_EQ(back.launches[i].outcome.slowdown, rec.launches[i].outcome.slowdown);
  }
  EXPECT_EQ(back.schedule.pieces, rec.schedule.pieces);
}

TEST(Store, SameKeyIsStoredOnce) {
  const auto c = small();
  const auto path = temp_path("dup.db");
  auto s = Store::open(path);
  const auto rec = record_of(c, "fifo", 1, false);
  bool inserted = false;
  const auto a = s.write_run(rec, &inserted);
  EXPECT_TRUE(inserted);
  const auto b = s.write_run(rec, &inserted);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(a, b);
  EXPECT_EQ(s.run_count(), 1);
  EXPECT_TRUE(s.schedule(a).pieces.empty()) << "blocks not kept";
  // Another seed, policy or workload content is another run.
  EXPECT_NE(record_of(c, "fifo", 2, false).info.key, rec.info.key);
  EXPECT_NE(record_of(c, "sjf", 1, false).info.key, rec.info.key);
  auto changed = c;
  changed.w.launches[0].arrival += 1;
  EXPECT_NE(workload_content_hash(changed.w), workload_content_hash(c.w));
}

TEST(Store, ListsRunsByFilter) {
  const auto c = small();
  auto s = Store::open(temp_path("list.db"));
  for (const char* p : {"fifo", "sjf", "srtf"}) s.write_run(record_of(c, p, 1, false));
  EXPECT_EQ(s.list_runs().size(), 3u);
  store::RunFilter f;
  f.policy = "sjf";
  const auto runs = s.list_runs(f);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].info.policy, "sjf");
  EXPECT_GT(runs[0].metrics.stp, 0.0);
  f.policy = "nonexistent";
  EXPECT_TRUE(s.list_runs(f).empty());
}

TEST(Store, WriterKilledMidTransactionLeavesNothing) {
  const auto c = small();
  const auto path = temp_path("killed.db");
  { Store::open(path).write_run(record_of(c, "fifo", 1, true)); }
  // A run with enough pieces to reach the progress callback, which kills the writing process.
  auto big = record_of(c, "sjf", 1, true);
  const auto piece = big.schedule.pieces.front();
  big.schedule.pieces.assign(20000, piece);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto s = Store::open(path);
    s.write_run(big, nullptr, [](std::int64_t rows) {
      if (rows >= 8192) _exit(42);  // dies with the transaction open
    });
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 42) << "the child should have died inside write_run";
  auto s = Store::open(path);
  EXPECT_EQ(s.run_count(), 1) << "only the committed run";
  EXPECT_FALSE(s.find_run(big.info.key).has_value());
  // The store takes the run afterwards (no leftover lock or partial rows).
  bool inserted = false;
  const auto id = s.write_run(big, &inserted);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(s.schedule(id).pieces.size(), 20000u);
}

TEST(Store, MergeTwiceChangesNothing) {
  const auto c = small();
  const auto a = temp_path("merge_a.db"), b = temp_path("merge_b.db"), out = temp_path("merge_out.db");
  std::int64_t live = 0, predicted = 0;
  {
    auto sa = Store::open(a);
    sa.write_run(record_of(c, "fifo", 1, true));
    predicted = sa.write_run(record_of(c, "sjf", 1, false));
    auto live_rec = record_of(c, "sjf", 1, true);
    live_rec.info.mode = "live";
    live_rec.info.key = store::make_run_key(live_rec.info, "testhost@2026-11-21");
    live = sa.write_run(live_rec);
    sa.link_validation(live, predicted);
  }
  {
    auto sb = Store::open(b);
    sb.write_run(record_of(c, "sjf", 1, false));  // also in a
    sb.write_run(record_of(c, "srtf", 1, false));
  }
  auto so = Store::open(out);
  so.write_run(record_of(c, "srtf", 2, false));
  auto m1 = so.merge_from(a);
  EXPECT_EQ(m1.runs_added, 3);
  EXPECT_EQ(m1.validations_added, 1);
  auto m2 = so.merge_from(b);
  EXPECT_EQ(m2.runs_added, 1);
  EXPECT_EQ(m2.runs_skipped, 1);
  const auto keys = so.keys();
  const auto count = so.run_count();
  EXPECT_EQ(count, 5);
  auto again_a = so.merge_from(a);
  auto again_b = so.merge_from(b);
  EXPECT_EQ(again_a.runs_added + again_b.runs_added, 0);
  EXPECT_EQ(again_a.validations_added, 0);
  EXPECT_EQ(so.keys(), keys);
  EXPECT_EQ(so.run_count(), count);
  // Blocks, launches and the validation link came along, re-numbered.
  const auto runs = so.list_runs();
  std::int64_t fifo_id = 0, live_id = 0, sjf_id = 0;
  for (const auto& r : runs) {
    if (r.info.policy == "fifo") fifo_id = r.info.id;
    if (r.info.mode == "live") live_id = r.info.id;
    if (r.info.mode == "sim" && r.info.policy == "sjf") sjf_id = r.info.id;
  }
  EXPECT_EQ(so.schedule(fifo_id).pieces, record_of(c, "fifo", 1, true).schedule.pieces);
  EXPECT_EQ(so.launches(fifo_id).size(), c.w.launches.size());
  const auto v = so.validations();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].live_run, live_id);
  EXPECT_EQ(v[0].predicted_run, sjf_id);
  EXPECT_THROW(so.merge_from(out), std::invalid_argument);
}

TEST(Store, RefusesFilesThatAreNotStores) {
  const auto expect_error = [](const std::string& path, Store::Mode mode, const std::string& words) {
    try {
      Store::open(path, mode);
      ADD_FAILURE() << path << " opened";
    } catch (const store::StoreFormatError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(words), std::string::npos) << what;
    }
  };
  const auto text = temp_path("text.db");
  std::ofstream(text) << "this is not a database, just some text that is long enough to fill a header......\n";
  expect_error(text, Store::Mode::ReadWrite, "not an SQLite database");
  expect_error(text, Store::Mode::ReadOnly, "not an SQLite database");

  const auto truncated = temp_path("truncated.db");
  {
    auto s = Store::open(truncated);
    s.write_run(record_of(small(), "fifo", 1, true));
  }
  std::filesystem::resize_file(truncated, 100);  // the header survives, the schema does not
  EXPECT_ANY_THROW({
    auto s = Store::open(truncated, Store::Mode::ReadOnly);
    (void)s.list_runs();
  });

  const auto foreign = temp_path("foreign.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE songs (title TEXT)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  expect_error(foreign, Store::Mode::ReadWrite, "another program");

  const auto newer = temp_path("newer.db");
  { Store::open(newer); }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  expect_error(newer, Store::Mode::ReadOnly, "newer gpusched");
  expect_error(temp_path("missing.db"), Store::Mode::ReadOnly, "no such result store");
  const auto dir = temp_path("dir.db");
  std::filesystem::create_directory(dir);
  expect_error(dir, Store::Mode::ReadWrite, "is a directory");
}

TEST(Store, Version1StoresAreReadAndUpgradedForKilledPiecesAndPhases) {
  // Make a version-1 file: today's schema with the old outcome check (0-4), no phases table and
  // user_version 1, one run.
  const auto c = small();
  const auto path = temp_path("v1.db");
  { Store::open(path).write_run(record_of(c, "fifo", 1, true)); }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* downgrade =
        "BEGIN; CREATE TABLE b1 (run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE, seq INTEGER NOT "
        "NULL, launch INTEGER NOT NULL, block INTEGER NOT NULL, gpu INTEGER NOT NULL, sm INTEGER NOT NULL, start_ns "
        "INTEGER NOT NULL, end_ns INTEGER NOT NULL, outcome INTEGER NOT NULL CHECK (outcome BETWEEN 0 AND 4), "
        "PRIMARY KEY (run_id, seq)) WITHOUT ROWID; INSERT INTO b1 SELECT * FROM blocks; DROP TABLE blocks; ALTER "
        "TABLE b1 RENAME TO blocks; DELETE FROM piece_outcomes WHERE code = 5; DROP TABLE phases; PRAGMA user_version = 1; "
        "COMMIT;";
    ASSERT_EQ(sqlite3_exec(db, downgrade, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  // A reader takes it as it is.
  { EXPECT_EQ(Store::open(path, Store::Mode::ReadOnly).list_runs({}).size(), 1u); }
  // A writer upgrades it, keeps the run, and can store killed pieces.
  RunResult killed = test::run(c.w, c.gpu, "fifo", 1);
  killed.schedule.pieces.front().outcome = PieceOutcome::Killed;
  killed.schedule.phases.push_back(PhaseSpan{10, 20, 1, 0, PhaseState::RestoreState});
  store::RunInfo info;
  info.workload = c.w.name;
  info.policy = "fifo-with-a-kill";
  info.gpu = c.gpu.name;
  info.interference = "none";
  info.key = "killed-run";
  std::int64_t id = 0;
  {
    auto s = Store::open(path);
    EXPECT_EQ(s.list_runs({}).size(), 1u);
    id = s.write_run(store::make_run_record(info, c.w, std::move(killed), true));
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), store::kSchemaVersion);
  sqlite3_finalize(st);
  sqlite3_close(db);
  const auto back = Store::open(path, Store::Mode::ReadOnly).schedule(id);
  EXPECT_EQ(back.pieces.front().outcome, PieceOutcome::Killed);
  ASSERT_EQ(back.phases.size(), 1u);
  EXPECT_EQ(back.phases[0], (PhaseSpan{10, 20, 1, 0, PhaseState::RestoreState}));
}
