#include "gui/model/sim_job.h"

#include "core/content_hash.h"
#include "core/store/store.h"
#include "sim/run_identity.h"
#include "sim/runner.h"

namespace gpusched::gui {

namespace {

// Reports progress every few thousand pieces and stops the engine (by throwing through it) when asked to.
class ProgressObserver final : public sim::EngineObserver {
 public:
  ProgressObserver(const std::function<bool(const SimJobProgress&)>& progress, SimJobProgress base,
                   std::int64_t total_blocks)
      : progress_(progress), base_(std::move(base)), total_(std::max<std::int64_t>(1, total_blocks)) {}
  void on_piece(const BlockPiece&) override {
    if (++pieces_ % 4096 != 0) return;
    SimJobProgress p = base_;
    const double within = std::min(1.0, static_cast<double>(pieces_) / static_cast<double>(total_));
    p.fraction = (p.policy_index + within) / p.policy_count;
    if (!progress_(p)) throw SimJobCancelled();
  }

 private:
  const std::function<bool(const SimJobProgress&)>& progress_;
  SimJobProgress base_;
  std::int64_t total_;
  std::int64_t pieces_ = 0;
};

}  // namespace

SimJobResult run_sim_job(const SimJobRequest& request, const std::function<bool(const SimJobProgress&)>& progress) {
  SimJobResult result;
  if (request.policies.empty()) throw std::invalid_argument("choose at least one policy");
  Warnings warnings;
  const auto loaded = sim::load_workload_and_gpu(request.workload_file, request.gpu, &warnings, "GPU", "choose one");
  const Workload& w = loaded.workload;
  const GpuSpec& gpu = loaded.gpu;
  sim::check_runnable(w, gpu);
  auto db = store::Store::open(request.db_path);
  db.set_busy_timeout(request.busy_timeout_ms);
  const std::string workload_hash = workload_content_hash(w);
  sim::AloneTimeCache alone;

  const int count = static_cast<int>(request.policies.size());
  for (int i = 0; i < count; ++i) {
    SimJobProgress base{i, count, request.policies[static_cast<std::size_t>(i)], static_cast<double>(i) / count};
    if (!progress(base)) throw SimJobCancelled();
    sim::RunOptions o;
    o.policy = base.policy;
    o.interference = sim::resolve_interference(request.interference, w);  // auto -> equivalent, age or none, stored as such
    o.seed = request.seed;
    o.gpu_count = request.gpu_count;
    o.keep_schedule = request.keep_blocks;
    ProgressObserver observer(progress, base, w.total_blocks());
    o.observers.push_back(&observer);
    auto info = sim::describe_sim_run(w, workload_hash, gpu, o);
    if (const auto existing = db.find_run(info.key)) {  // stored before: nothing to simulate
      result.run_ids.push_back(*existing);
      continue;
    }
    auto record = sim::run_for_store(w, gpu, o, std::move(info), alone);
    result.run_ids.push_back(db.write_run(record));
  }
  SimJobProgress done{count, count, "", 1.0};
  progress(done);
  result.warnings.assign(warnings.begin(), warnings.end());
  return result;
}

}  // namespace gpusched::gui
