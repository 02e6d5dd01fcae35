// A Slurm job array for a sweep: one shard per array task, each task writing its own SQLite store on the
// node's local disk (WAL does not work over network file systems) and copying it, closed, to a shared
// results folder when done; `merge.sh` merges the shards. Accel-Sim's job launching is the model: the same
// binary and sweep file run locally or as cluster jobs.
#pragma once
#include <string>
#include <vector>

namespace gpusched::sim {

struct SlurmOptions {
  std::string dir;                          // where the scripts, logs and results go (shared file system)
  std::string sweep_file;                   // the sweep, as every task will read it
  std::string gpusched_binary;              // the gpusched every task runs
  std::string name;                         // job name suffix
  int shards = 1;                           // array tasks
  int cpus_per_task = 1;                    // also each task's --jobs
  std::vector<std::string> sbatch_options;  // extra "#SBATCH" lines, e.g. "--partition=cpu", "--time=1:00:00"
};

struct SlurmFiles {
  std::string sbatch;  // DIR/sweep.sbatch
  std::string merge;   // DIR/merge.sh
};

// Writes the files (paths made absolute) and creates DIR/logs and DIR/results. Throws std::invalid_argument
// for bad options and std::runtime_error when it cannot write.
SlurmFiles emit_slurm(const SlurmOptions& options);

// A word for bash in single quotes.
std::string shell_quote(const std::string& s);

}  // namespace gpusched::sim
