#include "sim/run_identity.h"

#include <fmt/format.h>

#include "core/content_hash.h"
#include "sim/cli/build_info.h"
#include "sim/duration_model.h"
#include "sim/policy.h"
#include "sim/registry.h"
#include "sim/runner.h"

namespace gpusched::sim {

const char* gpusched_version() {
  return GPUSCHED_VERSION;
}
const char* gpusched_git_commit() {
  return GPUSCHED_GIT_COMMIT;
}

store::RunInfo describe_sim_run(const Workload& w, const std::string& workload_hash, const GpuSpec& gpu,
                                const RunOptions& o, const std::string& sweep) {
  const auto* policy = Registry<Policy>::instance().find(o.policy);
  if (!policy)
    throw std::invalid_argument(
        fmt::format("unknown policy '{}' (policies: {})", o.policy, Registry<Policy>::instance().names()));
  auto given_model_params = o.interference_params;
  const std::string model_name = split_model_spec(o.interference, given_model_params);  // "name:key=value"
  const auto* model = Registry<DurationModel>::instance().find(model_name);
  if (!model)
    throw std::invalid_argument(fmt::format("unknown interference model '{}' (models: {})", model_name,
                                            Registry<DurationModel>::instance().names()));
  store::RunInfo info;
  info.mode = "sim";
  info.workload = w.name;
  info.workload_file = w.file;
  info.workload_hash = workload_hash;
  info.policy = o.policy;
  info.policy_params = Params::resolve("policy " + o.policy, policy->params, o.policy_params).canonical();
  info.gpu = gpu.name;
  info.gpu_hash = gpu_content_hash(gpu);
  info.gpu_count = o.gpu_count > 0 ? o.gpu_count : w.gpu_count;
  const auto model_params =
      Params::resolve("interference model " + model_name, model->params, given_model_params).canonical();
  info.interference = model_params.empty() ? model_name : model_name + "(" + model_params + ")";
  info.seed = o.seed;
  info.sweep = sweep;
  info.version = GPUSCHED_VERSION;
  info.git_commit = GPUSCHED_GIT_COMMIT;
  info.host = store::host_name();
  info.key = store::make_run_key(info);
  return info;
}

store::RunRecord run_for_store(const Workload& w, const GpuSpec& gpu, const RunOptions& o, store::RunInfo info,
                               AloneTimeCache& alone) {
  // Counts pieces when the Schedule is not kept, so the run row still says how many there were.
  struct PieceCounter final : EngineObserver {
    std::int64_t pieces = 0;
    void on_piece(const BlockPiece&) override { ++pieces; }
  } counter;
  RunOptions options = o;
  if (!options.keep_schedule) options.observers.push_back(&counter);
  info.started_at = store::utc_now_iso8601();
  RunResult result = run_workload(w, gpu, options, alone);
  info.finished_at = store::utc_now_iso8601();
  info.piece_count = counter.pieces;
  return store::make_run_record(std::move(info), w, std::move(result), o.keep_schedule);
}

}  // namespace gpusched::sim
