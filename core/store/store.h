// The result store: runs, their launches, metrics, optionally their Schedules, and validation pairs, in one
// SQLite file (docs/store.md describes it table by table). Everything that reads or writes results goes
// through this class and gets plain C++ values back: nobody else writes SQL.
//
// One run is written in one transaction, so a crash never leaves half a run. A run has a key (its identity:
// the content hash of what it was given and every setting that changes its result); a run whose key is
// already stored is not written again, which is what makes sweeps resumable and merges idempotent.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metrics.h"
#include "core/run_result.h"
#include "core/schedule.h"
#include "core/workload.h"

namespace gpusched::store {

inline constexpr int kSchemaVersion = 3;  // 2: the 'killed' piece outcome; 3: launch phases
// PRAGMA application_id of a gpusched store: "gpsc" in ASCII.
inline constexpr std::int32_t kApplicationId = 0x67707363;

// The file is not a usable store: not SQLite, corrupt, another program's database, or written by a newer
// schema. Bad input (exit 2), with the file named.
class StoreFormatError : public InputError {
 public:
  StoreFormatError(const std::string& file, const std::string& problem) : InputError(SourcePosition{file}, problem) {}
};

// One row of `runs`: what was run, with what, where and when.
struct RunInfo {
  std::int64_t id = 0;        // assigned by the store
  std::string key;            // identity (see make_run_key)
  std::string mode = "sim";   // "sim" or "live"
  std::string workload;       // the workload's name
  std::string workload_file;  // where it was read from ("" for generated workloads)
  std::string workload_hash;  // workload_content_hash
  std::string policy;
  std::string policy_params;  // "name=value,..." as resolved
  std::string gpu;
  std::string gpu_hash;  // gpu_content_hash
  int gpu_count = 1;
  std::string interference;
  std::uint64_t seed = 0;
  std::string sweep;    // the sweep that produced it ("" for single runs)
  std::string version;  // gpusched version
  std::string git_commit;
  std::string host;
  std::string started_at;  // ISO 8601 UTC
  std::string finished_at;
  std::int64_t events = 0;
  bool blocks_kept = false;
  int launch_count = 0;
  std::int64_t piece_count = 0;  // Schedule pieces the run produced (kept or not)
};

// One launch of a run with its outcome, labelled by the workload's names.
struct LaunchRow {
  int index = 0;
  std::string id;
  std::string kernel;
  std::string tenant;
  LaunchOutcome outcome;
};

// Everything the store keeps of one run.
struct RunRecord {
  RunInfo info;
  Metrics metrics;
  std::vector<LaunchRow> launches;
  Schedule schedule;  // empty when blocks are not kept
};

// A run with its metrics, as listings and reports see it.
struct RunSummary {
  RunInfo info;
  Metrics metrics;
};

struct ValidationPair {
  std::int64_t live_run = 0;
  std::int64_t predicted_run = 0;
  std::string created_at;
};

struct RunFilter {
  std::string mode, workload, policy, gpu, interference, sweep;  // "" matches all
};

struct MergeStats {
  std::int64_t runs_added = 0;
  std::int64_t runs_skipped = 0;  // their key was already in the target
  std::int64_t validations_added = 0;
};

// The key of a run: a hash of its mode, workload content, policy with resolved parameters, GPU content and
// count, interference model with parameters and seed. `unique` is added for runs that are not reproducible
// (live runs: pass the host and start time) and empty for simulations.
std::string make_run_key(const RunInfo& info, const std::string& unique = "");

// Builds the record of a run: its settings from `info`, launches labelled from the workload, metrics and
// the Schedule (moved in when `keep_blocks`). Fills launch_count and piece_count.
RunRecord make_run_record(RunInfo info, const Workload& w, RunResult&& result, bool keep_blocks);
// The other way: a stored run's outcomes, metrics and Schedule as a RunResult (settings not carried over).
RunResult run_result_of(RunRecord&& rec);

// "2026-11-21T17:50:00.123Z" for now.
std::string utc_now_iso8601();
// The host name, for provenance.
std::string host_name();

class Store {
 public:
  enum class Mode { ReadOnly, ReadWrite };
  // Opens a store, creating it (ReadWrite) when the file does not exist or is empty. Throws
  // StoreFormatError for a file that is not a gpusched store or was written by a newer schema.
  static Store open(const std::string& path, Mode mode = Mode::ReadWrite);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const;
  // How long a statement waits for another process's lock before failing (30 s from open; the GUI waits less
  // so that a locked store is reported while the user is still looking).
  void set_busy_timeout(int milliseconds);

  // The id of the run with this key, if stored.
  std::optional<std::int64_t> find_run(const std::string& key) const;
  // Writes a run in one transaction and returns its id; a run whose key is already stored is not written
  // again and its existing id is returned with `*inserted = false`. `progress(rows)` is called every few
  // thousand block rows (tests use it to kill a writer mid-transaction).
  // With `predicted_run` (a live run's prediction), the validation link is written in the same transaction.
  std::int64_t write_run(const RunRecord& run, bool* inserted = nullptr,
                         const std::function<void(std::int64_t)>& progress = {}, std::int64_t predicted_run = 0);
  // Links a live run to the run that predicted it.
  void link_validation(std::int64_t live_run, std::int64_t predicted_run);

  std::int64_t run_count() const;
  std::vector<RunSummary> list_runs(const RunFilter& filter = {}) const;
  std::optional<RunSummary> run_summary(std::int64_t id) const;
  std::vector<LaunchRow> launches(std::int64_t run) const;
  Schedule schedule(std::int64_t run) const;  // empty when the run's blocks were not kept
  RunRecord load_run(std::int64_t id) const;  // throws std::invalid_argument for an unknown id
  std::vector<ValidationPair> validations() const;
  std::vector<std::string> keys() const;

  // Copies every run of `other_path` whose key is not stored here (with its launches, metrics, blocks and
  // validation links), in one transaction. Merging the same file twice adds nothing the second time.
  MergeStats merge_from(const std::string& other_path);

 private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpusched::store
