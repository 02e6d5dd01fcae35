// Running a workload under a policy: builds the engine's launches from a Workload, computes each launch's
// time alone (the launch simulated by itself under `serial` on the same GPU; cached), runs the engine and
// gathers the RunResult with its metrics.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/gpu_spec.h"
#include "core/run_result.h"
#include "core/workload.h"
#include "sim/engine.h"

namespace gpusched::sim {

struct RunOptions {
  std::string policy = "fifo";
  std::map<std::string, std::string> policy_params;
  // Set: this policy object runs instead of the registry's `policy` (whose name the result keeps), for the runs the
  // simulator makes for its own checks with a policy built in code (sim/parts_replay.h). Runs once.
  std::shared_ptr<class Policy> policy_object;
  std::string interference = "none";  // a model's name, or "name:key=value,..." (added to interference_params)
  std::map<std::string, std::string> interference_params;
  // Set: this model object times the blocks instead of the registry's `interference` (whose name the result keeps and
  // the launches' alone times use), for a replay that times blocks by what it knows of the plan
  // (sim/piece_parts_replay.h: pieces carried out as the executor carries them out).
  std::shared_ptr<const class DurationModel> interference_object;
  std::uint64_t seed = 1;
  int gpu_count = 0;          // 0: the workload's
  bool keep_schedule = true;  // false: only observers see the pieces (streaming)
  std::vector<EngineObserver*> observers;
  PreemptionCosts costs;
  TurnaroundFrom turnaround_from = TurnaroundFrom::Release;  // core/metrics.h
};

struct AloneTime {
  TimeNs time = 0;        // makespan of the launch alone
  double block_time = 0;  // sum of its block durations alone (ns)
};

// Times alone, cached by kernel, random-draw identity, GPU, seed and interference model. Thread-safe.
class AloneTimeCache {
 public:
  AloneTime get(const KernelProfile& kernel, std::uint64_t draw_key, const GpuSpec& gpu, std::uint64_t seed,
                const std::string& interference, const std::map<std::string, std::string>& interference_params);

 private:
  std::mutex mutex_;
  std::map<std::tuple<const KernelProfile*, std::uint64_t, std::string, std::uint64_t, std::string>, AloneTime> cache_;
};

// Throws std::invalid_argument for unknown policies, models or parameters, and for kernels that cannot
// run on the GPU; ActionError for a policy's refused action.
RunResult run_workload(const Workload& w, const GpuSpec& gpu, const RunOptions& options, AloneTimeCache& alone);

// The policies `--policy all` means: every registered policy, by name.
std::vector<std::string> all_policy_names();

// A workload file and the GPU it runs on: `gpu_override` (a preset name or GPU file) when given, else the one
// the workload names (a path relative to the workload's folder). Readers' warnings go to `warnings`. Throws the
// readers' InputError, or std::invalid_argument "PATH: the workload names no GPU; <how_to_choose> (presets)"
// when neither names one; `override_field` names the override in a bad GPU's message.
struct LoadedWorkload {
  Workload workload;
  GpuSpec gpu;
};
// The interference model a run uses when asked for "auto" (the CLI's default): `equivalent` where any of the
// workload's kernels has fitted weights in its profile ([equivalent_blocks]), as `equivalent:gpu_wide=on` where any
// also has a GPU-wide fit (gpu_wide_share or [gpu_wide_blocks]; since session 34), else `age` where any has co-run
// records beside its profile (coruns.csv), else `none` (docs/interference.md says why, in that order, they predict
// native runs and executed plans best). Any other name is returned unchanged.
std::string resolve_interference(const std::string& name, const Workload& w);

// "name" or "name:key=value,key=value" (the form every command's --interference and `gpusched crossval --model`
// take): the model's name, with the spec's parameters added to `params` (the spec's win); throws
// std::invalid_argument on a malformed parameter.
std::string split_model_spec(const std::string& spec, std::map<std::string, std::string>& params);

LoadedWorkload load_workload_and_gpu(const std::string& path, const std::string& gpu_override, Warnings* warnings,
                                     const std::string& override_field, const std::string& how_to_choose);

// Checks before running that every kernel can run on the GPU and has block records; throws
// std::invalid_argument naming the kernel's file.
void check_runnable(const Workload& w, const GpuSpec& gpu);

// The command line's `--set POLICY.PARAM=VALUE` arguments as parameters per policy; throws std::invalid_argument
// for a malformed one or one whose policy is not among `policies` (`policies_text` is how the user named them).
std::map<std::string, std::map<std::string, std::string>> parse_policy_sets(const std::vector<std::string>& sets,
                                                                            const std::vector<std::string>& policies,
                                                                            const std::string& policies_text);

}  // namespace gpusched::sim
