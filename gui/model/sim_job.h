// Running simulations from the GUI, in plain C++ so that it is tested without a window: a workload file, a GPU
// and policies in; one stored run per policy out. The GUI calls it from a worker thread (gui/run_dialog.cpp),
// reporting progress and asking whether to go on; each run is stored in its own transaction, so cancelling
// keeps the runs already finished and never half of one.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpusched::gui {

struct SimJobRequest {
  std::string workload_file;
  std::string gpu;  // preset name or GPU file; "" for the workload's own
  std::vector<std::string> policies;
  std::string interference = "none";
  std::uint64_t seed = 1;
  int gpu_count = 0;  // 0: the workload's
  bool keep_blocks = true;
  std::string db_path;
  int busy_timeout_ms = 5000;  // how long to wait for another writer's lock before reporting it
};

struct SimJobProgress {
  int policy_index = 0;  // the policy running now, from 0
  int policy_count = 0;
  std::string policy;
  double fraction = 0;  // of the whole job, 0..1
};

struct SimJobResult {
  std::vector<std::int64_t> run_ids;  // one per policy, in order (an existing id where the run was stored before)
  std::vector<std::string> warnings;  // what the readers warned about
};

// Thrown when `progress` returned false; the runs stored before remain.
class SimJobCancelled : public std::runtime_error {
 public:
  SimJobCancelled() : std::runtime_error("cancelled") {}
};

// Throws the readers' InputError (bad workload or GPU file), store::StoreFormatError (a foreign or newer
// database), std::invalid_argument (unknown policy, kernel that cannot run), std::runtime_error (SQLite errors
// such as a locked database), or SimJobCancelled.
SimJobResult run_sim_job(const SimJobRequest& request, const std::function<bool(const SimJobProgress&)>& progress);

}  // namespace gpusched::gui
