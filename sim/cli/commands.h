// The `gpusched` subcommands; each file adds one to the CLI11 app.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/duration_format.h"
#include "core/error.h"
#include "core/gpu_spec.h"
#include "core/time.h"
#include "core/workload.h"
#include "sim/runner.h"

namespace gpusched::cli {

void add_info_command(CLI::App& app);
void add_gpus_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_gen_pairs_command(CLI::App& gen);
void add_gen_kernelet_command(CLI::App& gen);
void add_gen_chimera_command(CLI::App& gen);   // gen chimera-rt
void add_gen_sharegpu_command(CLI::App& gen);  // gen sharegpu
void add_chimera_commands(CLI::App& app);      // chimera-rt, chimera-pairs
void add_sharegpu_command(CLI::App& app);      // sharegpu
void add_sim_command(CLI::App& app);
void add_replay_command(CLI::App& app);
void add_crossval_command(CLI::App& app);  // interference models against measured co-runs
void add_policies_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_reorder_command(CLI::App& app);
void add_as_priorities_command(CLI::App& app);  // a plan replayed through stream priorities
void add_replay_parts_command(CLI::App& app);   // a stored validation's plan of pieces replayed in parts
void add_sweep_command(CLI::App& app);
void add_kernelet_command(CLI::App& app);
void add_store_commands(CLI::App& app);  // merge, runs, report, export

// Thrown by a command to end with this exit code after its objects are destroyed (stores closed).
struct ExitCode {
  int code;
};

// Reads a workload and the GPU it runs on (`gpu_override` from --gpu, else the workload's own); prints warnings.
using sim::LoadedWorkload;
LoadedWorkload load_workload_and_gpu(const std::string& path, const std::string& gpu_override);

// "PARAM=VALUE" settings (--set) as a map; throws std::invalid_argument naming the bad one.
std::map<std::string, std::string> parse_sets(const std::vector<std::string>& sets);

// Runs `jobs` tasks on up to `threads` threads (0: all cores); the first exception is rethrown.
void parallel_for(std::size_t jobs, int threads, const std::function<void(std::size_t)>& task);

// Prints collected reader warnings to stderr.
void print_warnings(const Warnings& w);

// Each tenant's (LaunchSpec::tenant) first release and last finish in a run of `w` (sharegpu, chimera-pairs).
std::map<std::string, std::pair<TimeNs, TimeNs>> span_by_tenant(const Workload& w, const RunResult& r);

}  // namespace gpusched::cli
