#include "sim/sweep/slurm.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "core/atomic_file.h"

namespace gpusched::sim {
namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

SlurmFiles emit_slurm(const SlurmOptions& o) {
  if (o.shards < 1) throw std::invalid_argument("--shards must be at least 1");
  if (o.cpus_per_task < 1) throw std::invalid_argument("--cpus-per-task must be at least 1");
  for (const auto& opt : o.sbatch_options)
    if (opt.find('\n') != std::string::npos) throw std::invalid_argument("--sbatch options must be one line each");
  const fs::path dir = fs::absolute(o.dir).lexically_normal();
  fs::create_directories(dir / "logs");
  fs::create_directories(dir / "results");
  const std::string sweep = fs::absolute(o.sweep_file).lexically_normal().string();
  const std::string bin = fs::absolute(o.gpusched_binary).lexically_normal().string();
  const std::string results = (dir / "results").string();

  std::string extra;
  for (const auto& opt : o.sbatch_options) extra += fmt::format("#SBATCH {}\n", opt);
  const std::string sbatch = fmt::format(
      R"(#!/bin/bash
#SBATCH --job-name=gpusched-{name}
#SBATCH --array=0-{last}
#SBATCH --cpus-per-task={cpus}
#SBATCH --output={logs}/shard-%a.out
{extra}# Written by: gpusched sweep {sweep_q} --emit-slurm {dir_q}
# Submit with: sbatch {sbatch_q}; when every task has finished: bash {merge_q}
# Each task runs one shard of the sweep into an SQLite store on the node's local disk (WAL needs a local file
# system), then copies the closed store into {results_q} under a temporary name and renames it.
set -euo pipefail
shard="${{SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}}"
local_dir="${{SLURM_TMPDIR:-${{TMPDIR:-/tmp}}}}"
local_db="$local_dir/gpusched-${{SLURM_ARRAY_JOB_ID:-0}}-$shard.db"
final={results_q}/shard-"$shard".db
rm -f "$local_db" "$local_db-wal" "$local_db-shm"
# A task run again (requeued, resubmitted) starts from what its shard already stored and skips it.
if [[ -f "$final" ]]; then cp "$final" "$local_db"; fi
{bin_q} sweep {sweep_q} --db "$local_db" --jobs "${{SLURM_CPUS_PER_TASK:-{cpus}}}" --shard "$shard/{shards}"
cp "$local_db" {results_q}/.shard-"$shard".db.tmp
mv {results_q}/.shard-"$shard".db.tmp "$final"
rm -f "$local_db"
)",
      fmt::arg("name", o.name), fmt::arg("last", o.shards - 1), fmt::arg("cpus", o.cpus_per_task),
      fmt::arg("logs", (dir / "logs").string()), fmt::arg("extra", extra), fmt::arg("sweep_q", shell_quote(sweep)),
      fmt::arg("dir_q", shell_quote(dir.string())), fmt::arg("sbatch_q", shell_quote((dir / "sweep.sbatch").string())),
      fmt::arg("merge_q", shell_quote((dir / "merge.sh").string())), fmt::arg("results_q", shell_quote(results)),
      fmt::arg("bin_q", shell_quote(bin)), fmt::arg("shards", o.shards));
  const std::string merge = fmt::format(
      R"(#!/bin/bash
# Merges the shards of a gpusched Slurm sweep into {merged_q}; merging again adds nothing new.
set -euo pipefail
shopt -s nullglob
shards=({results_q}/shard-*.db)
if (( ${{#shards[@]}} < {shards} )); then
  echo "merge.sh: ${{#shards[@]}} of {shards} shards have finished; merging those" >&2
fi
{bin_q} merge {merged_q} "${{shards[@]}}"
)",
      fmt::arg("merged_q", shell_quote((dir / "merged.db").string())), fmt::arg("results_q", shell_quote(results)),
      fmt::arg("shards", o.shards), fmt::arg("bin_q", shell_quote(bin)));
  SlurmFiles files{(dir / "sweep.sbatch").string(), (dir / "merge.sh").string()};
  for (const auto& [path, text] : {std::pair{files.sbatch, sbatch}, std::pair{files.merge, merge}}) {
    AtomicFile f(path);
    f.write(text);
    f.commit();
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
  }
  return files;
}

}  // namespace gpusched::sim
