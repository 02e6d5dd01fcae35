// The store's SQL schema (version kSchemaVersion) and the column lists the reader, the writer and the merge
// share, so that a column is named in one place.
#pragma once

namespace gpusched::store::schema {

// Table bodies named once: the create script and the migrations that rebuild or add these tables use them
// (string-literal concatenation, so the schema stays a compile-time constant).
#define GPUSCHED_STORE_BLOCKS_TABLE \
  "(\n" \
  "  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n" \
  "  seq INTEGER NOT NULL,\n" \
  "  launch INTEGER NOT NULL,\n" \
  "  block INTEGER NOT NULL,\n" \
  "  gpu INTEGER NOT NULL,\n" \
  "  sm INTEGER NOT NULL,\n" \
  "  start_ns INTEGER NOT NULL,\n" \
  "  end_ns INTEGER NOT NULL,\n" \
  "  outcome INTEGER NOT NULL CHECK (outcome BETWEEN 0 AND 5),\n" \
  "  PRIMARY KEY (run_id, seq)\n" \
  ") WITHOUT ROWID;\n"
#define GPUSCHED_STORE_PHASES_TABLE \
  "(\n" \
  "  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n" \
  "  seq INTEGER NOT NULL,\n" \
  "  launch INTEGER NOT NULL,\n" \
  "  gpu INTEGER NOT NULL,\n" \
  "  state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),\n" \
  "  start_ns INTEGER NOT NULL,\n" \
  "  end_ns INTEGER NOT NULL,\n" \
  "  PRIMARY KEY (run_id, seq)\n" \
  ") WITHOUT ROWID;\n"

// Executed once on a new store, inside a transaction. docs/store.md describes every column.
inline constexpr const char* kCreate = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  mode TEXT NOT NULL CHECK (mode IN ('sim', 'live')),
  workload TEXT NOT NULL,
  workload_file TEXT NOT NULL,
  workload_hash TEXT NOT NULL,
  policy TEXT NOT NULL,
  policy_params TEXT NOT NULL,
  gpu TEXT NOT NULL,
  gpu_hash TEXT NOT NULL,
  gpu_count INTEGER NOT NULL,
  interference TEXT NOT NULL,
  seed INTEGER NOT NULL,
  sweep TEXT NOT NULL,
  version TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  host TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  events INTEGER NOT NULL,
  blocks_kept INTEGER NOT NULL CHECK (blocks_kept IN (0, 1)),
  launch_count INTEGER NOT NULL,
  piece_count INTEGER NOT NULL
);
CREATE INDEX runs_by_workload ON runs (workload, policy);
CREATE TABLE metrics (
  run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  stp REAL NOT NULL,
  antt REAL NOT NULL,
  strict_f REAL NOT NULL,
  makespan_ns INTEGER NOT NULL,
  bound_area_ns INTEGER NOT NULL,
  bound_longest_ns INTEGER NOT NULL,
  bound_ns INTEGER NOT NULL,
  makespan_over_bound REAL NOT NULL,
  sm_utilization REAL NOT NULL,
  warp_occupancy REAL NOT NULL,
  deadline_misses INTEGER NOT NULL,
  preemptions INTEGER NOT NULL,
  wasted_work_ns INTEGER NOT NULL,
  mean_preemption_latency_ns INTEGER NOT NULL,
  max_preemption_latency_ns INTEGER NOT NULL
);
CREATE TABLE launches (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  launch_id TEXT NOT NULL,
  kernel TEXT NOT NULL,
  tenant TEXT NOT NULL,
  arrival_ns INTEGER NOT NULL,
  release_ns INTEGER NOT NULL,
  first_dispatch_ns INTEGER NOT NULL,
  finish_ns INTEGER NOT NULL,
  turnaround_ns INTEGER NOT NULL,
  alone_ns INTEGER NOT NULL,
  slowdown REAL NOT NULL,
  deadline_missed INTEGER NOT NULL,
  blocks INTEGER NOT NULL,
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
CREATE TABLE piece_outcomes (code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO piece_outcomes VALUES (0, 'completed'), (1, 'drained'), (2, 'flushed'), (3, 'switched_out'),
  (4, 'switched_in'), (5, 'killed');
CREATE TABLE blocks )sql" GPUSCHED_STORE_BLOCKS_TABLE R"sql(
CREATE TABLE phases )sql" GPUSCHED_STORE_PHASES_TABLE R"sql(
CREATE TABLE validations (
  live_run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  predicted_run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (live_run_id, predicted_run_id)
);
)sql";

// Version 1 -> 2: pieces may be 'killed' (a launch killed at its deadline). SQLite cannot change a CHECK
// constraint, so the blocks table is rebuilt; run by open() in one transaction when a writer opens a v1 file.
inline constexpr const char* kMigrate1To2 = R"sql(
CREATE TABLE blocks_v2 )sql" GPUSCHED_STORE_BLOCKS_TABLE R"sql(
INSERT INTO blocks_v2 SELECT * FROM blocks;
DROP TABLE blocks;
ALTER TABLE blocks_v2 RENAME TO blocks;
INSERT OR IGNORE INTO piece_outcomes VALUES (5, 'killed');
)sql";

// Version 2 -> 3: launch phases (time-sharing states, seed 004) beside the block pieces.
inline constexpr const char* kMigrate2To3 = R"sql(
CREATE TABLE IF NOT EXISTS phases )sql" GPUSCHED_STORE_PHASES_TABLE R"sql(
)sql";

// Tables every store has (phases: from version 3); open() checks them.
inline constexpr const char* kTables[] = {"runs", "metrics", "launches", "piece_outcomes", "blocks", "validations"};

// Column lists (without run ids), shared by the writer, the reader and the merge.
inline constexpr const char* kRunColumns =
    "key, mode, workload, workload_file, workload_hash, policy, policy_params, gpu, gpu_hash, gpu_count, "
    "interference, seed, sweep, version, git_commit, host, started_at, finished_at, events, blocks_kept, "
    "launch_count, piece_count";
inline constexpr int kRunColumnCount = 22;
inline constexpr const char* kMetricColumns =
    "stp, antt, strict_f, makespan_ns, bound_area_ns, bound_longest_ns, bound_ns, makespan_over_bound, "
    "sm_utilization, warp_occupancy, deadline_misses, preemptions, wasted_work_ns, mean_preemption_latency_ns, "
    "max_preemption_latency_ns";
inline constexpr int kMetricColumnCount = 15;
inline constexpr const char* kLaunchColumns =
    "idx, launch_id, kernel, tenant, arrival_ns, release_ns, first_dispatch_ns, finish_ns, turnaround_ns, alone_ns, "
    "slowdown, deadline_missed, blocks";
inline constexpr int kLaunchColumnCount = 13;
inline constexpr const char* kBlockColumns = "seq, launch, block, gpu, sm, start_ns, end_ns, outcome";
inline constexpr int kBlockColumnCount = 8;
inline constexpr const char* kPhaseColumns = "seq, launch, gpu, state, start_ns, end_ns";
inline constexpr int kPhaseColumnCount = 6;

}  // namespace gpusched::store::schema
